#include "backends/linux/cgroup_choice.h"

#include <algorithm>
#include <vector>

namespace paddock::linux_backend {
namespace {

bool has(const std::vector<std::string>& v, const char* name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

}  // namespace

std::string choose_cgroup(const CgroupProbe& probe, bool need_memory, bool need_pids) {
  const auto covers = [&](const std::vector<std::string>& controllers) {
    return (!need_memory || has(controllers, "memory")) && (!need_pids || has(controllers, "pids"));
  };
  if (probe.v2_delegated_writable && covers(probe.v2_controllers)) return "v2";
  if (probe.v1_writable && covers(probe.v1_controllers)) return "v1";
  return "none";
}

}  // namespace paddock::linux_backend
