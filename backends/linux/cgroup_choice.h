// Which cgroup hierarchy, if any, carries the memory and pids limits on a probed kernel. Shared by
// the plan compiler and the capability matrix so that they cannot disagree.
#pragma once

#include <string>

#include "backends/linux/kernel_probe.h"

namespace paddock::linux_backend {

// "v2" when the delegated cgroup2 subtree is writable and enables every needed controller;
// else "v1" when the v1 memory+pids trees are writable and mounted; else "none".
std::string choose_cgroup(const CgroupProbe& probe, bool need_memory, bool need_pids);

}  // namespace paddock::linux_backend
