#include "backends/linux/kernel_probe.h"

namespace paddock::linux_backend {

using nlohmann::json;

json to_json(const KernelProbe& p) {
  return json{
      {"kernel_release", p.kernel_release},
      {"landlock_abi", p.landlock_abi},
      {"seccomp_filter", p.seccomp_filter},
      {"namespaces", {{"user", p.user_ns}, {"mount", p.mount_ns}, {"pid", p.pid_ns},
                      {"net", p.net_ns}, {"ipc", p.ipc_ns}, {"uts", p.uts_ns}}},
      {"unprivileged", p.unprivileged},
      {"rlimit_data", p.rlimit_data},
      {"cgroup", {{"version", p.cgroup.version}, {"v2_mount", p.cgroup.v2_mount},
                  {"own_v2_path", p.cgroup.own_v2_path},
                  {"v2_delegated_writable", p.cgroup.v2_delegated_writable},
                  {"v2_controllers", p.cgroup.v2_controllers},
                  {"v1_controllers", p.cgroup.v1_controllers},
                  {"v1_writable", p.cgroup.v1_writable}}},
  };
}

bool kernel_at_least(const std::string& release, int major, int minor) {
  int got_major = 0, got_minor = 0;
  std::size_t i = 0;
  const auto number = [&](int& out) {
    const std::size_t start = i;
    while (i < release.size() && release[i] >= '0' && release[i] <= '9' && i - start < 6)
      out = out * 10 + (release[i++] - '0');
    return i > start;
  };
  if (!number(got_major) || i >= release.size() || release[i++] != '.' || !number(got_minor))
    return false;
  return got_major > major || (got_major == major && got_minor >= minor);
}

Result<KernelProbe> probe_from_json(const json& j) {
  try {
    KernelProbe p;
    p.kernel_release = j.at("kernel_release").get<std::string>();
    p.landlock_abi = j.at("landlock_abi").get<int>();
    p.seccomp_filter = j.at("seccomp_filter").get<bool>();
    const json& ns = j.at("namespaces");
    p.user_ns = ns.at("user").get<bool>();
    p.mount_ns = ns.at("mount").get<bool>();
    p.pid_ns = ns.at("pid").get<bool>();
    p.net_ns = ns.at("net").get<bool>();
    p.ipc_ns = ns.at("ipc").get<bool>();
    p.uts_ns = ns.at("uts").get<bool>();
    p.unprivileged = j.at("unprivileged").get<bool>();
    p.rlimit_data = j.at("rlimit_data").get<bool>();
    const json& cg = j.at("cgroup");
    p.cgroup.version = cg.at("version").get<std::string>();
    p.cgroup.v2_mount = cg.at("v2_mount").get<std::string>();
    p.cgroup.own_v2_path = cg.at("own_v2_path").get<std::string>();
    p.cgroup.v2_delegated_writable = cg.at("v2_delegated_writable").get<bool>();
    p.cgroup.v2_controllers = cg.at("v2_controllers").get<std::vector<std::string>>();
    p.cgroup.v1_controllers = cg.at("v1_controllers").get<std::vector<std::string>>();
    p.cgroup.v1_writable = cg.at("v1_writable").get<bool>();
    return p;
  } catch (const json::exception& e) {
    return bad_input(std::string("kernel probe JSON: ") + e.what());
  }
}

}  // namespace paddock::linux_backend
