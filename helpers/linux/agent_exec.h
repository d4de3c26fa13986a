// The agent's last steps before exec, the same in both Linux tiers: the sandbox's init
// (sandbox_child.cpp) and the landlock tier's helper (landlock_tier_exec.cpp) call them in the
// agent's own process.
#pragma once

#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"

namespace paddock::helper {

// The plan's rlimits, never raising a hard limit; RLIMIT_DATA is proven to hold.
Status apply_rlimits(const std::vector<linux_backend::Rlimit>& limits);
// Every capability out of the bounding and ambient sets, and the securebits that keep uid 0 from
// regaining them at exec, locked (needs CAP_SETPCAP: root callers).
Status lock_out_capabilities();
// The effective, permitted and inheritable sets emptied.
Status clear_capabilities();
// execve of argv[0], searched on the PATH of env (not the helper's) when it has no '/'; returns
// the errno that decides 126 or 127 (exec_failure_code).
int exec_agent(const std::vector<std::string>& argv, const std::vector<std::string>& env);

}  // namespace paddock::helper
