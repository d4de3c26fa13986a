// For a caller that is root: the read-only grants as idmapped mounts, on which the host's root
// (and every other owner) shows as nobody, so that the agent, uid 0 without capabilities, can
// read there only what every user may read (docs/trust-posture.md). Idmapping a mount needs the
// caller's privilege over the file system it is on, which the sandbox's init, inside its own
// user namespace, does not have: the helper prepares detached copies of those grants before the
// sandbox exists, and init attaches them in place of its own clones.
#pragma once

#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// One entry per step of `steps`; a valid descriptor (a detached mount tree) for each kBindRo
// step, none for the others. Fails (125) when a grant's file system cannot be idmapped.
Result<std::vector<platform::UniqueFd>> prepare_idmapped_grants(const std::vector<linux_backend::MountStep>& steps);

}  // namespace paddock::helper
