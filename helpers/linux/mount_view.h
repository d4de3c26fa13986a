// Builds the agent's file system view (linux_plan.h MountStep) inside a fresh mount namespace:
// an empty tmpfs root, host paths bound at the same paths read-only or read-write, masks over every
// deny path, private /tmp, new /proc and a minimal /dev; then pivot_root into it and detach the
// host root, so nothing that was not listed is reachable by path.
#pragma once

#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"

namespace paddock::helper {

// Must run in the new user+mount namespace, in the new PID namespace (for /proc), before
// Landlock and seccomp. On success the process's root and cwd are the new view's "/".
Status build_mount_view(const std::vector<linux_backend::MountStep>& steps);

}  // namespace paddock::helper
