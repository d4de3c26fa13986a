// What the Linux plan compiler needs to know about the kernel it compiles for. Probed by
// paddock-helper (`paddock-helper probe`), passed to the compiler as data, so that plans for
// Landlock ABI 1..7, cgroup v1/v2 and missing namespaces are testable on any machine.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::linux_backend {

struct CgroupProbe {
  std::string version = "none";      // none | v1 | v2 | hybrid
  std::string v2_mount;              // where cgroup2 is mounted ("" if not)
  std::string own_v2_path;           // this process's cgroup2 path (relative to v2_mount)
  bool v2_delegated_writable = false;  // a child cgroup could be created under own_v2_path
  std::vector<std::string> v2_controllers;  // enabled for children of own_v2_path
  std::vector<std::string> v1_controllers;  // v1 hierarchies mounted (cpu, memory, pids, ...)
  bool v1_writable = false;          // a child group could be created in the v1 memory+pids trees
  bool operator==(const CgroupProbe&) const = default;
};

struct KernelProbe {
  std::string kernel_release;
  int landlock_abi = 0;              // 0 = Landlock unavailable
  bool seccomp_filter = false;
  bool user_ns = false;
  bool mount_ns = false;
  bool pid_ns = false;
  bool net_ns = false;
  bool ipc_ns = false;
  bool uts_ns = false;
  bool unprivileged = true;          // probed as a non-root uid
  // RLIMIT_DATA bounds private writable mappings, mmap included (Linux >= 4.7, unless booted
  // with ignore_rlimit_data, which only logs): tried, not inferred from the release.
  bool rlimit_data = false;
  CgroupProbe cgroup;
  bool operator==(const KernelProbe&) const = default;
};

nlohmann::json to_json(const KernelProbe& p);

// The release's "major.minor" is at least the given one. An unparseable release is not: callers
// use it for facts that only hold on newer kernels.
bool kernel_at_least(const std::string& release, int major, int minor);
Result<KernelProbe> probe_from_json(const nlohmann::json& j);

}  // namespace paddock::linux_backend
