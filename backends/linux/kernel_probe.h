// What the Linux plan compiler needs to know about the kernel it compiles for. Probed by
// paddock-helper (`paddock-helper probe`), passed to the compiler as data, so that plans for
// Landlock ABI 1..7, cgroup v1/v2 and missing namespaces are testable on any machine.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::linux_backend {

struct CgroupProbe {
  std::string version = "none";      // none | v1 | v2 | hybrid
  std::string v2_mount;              // where cgroup2 is mounted ("" if not)
  std::string own_v2_path;           // this process's cgroup2 path (relative to v2_mount)
  bool v2_delegated_writable = false;  // a child cgroup could be created under own_v2_path
  std::vector<std::string> v2_controllers;  // enabled for children of own_v2_path
  std::vector<std::string> v1_controllers;  // v1 hierarchies mounted (cpu, memory, pids, ...)
  bool v1_writable = false;          // a child group could be created in the v1 memory+pids trees
  bool operator==(const CgroupProbe&) const = default;
};

// Why the user + mount namespaces every Linux sandbox starts with cannot be created, as far as the
// probe can tell (kNone when they can). A fact like the others, so the one-line fix is worded
// once (userns_unavailable) and `doctor` and `run` say the same thing.
enum class UsernsBlock {
  kNone,
  kKernelConfig,              // unshare(CLONE_NEWUSER) is EINVAL: built without CONFIG_USER_NS
  kMaxUserNamespaces,         // sysctl user.max_user_namespaces = 0
  kUserNamespaceLimit,        // ENOSPC: the limit is used up, or 32 user namespaces are nested
  kUnprivilegedUsernsClone,   // Debian's sysctl kernel.unprivileged_userns_clone = 0
  kAppArmorRestriction,       // kernel.apparmor_restrict_unprivileged_userns = 1, no profile grants it
  kContainer,                 // refused inside a container or another sandbox (seccomp, nested userns)
  kUnknown,                   // refused for a reason none of the above explains
};

// What the probe saw when it tried, for classify_userns. Sysctl values are the files' trimmed
// contents, "" when the file does not exist on this kernel.
struct UsernsEvidence {
  std::string user_error;      // errno name of unshare(CLONE_NEWUSER), "" when it worked
  std::string mount_error;     // errno name of unshare(CLONE_NEWUSER | CLONE_NEWNS), "" when it worked
  bool privileged = false;     // uid 0 of the initial user namespace (the sysctls above exempt it)
  std::string max_user_namespaces;
  std::string unprivileged_userns_clone;
  std::string apparmor_restrict_unprivileged_userns;
  bool in_container = false;   // a container manager's marker file, or not the initial user namespace
  bool seccomp_filtered = false;  // this process already runs under a seccomp filter
};

UsernsBlock classify_userns(const UsernsEvidence& e);
std::string to_string(UsernsBlock b);

struct KernelProbe {
  std::string kernel_release;
  int landlock_abi = 0;              // 0 = Landlock unavailable
  bool seccomp_filter = false;
  bool user_ns = false;
  bool mount_ns = false;
  bool pid_ns = false;
  bool net_ns = false;
  bool ipc_ns = false;
  bool uts_ns = false;
  UsernsBlock userns_blocked_by = UsernsBlock::kNone;  // why user_ns or mount_ns is false
  std::string userns_error;          // errno name of the failing unshare ("" when none failed)
  bool unprivileged = true;          // probed as a non-root uid
  // Probed as uid 0 of the initial user namespace: the host's root-owned files are the caller's
  // own (a uid 0 inside a container's user namespace owns none of them).
  bool host_root = false;
  // RLIMIT_DATA bounds private writable mappings, mmap included (Linux >= 4.7, unless booted
  // with ignore_rlimit_data, which only logs): tried, not inferred from the release.
  bool rlimit_data = false;
  // An overlay file system can be mounted inside a new user namespace (Linux 5.11+, unless a
  // distribution turned it off): what review mode's write roots need. Tried, not inferred. "" when
  // it worked, otherwise the errno name of the failing mount (or of what the trial needed first).
  std::string overlay_userns_error = "untried";
  bool overlay_userns() const { return overlay_userns_error.empty(); }
  CgroupProbe cgroup;
  bool operator==(const KernelProbe&) const = default;
};

nlohmann::json to_json(const KernelProbe& p);

// The one line that says why this machine cannot start a sandbox's user and mount namespaces and
// what to do about it (only meaningful when !user_ns || !mount_ns). `doctor` prints it and every
// plan compiled against the probe is refused (125) with it.
std::string userns_unavailable(const KernelProbe& p);

// The release's "major.minor" is at least the given one. An unparseable release is not: callers
// use it for facts that only hold on newer kernels.
bool kernel_at_least(const std::string& release, int major, int minor);
Result<KernelProbe> probe_from_json(const nlohmann::json& j);

}  // namespace paddock::linux_backend
