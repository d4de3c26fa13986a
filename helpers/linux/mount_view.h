// Builds the agent's file system view (linux_plan.h MountStep) inside a fresh mount namespace:
// an empty tmpfs root, host paths bound at the same paths read-only or read-write, protected
// paths bound read-only and masks over every deny path (each resolved from its grant's bind,
// refusing symlinks, with every directory above it in a write root pinned), private /tmp, new
// /proc and a minimal /dev; then pivot_root into it and detach the host root, so nothing that was
// not listed is reachable by path. docs/architecture.md ("The mount view") explains the steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/session/placeholder_record.h"
#include "engine/status.h"

namespace paddock::helper {

// A placeholder made on the host for a protected path that did not exist (see MountOp
// kProtectAbsent*): the helper records it so that it can be removed once no session needs it.
using Placeholder = session::PlaceholderRecord;

// The upper and work directories of one overlay step (MountOp kOverlay, kAgentState), in the order
// of those steps: made by the helper in the session's directory (review mode) or in the agent's
// state (agent_state_layers.h) before the sandbox exists. Init opens
// them by path in its own mount namespace (the kernel takes an overlay's upper layer only from
// the mounter's namespace), beneath the host root and without following a symlink, and checks
// that each is the directory the helper made.
struct OverlayDir {
  std::string path;  // absolute host path
  std::uint64_t dev = 0, ino = 0;
};
struct OverlayDirs {
  OverlayDir upper, work;
  // Agent state (MountOp kAgentState): the layers between the upper one and the step's source (the
  // user's own directory, always the lowest), top first; empty for a review root, whose only
  // lower layer is its source.
  std::vector<OverlayDir> lowers;
};

// Must run in the new user+mount namespace, in the new PID namespace (for /proc), before
// Landlock and seccomp. On success the process's root and cwd are the new view's "/".
// `placeholders` receives every placeholder made on the host, also when a later step fails.
// `prepared`: empty, or one descriptor per step (see idmapped_grants.h): a detached mount tree to
  // attach for that grant instead of a clone of the host path. `overlays`: one per kOverlay or
  // kAgentState step, in plan order.
  // `mask_root_only_proc`: the agent is the host's uid 0 (a root caller,
  // LinuxPlan::idmap_read_roots): every /proc entry only root may read is masked in the new /proc.
Status build_mount_view(const std::vector<linux_backend::MountStep>& steps, const linux_backend::TmpfsSize& tmpfs_size,
                        const std::vector<int>& prepared, const std::vector<OverlayDirs>& overlays,
                        std::vector<Placeholder>& placeholders, bool mask_root_only_proc);

}  // namespace paddock::helper
