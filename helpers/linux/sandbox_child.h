// The sandboxed side of a session: runs as PID 1 of the new PID namespace (the "init"), inside
// the new user/mount/IPC/UTS/network namespaces. It builds the view, then forks the agent, which
// applies no_new_privs, Landlock, seccomp, rlimits, the environment allowlist and drops every
// capability before exec. Init reaps every orphan, forwards signals to the agent and exits with it;
// it dies with the helper (PR_SET_PDEATHSIG), and when init dies the kernel kills the namespace.
#pragma once

#include <vector>

#include "helpers/linux/mount_view.h"
#include "helpers/linux/sandbox_spec.h"

namespace paddock::helper {

// report_fd: SOCK_SEQPACKET to the helper. sync_fd: read end the helper writes one byte to once
// the uid/gid maps are in place (EOF = the helper died: exit). filter_fd: stream on which the
// helper sends the compiled seccomp filter (u32 byte length, then the sock_filter array; length
// 0 = it could not be built) once this process is in the session's cgroup; init builds the view
// meanwhile, reads the filter before it forks the agent and dies (125) without it.
// cgroup: the session's cgroup v1 `tasks` files (join) and their parents' (leave), opened by the
// helper; init writes "0" to each join file first thing, which moves itself (a single thread) into
// the leaf, and to each leave file at the end, once the namespace is empty, so that the helper can
// remove the leaf without waiting for init's exit (empty: the helper moves init in itself).
// Never returns.
struct CgroupHandoff {
  std::vector<int> join, leave;
};
// prepared: the helper's detached mount trees for the view (idmapped_grants.h), one per mount
// step (-1 = none), or empty. overlays: the upper and work directories of the review roots, one
// per overlay step (mount_view.h).
[[noreturn]] void sandbox_init_main(const SandboxSpec& spec, int report_fd, int sync_fd, int filter_fd,
                                    const CgroupHandoff& cgroup, const std::vector<int>& prepared,
                                    const std::vector<OverlayDirs>& overlays, long* reaped_counter);

}  // namespace paddock::helper
