// What a running session uses now, for the control socket's `usage` answer
// (engine/session/usage_message.h): from the session's cgroup leaf where it keeps the counter,
// otherwise from /proc over the sandbox's tree (its init's host pid and every descendant), and
// the limits the plan sets.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/session/usage_message.h"
#include "helpers/linux/cgroup_leaf.h"

namespace paddock::helper {

struct ProcTreeUsage {
  std::int64_t cpu_ms = 0;     // user + system of the live processes and of the children they reaped
  std::int64_t rss_bytes = 0;  // resident memory of the live processes
  std::int64_t tasks = 0;      // live processes and threads
};

// root's descendants, and root itself unless `include_root` is false (a helper measuring the
// processes it is the parent or subreaper of), as /proc shows them now; zero when root is gone.
ProcTreeUsage proc_tree_usage(pid_t root, bool include_root = true);

// The sandbox's usage (its tree below `root`, as proc_tree_usage takes it) and the limits of its
// plan's cgroup and rlimits.
session::LiveUsage measure_usage(const CgroupLeaf& leaf, pid_t root, bool include_root,
                                 const linux_backend::CgroupPlan& cgroup, const std::vector<linux_backend::Rlimit>& rlimits);

}  // namespace paddock::helper
