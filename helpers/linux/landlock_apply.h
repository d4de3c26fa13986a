// Applies the plan's Landlock ruleset (linux_plan.h LandlockPlan) to the calling thread and its
// future children. Rights map to the kernel's bits here; bits the running kernel's ABI does
// not know are never passed (older kernels reject them), and a plan that asks for more than the
// kernel has is refused rather than trimmed.
#pragma once

#include "backends/linux/linux_plan.h"
#include "engine/status.h"

namespace paddock::helper {

int landlock_runtime_abi();  // 0 when Landlock is unavailable

// Requires no_new_privs (or CAP_SYS_ADMIN). plan.abi == 0 applies nothing.
Status apply_landlock(const linux_backend::LandlockPlan& plan);

}  // namespace paddock::helper
