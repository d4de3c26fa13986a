// The Linux backend's second tier (docs/capabilities.md, "Linux: the landlock tier"): where user
// namespaces are unavailable (a container's seccomp profile, a sysctl, AppArmor), the user may
// choose a boundary made of Landlock and seccomp only, applied by paddock-helper to the agent's
// own process without unshare. The IR records the choice (meta.linux_tier), so its ir_hash and
// plan_hash differ from the namespace tier's. Compiled from the same frozen IR; what the tier
// cannot enforce is refused by its capability matrix, and every partial row says what is lost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"

namespace paddock::linux_backend {

inline constexpr const char* kTierNamespaces = "namespaces";
inline constexpr const char* kTierLandlock = "landlock";

// Without a mount view a deny inside a grant is carved out of the grant's Landlock rules: the
// helper lists each directory between the grant and the denied path and gives every other entry
// the grant's rights. More rules than this for one session is refused (125) before the agent starts.
inline constexpr int kCarveBudget = 4096;

// One grant with paths inside it that must not get its rights. The helper enumerates it when
// the session starts (helpers/linux/landlock_tier_exec.cpp).
struct LandlockCarve {
  std::string grant;
  std::vector<LandlockFsRight> access;  // the grant's rights
  std::vector<std::string> denied;      // fs.deny inside the grant: no right at all
  std::vector<std::string> read_only;   // fs.deny_write inside a write root: read rights only
  bool operator==(const LandlockCarve&) const = default;
};

struct LandlockTierPlan {
  // Rules for the grants with nothing to carve, and the few host devices the agent needs. The
  // carved grants' rules are added by the helper from `carves`.
  LandlockPlan landlock;
  std::vector<LandlockCarve> carves;
  int carve_budget = kCarveBudget;
  // The private TMPDIR (fs.tmp_isolated): a directory the helper makes in the session's
  // directory, with the write roots' rights; /tmp itself stays the host's and is not granted.
  bool private_tmpdir = false;
  std::vector<SeccompRule> seccomp;                   // the namespace tier's list + the socket gate
  std::vector<SocketFamily> socket_families_allowed;  // AF_INET and AF_INET6 with answer_connect
  // A filtered network (allowlist, strict, ask) or a host port: the agent may make TCP sockets,
  // and every connect(2) it makes is stopped by seccomp (user notification) and answered by the
  // helper, which puts a socket of its own in place of the agent's (helpers/linux/connect_redirect.h):
  // connected to the host's 127.0.0.1:PORT for a granted host port, else to the session's
  // broker (connect_via_broker), else refused. The kernel never connects an address the agent
  // wrote: the helper reads it once, for host ports only, and connects what it read.
  bool answer_connect = false;
  bool connect_via_broker = false;
  std::vector<int> host_ports;
  std::vector<Rlimit> rlimits;
  CgroupPlan cgroup;
  EnvPlan env;
  std::optional<std::int64_t> wall_time_secs;
  bool operator==(const LandlockTierPlan&) const = default;
};

struct LandlockTierCompiled {
  LandlockTierPlan tier_plan;
  BackendPlan plan;
  std::string steps;  // canonical bytes; plan_hash(plan, steps) == plan_hash(compile_linux(ir, probe))
};

// The tier's plan for this IR on this kernel. What the matrix marks unsupported lands in
// plan.refusals, as for the namespace tier.
Result<LandlockTierCompiled> compile_landlock_tier_parts(const FrozenIr& ir, const KernelProbe& probe);

// The tier's capability matrix: every IR field, exact, partial with its loss, or unsupported.
std::vector<FieldCapability> landlock_tier_capability_matrix(const KernelProbe& probe);

// What refuses every plan of the tier on this kernel (no Landlock, no seccomp filter).
std::vector<std::string> landlock_tier_probe_refusals(const KernelProbe& probe);

}  // namespace paddock::linux_backend
