// Probes this kernel for what the Linux plan needs. Every answer comes from trying the thing
// (a forked child unshares, installs a filter, creates a cgroup), never from version numbers.
#pragma once

#include "backends/linux/kernel_probe.h"

namespace paddock::helper {

linux_backend::KernelProbe probe_kernel();

// uid 0 of the initial user namespace (whose uid_map maps every id to itself): the host's root.
bool is_host_root();

}  // namespace paddock::helper
