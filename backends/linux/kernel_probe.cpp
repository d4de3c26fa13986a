#include "backends/linux/kernel_probe.h"

#include <utility>

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

constexpr std::pair<UsernsBlock, const char*> kUsernsBlockNames[] = {
    {UsernsBlock::kNone, "none"},
    {UsernsBlock::kKernelConfig, "kernel_config"},
    {UsernsBlock::kMaxUserNamespaces, "max_user_namespaces"},
    {UsernsBlock::kUserNamespaceLimit, "user_namespace_limit"},
    {UsernsBlock::kUnprivilegedUsernsClone, "unprivileged_userns_clone"},
    {UsernsBlock::kAppArmorRestriction, "apparmor_restrict_unprivileged_userns"},
    {UsernsBlock::kContainer, "container"},
    {UsernsBlock::kUnknown, "unknown"},
};

Result<UsernsBlock> userns_block_from_string(const std::string& s) {
  for (const auto& [b, name] : kUsernsBlockNames)
    if (s == name) return b;
  return bad_input("kernel probe JSON: unknown userns_blocked_by \"" + s + "\"");
}

}  // namespace

std::string to_string(UsernsBlock b) {
  for (const auto& [v, name] : kUsernsBlockNames)
    if (v == b) return name;
  return "unknown";
}

// Most specific first: a sysctl that forbids namespaces explains the failure whatever else is
// true; the container guess comes only after every setting Paddock could name.
UsernsBlock classify_userns(const UsernsEvidence& e) {
  if (e.user_error.empty() && e.mount_error.empty()) return UsernsBlock::kNone;
  if (e.user_error == "EINVAL") return UsernsBlock::kKernelConfig;
  if (e.max_user_namespaces == "0") return UsernsBlock::kMaxUserNamespaces;
  if (e.user_error == "ENOSPC" || e.user_error == "EUSERS") return UsernsBlock::kUserNamespaceLimit;
  if (!e.privileged && e.unprivileged_userns_clone == "0") return UsernsBlock::kUnprivilegedUsernsClone;
  // AppArmor either refuses the unshare or (Ubuntu 24.04+) lets it through into a namespace
  // without capabilities, so that the mount namespace after it fails: both land here.
  if (!e.privileged && e.apparmor_restrict_unprivileged_userns == "1")
    return UsernsBlock::kAppArmorRestriction;
  if (e.in_container || e.seccomp_filtered) return UsernsBlock::kContainer;
  return UsernsBlock::kUnknown;
}

namespace {

// The cause this probe found and the fix for this machine, without the alternative every cause
// shares (userns_unavailable adds it).
std::string userns_cause_and_fix(const KernelProbe& p) {
  const std::string err = p.userns_error.empty() ? "" : " (unshare: " + p.userns_error + ")";
  switch (p.userns_blocked_by) {
    case UsernsBlock::kKernelConfig:
      return "this kernel has no user namespaces" + err +
             ", which every Paddock sandbox starts with: boot a kernel built with CONFIG_USER_NS=y";
    case UsernsBlock::kMaxUserNamespaces:
      return "user namespaces are disabled by sysctl user.max_user_namespaces=0" + err +
             ": enable them with 'sudo sysctl -w user.max_user_namespaces=16384' (and a file in "
             "/etc/sysctl.d/ to keep it)";
    case UsernsBlock::kUserNamespaceLimit:
      return "no more user namespaces can be created" + err +
             ": the user.max_user_namespaces limit is used up or 32 are already nested; raise it "
             "with 'sudo sysctl -w user.max_user_namespaces=16384', or run Paddock less deeply "
             "nested";
    case UsernsBlock::kUnprivilegedUsernsClone:
      return "unprivileged user namespaces are disabled by sysctl kernel.unprivileged_userns_clone=0" +
             err +
             ": enable them with 'sudo sysctl -w kernel.unprivileged_userns_clone=1' (and a file in "
             "/etc/sysctl.d/ to keep it)";
    case UsernsBlock::kAppArmorRestriction:
      return "AppArmor restricts unprivileged user namespaces "
             "(kernel.apparmor_restrict_unprivileged_userns=1) and no profile grants them to this "
             "paddock-helper" + err +
             ": install the paddock package, which loads /etc/apparmor.d/paddock-helper for "
             "/usr/libexec/paddock/paddock-helper, or load that profile for this helper's path "
             "(docs/install.md)";
    case UsernsBlock::kContainer:
      return "user namespaces are refused inside this container or sandbox" + err +
             ": run Paddock on the host, or give the container a seccomp profile and AppArmor/SELinux "
             "policy that allow unshare(CLONE_NEWUSER)";
    case UsernsBlock::kNone:  // user_ns && mount_ns, or a probe from before the cause was recorded
    case UsernsBlock::kUnknown:
      break;
  }
  return "user or mount namespaces cannot be created here" + err +
         " for a reason Paddock cannot identify (no sysctl, AppArmor or container setting explains "
         "it); check that 'unshare --user --map-root-user --mount true' works for this user";
}

}  // namespace

std::string userns_unavailable(const KernelProbe& p) {
  // The other way out: the tier that needs no namespace, with fewer guarantees, never chosen for
  // the user (docs/capabilities.md lists what it loses).
  return userns_cause_and_fix(p) +
         "; or choose the Landlock and seccomp tier, which needs no namespace and loses what "
         "docs/capabilities.md lists, with 'paddock run --tier landlock'";
}

json to_json(const KernelProbe& p) {
  return json{
      {"kernel_release", text(p.kernel_release)},
      {"landlock_abi", p.landlock_abi},
      {"seccomp_filter", p.seccomp_filter},
      {"namespaces", {{"user", p.user_ns}, {"mount", p.mount_ns}, {"pid", p.pid_ns},
                      {"net", p.net_ns}, {"ipc", p.ipc_ns}, {"uts", p.uts_ns}}},
      {"userns_blocked_by", to_string(p.userns_blocked_by)},
      {"userns_error", text(p.userns_error)},
      {"unprivileged", p.unprivileged},
      {"host_root", p.host_root},
      {"rlimit_data", p.rlimit_data},
      {"overlay_userns_error", text(p.overlay_userns_error)},
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
  std::string blocked_by;
  const auto ok = [&] {
    if (!r.object(j, "probe", {"kernel_release", "landlock_abi", "seccomp_filter", "namespaces", "userns_blocked_by",
                               "userns_error", "unprivileged", "host_root", "rlimit_data", "overlay_userns_error",
                               "cgroup"}) ||
        !r.str(j["kernel_release"], "kernel_release", p.kernel_release) ||
        !r.int_value(j["landlock_abi"], "landlock_abi", p.landlock_abi) ||
        !r.boolean(j["seccomp_filter"], "seccomp_filter", p.seccomp_filter) ||
        !r.str(j["userns_blocked_by"], "userns_blocked_by", blocked_by) ||
        !r.str(j["userns_error"], "userns_error", p.userns_error) ||
        !r.boolean(j["unprivileged"], "unprivileged", p.unprivileged) ||
        !r.boolean(j["host_root"], "host_root", p.host_root) ||
        !r.boolean(j["rlimit_data"], "rlimit_data", p.rlimit_data) ||
        !r.str(j["overlay_userns_error"], "overlay_userns_error", p.overlay_userns_error))
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
  auto blocked = userns_block_from_string(blocked_by);
  if (!blocked.ok()) return blocked.error();
  p.userns_blocked_by = *blocked;
  return p;
}

}  // namespace paddock::linux_backend
