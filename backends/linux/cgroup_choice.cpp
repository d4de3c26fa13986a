#include "backends/linux/cgroup_choice.h"

#include <algorithm>
#include <vector>

namespace paddock::linux_backend {
namespace {

bool has(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

}  // namespace

std::string choose_cgroup(const CgroupProbe& probe, bool need_memory, bool need_pids) {
  const auto covers = [&](const std::vector<std::string>& controllers) {
    return (!need_memory || has(controllers, "memory")) && (!need_pids || has(controllers, "pids"));
  };
  if (probe.v2_delegated_writable && covers(probe.v2_controllers)) return "v2";
  if (probe.v1_writable && covers(probe.v1_controllers)) return "v1";
  return "none";
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
  const std::string both = choose_cgroup(probe.cgroup, true, true);
  const std::string mem = choose_cgroup(probe.cgroup, true, false);
  const std::string pids = choose_cgroup(probe.cgroup, false, true);
  if (both != "none") return {both, LimitVia::kCgroup, LimitVia::kCgroup};
  // No hierarchy carries both: the one that exists goes to the limit whose rlimit is missing or
  // weaker. RLIMIT_DATA is always the weaker memory limit; RLIMIT_NPROC is missing for root.
  if (pids != "none" && nproc == LimitVia::kNone) return {pids, data, LimitVia::kCgroup};
  if (mem != "none") return {mem, LimitVia::kCgroup, nproc};
  if (pids != "none") return {pids, data, LimitVia::kCgroup};
  return {"none", data, nproc};
}

}  // namespace paddock::linux_backend
