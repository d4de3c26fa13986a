#include "backends/linux/kernel_probe.h"

#include "engine/json_text.h"
#include "engine/strict_json_reader.h"

namespace paddock::linux_backend {

using nlohmann::json;

namespace {

// Strings as every Paddock JSON writes them (engine/json_text.h): a cgroup path is the kernel's
// bytes.
json text(const std::string& s) { return json(encode_json_text(s)); }
json texts(const std::vector<std::string>& v) {
  json out = json::array();
  for (const auto& s : v) out.push_back(text(s));
  return out;
}

}  // namespace

json to_json(const KernelProbe& p) {
  return json{
      {"kernel_release", text(p.kernel_release)},
      {"landlock_abi", p.landlock_abi},
      {"seccomp_filter", p.seccomp_filter},
      {"namespaces", {{"user", p.user_ns}, {"mount", p.mount_ns}, {"pid", p.pid_ns},
                      {"net", p.net_ns}, {"ipc", p.ipc_ns}, {"uts", p.uts_ns}}},
      {"unprivileged", p.unprivileged},
      {"rlimit_data", p.rlimit_data},
      {"cgroup", {{"version", text(p.cgroup.version)}, {"v2_mount", text(p.cgroup.v2_mount)},
                  {"own_v2_path", text(p.cgroup.own_v2_path)},
                  {"v2_delegated_writable", p.cgroup.v2_delegated_writable},
                  {"v2_controllers", texts(p.cgroup.v2_controllers)},
                  {"v1_controllers", texts(p.cgroup.v1_controllers)},
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

// Strict, as every reader of Paddock's own JSON: the helper reads this from a file its caller
// names, so anything unexpected is an error naming the field, never a guess.
Result<KernelProbe> probe_from_json(const json& j) {
  StrictJsonReader r("kernel probe JSON field ");
  KernelProbe p;
  const auto ok = [&] {
    if (!r.object(j, "probe", {"kernel_release", "landlock_abi", "seccomp_filter", "namespaces", "unprivileged",
                               "rlimit_data", "cgroup"}) ||
        !r.str(j["kernel_release"], "kernel_release", p.kernel_release) ||
        !r.int32(j["landlock_abi"], "landlock_abi", p.landlock_abi) ||
        !r.boolean(j["seccomp_filter"], "seccomp_filter", p.seccomp_filter) ||
        !r.boolean(j["unprivileged"], "unprivileged", p.unprivileged) ||
        !r.boolean(j["rlimit_data"], "rlimit_data", p.rlimit_data))
      return false;
    const json& ns = j["namespaces"];
    if (!r.object(ns, "namespaces", {"user", "mount", "pid", "net", "ipc", "uts"}) ||
        !r.boolean(ns["user"], "namespaces.user", p.user_ns) || !r.boolean(ns["mount"], "namespaces.mount", p.mount_ns) ||
        !r.boolean(ns["pid"], "namespaces.pid", p.pid_ns) || !r.boolean(ns["net"], "namespaces.net", p.net_ns) ||
        !r.boolean(ns["ipc"], "namespaces.ipc", p.ipc_ns) || !r.boolean(ns["uts"], "namespaces.uts", p.uts_ns))
      return false;
    const json& cg = j["cgroup"];
    return r.object(cg, "cgroup", {"version", "v2_mount", "own_v2_path", "v2_delegated_writable", "v2_controllers",
                                   "v1_controllers", "v1_writable"}) &&
           r.str(cg["version"], "cgroup.version", p.cgroup.version) &&
           r.str(cg["v2_mount"], "cgroup.v2_mount", p.cgroup.v2_mount) &&
           r.str(cg["own_v2_path"], "cgroup.own_v2_path", p.cgroup.own_v2_path) &&
           r.boolean(cg["v2_delegated_writable"], "cgroup.v2_delegated_writable", p.cgroup.v2_delegated_writable) &&
           r.strings(cg["v2_controllers"], "cgroup.v2_controllers", p.cgroup.v2_controllers) &&
           r.strings(cg["v1_controllers"], "cgroup.v1_controllers", p.cgroup.v1_controllers) &&
           r.boolean(cg["v1_writable"], "cgroup.v1_writable", p.cgroup.v1_writable);
  }();
  if (!ok) return bad_input(r.error());
  return p;
}

}  // namespace paddock::linux_backend
