#include "backends/linux/cgroup_choice.h"

#include <algorithm>
#include <vector>

namespace paddock::linux_backend {
namespace {

bool has(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

}  // namespace

const char* to_string(CgroupMechanism mechanism) { return schema::enum_name(mechanism).data(); }

CgroupMechanism choose_cgroup(const CgroupProbe& probe, bool need_memory, bool need_pids) {
  const auto covers = [&](const std::vector<std::string>& controllers) {
    return (!need_memory || has(controllers, "memory")) && (!need_pids || has(controllers, "pids"));
  };
  if (probe.v2_delegated_writable && covers(probe.v2_controllers)) return CgroupMechanism::kV2;
  if (probe.v1_writable && covers(probe.v1_controllers)) return CgroupMechanism::kV1;
  return CgroupMechanism::kNone;
}

NprocScope nproc_scope(const KernelProbe& probe) {
  // copy_process() skips the RLIMIT_NPROC check for tasks whose real user is the host's root,
  // and the sandbox maps the caller's uid onto itself: as root the rlimit would bind nothing.
  if (!probe.unprivileged) return NprocScope::kNotEnforced;
  // Linux 5.14 moved the count to ucounts, kept per (user namespace, uid) and checked at each
  // ancestor namespace against the limit its creator had: set inside the sandbox's namespace
  // (after clone, never in the helper), the limit counts the sandbox's own tasks.
  return kernel_at_least(probe.kernel_release, 5, 14) ? NprocScope::kSandbox : NprocScope::kWholeUid;
}

LimitChoice choose_limits(const KernelProbe& probe) {
  const LimitVia data = probe.rlimit_data ? LimitVia::kRlimit : LimitVia::kNone;
  const LimitVia nproc =
      nproc_scope(probe) == NprocScope::kNotEnforced ? LimitVia::kNone : LimitVia::kRlimit;
  constexpr CgroupMechanism kNone = CgroupMechanism::kNone;
  const CgroupMechanism both = choose_cgroup(probe.cgroup, true, true);
  const CgroupMechanism mem = choose_cgroup(probe.cgroup, true, false);
  const CgroupMechanism pids = choose_cgroup(probe.cgroup, false, true);
  if (both != kNone) return {both, LimitVia::kCgroup, LimitVia::kCgroup};
  // No hierarchy carries both: the one that exists goes to the limit whose rlimit is missing or
  // weaker. RLIMIT_DATA is always the weaker memory limit; RLIMIT_NPROC is missing for root.
  if (pids != kNone && nproc == LimitVia::kNone) return {pids, data, LimitVia::kCgroup};
  if (mem != kNone) return {mem, LimitVia::kCgroup, nproc};
  if (pids != kNone) return {pids, data, LimitVia::kCgroup};
  return {kNone, data, nproc};
}

}  // namespace paddock::linux_backend
