#include "backends/oci/oci_plan.h"

#include <algorithm>


#include "backends/linux/cgroup_choice.h"
#include "backends/linux/linux_plan.h"
#include "engine/capability.h"
#include "engine/schema_codec.h"

namespace paddock::oci_backend {
namespace {

using nlohmann::json;
using linux_backend::MountOp;
using linux_backend::MountStep;

constexpr const char* kEmptyFile = "paddock/empty-file";
constexpr const char* kEmptyDir = "paddock/empty-dir";
constexpr const char* kDotFile = "paddock/dot-file";
constexpr const char* kMaskedFile = "paddock/masked-file";

json bind_mount(const std::string& source, const std::string& target, bool writable) {
  return {{"destination", target},
          {"type", "bind"},
          {"source", source},
          {"options", {"bind", writable ? "rw" : "ro", "nosuid", "nodev"}}};
}

json tmpfs(const std::string& target, const std::vector<std::string>& options) {
  return {{"destination", target}, {"type", "tmpfs"}, {"source", "tmpfs"}, {"options", options}};
}

std::vector<std::string> sized(std::vector<std::string> options, const linux_backend::TmpfsSize& size) {
  if (size.bytes > 0) {
    options.push_back("size=" + std::to_string(size.bytes));
    options.push_back("nr_inodes=" + std::to_string(size.inodes));
  }
  return options;
}

// The Linux helper's view (backends/linux/linux_plan.h mount_steps), written as OCI mounts. What a
// runtime cannot do is left out here and stated by the capability rows: overlays (review mode,
// agent state; refused), pinning a symlink's name, and checking that a path is still absent.
json mounts(const FrozenIr& ir) {
  const linux_backend::TmpfsSize size = linux_backend::tmpfs_size(ir.resources);
  const std::vector<MountStep> steps = linux_backend::mount_steps(ir.fs, ir.egress.unix_socket_files, "");
  // The helper's pinned parents (the kernel refuses to rename a mount point, so the agent cannot
  // move a protected path's parent away and make the path anew), each bound onto itself.
  const std::vector<std::vector<std::string>> pins = linux_backend::pins_before(steps);
  json out = json::array();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const MountStep& m = steps[i];
    for (const std::string& dir : pins[i]) out.push_back(bind_mount(dir, dir, true));
    switch (m.op) {
      case MountOp::kBindRo: out.push_back(bind_mount(m.source, m.target, false)); break;
      case MountOp::kBindRw: out.push_back(bind_mount(m.source, m.target, true)); break;
      case MountOp::kProtectDir:
      case MountOp::kProtectFile: out.push_back(bind_mount(m.target, m.target, false)); break;
      // The runtime makes the missing mount point in the project, as the helper makes its
      // placeholder there; a bound read-only empty file or directory keeps it what it was.
      case MountOp::kProtectAbsentDir: out.push_back(bind_mount(kEmptyDir, m.target, false)); break;
      case MountOp::kProtectAbsentFile: out.push_back(bind_mount(kEmptyFile, m.target, false)); break;
      case MountOp::kProtectAbsentPointer: out.push_back(bind_mount(kDotFile, m.target, false)); break;
      case MountOp::kMaskDir:
        out.push_back(tmpfs(m.target, {"ro", "nosuid", "nodev", "noexec", "mode=000", "size=4k"}));
        break;
      case MountOp::kMaskFile: out.push_back(bind_mount(kMaskedFile, m.target, false)); break;
      case MountOp::kMaskAbsent:
        if (linux_backend::deny_kind(ir.fs, m.target) == PathKind::kAbsentDir)
          out.push_back(tmpfs(m.target, {"ro", "nosuid", "nodev", "noexec", "mode=000", "size=4k"}));
        else
          out.push_back(bind_mount(kMaskedFile, m.target, false));
        break;
      case MountOp::kDev:
        out.push_back(tmpfs("/dev", {"nosuid", "noexec", "strictatime", "mode=755", "size=65536k"}));
        out.push_back({{"destination", "/dev/pts"},
                       {"type", "devpts"},
                       {"source", "devpts"},
                       {"options", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}}});
        out.push_back(tmpfs("/dev/shm", sized({"nosuid", "nodev", "mode=1777"}, size)));
        break;
      case MountOp::kProc:
        out.push_back({{"destination", "/proc"}, {"type", "proc"}, {"source", "proc"},
                       {"options", {"nosuid", "noexec", "nodev"}}});
        break;
      case MountOp::kTmpfs: out.push_back(tmpfs(m.target, sized({"nosuid", "nodev", "mode=1777"}, size))); break;
      case MountOp::kOverlay:
      case MountOp::kAgentState:
      case MountOp::kProtectLink:
      case MountOp::kExpectAbsent: break;
    }
  }
  return out;
}

json rlimits(const IrResources& res, const OciFacts& facts) {
  json out = json::array();
  const auto add = [&](const char* type, std::int64_t v) {
    out.push_back({{"type", type}, {"hard", v}, {"soft", v}});
  };
  if (res.cpu_seconds) add("RLIMIT_CPU", *res.cpu_seconds);
  if (!facts.runtime_cgroups && res.memory_bytes) add("RLIMIT_DATA", *res.memory_bytes);
  if (!facts.runtime_cgroups && res.processes) add("RLIMIT_NPROC", *res.processes);
  if (res.open_files) add("RLIMIT_NOFILE", *res.open_files);
  if (res.file_size_bytes) add("RLIMIT_FSIZE", *res.file_size_bytes);
  add("RLIMIT_CORE", 0);
  return out;
}

}  // namespace

// The Linux helper's seccomp deny list (the same table), in the runtime spec's words. No
// "architectures": a call made through another ABI (i386, x32) fails the filter's arch check.
json seccomp_profile() {
  using linux_backend::SocketFamily;
  json calls = json::array();
  for (const linux_backend::SeccompRule& r :
       linux_backend::seccomp_rules({SocketFamily::kUnix, SocketFamily::kInet, SocketFamily::kInet6})) {
    json c = {{"names", {r.syscall}}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", r.errno_value}};
    if (r.arg_index >= 0)
      c["args"] = {{{"index", r.arg_index}, {"value", r.arg_mask}, {"valueTwo", r.arg_value},
                    {"op", "SCMP_CMP_MASKED_EQ"}}};
    calls.push_back(std::move(c));
  }
  return {{"defaultAction", "SCMP_ACT_ALLOW"}, {"syscalls", calls}};
}

namespace {

// The profile with connect(2) handed to the seccomp agent at the launch's listenerPath.
json brokered(json profile) {
  profile["syscalls"].push_back({{"names", {"connect"}}, {"action", "SCMP_ACT_NOTIFY"}});
  return profile;
}

bool notifies(const json& config) {
  const json* calls = &config["linux"]["seccomp"]["syscalls"];
  return std::any_of(calls->begin(), calls->end(), [](const json& c) { return c.value("action", "") == "SCMP_ACT_NOTIFY"; });
}

}  // namespace

const std::vector<BundleFile>& bundle_files() {
  static const std::vector<BundleFile> kFiles = {
      {"paddock", 0755, true, ""},
      {kEmptyDir, 0555, true, ""},
      {kEmptyFile, 0444, false, ""},
      {kDotFile, 0444, false, "."},
      {kMaskedFile, 0000, false, ""},
  };
  return kFiles;
}

Result<OciFacts> facts_from_json(const json& probe) {
  if (!probe.is_object()) return bad_input("OCI probe: expected a JSON object");
  if (probe.empty()) return OciFacts{};
  return schema::from_json_value<OciFacts>(probe, "OCI probe field ");
}

json to_json(const OciFacts& facts) { return schema::to_json_value(facts); }

OciFacts facts_for(const linux_backend::KernelProbe& kernel) {
  OciFacts f;
  f.runtime_cgroups = !kernel.unprivileged;
  f.rlimit_data = kernel.rlimit_data;
  f.nproc_per_userns = linux_backend::nproc_scope(kernel) == linux_backend::NprocScope::kSandbox;
  return f;
}

json compile_config(const FrozenIr& ir, const OciFacts& facts) {
  // A filtered network: the clients' proxy settings point at 127.0.0.1:3128, and the container's
  // every connect(2) to an address off its own loopback is answered by the helper with a
  // connection to the session's broker (helpers/linux/connect_redirect.h).
  const bool broker = ir.egress.mode != NetMode::kOff;
  std::map<std::string, std::string> vars = ir.env.set;
  if (broker)
    for (auto& [k, v] : linux_backend::proxy_env(ir.env.passed_names)) vars[k] = std::move(v);
  json env = json::array();
  for (const auto& [k, v] : vars) env.push_back(k + "=" + v);
  const json none = json::array();
  json process = {
      {"terminal", false},
      {"user", {{"uid", 0}, {"gid", 0}}},
      {"args", json::array()},
      {"env", env},
      {"cwd", "/"},
      {"capabilities", {{"bounding", none}, {"effective", none}, {"inheritable", none}, {"permitted", none},
                        {"ambient", none}}},
      {"rlimits", rlimits(ir.resources, facts)},
      {"noNewPrivileges", true},
  };
  json resources = json::object();
  if (facts.runtime_cgroups && ir.resources.memory_bytes) resources["memory"] = {{"limit", *ir.resources.memory_bytes}};
  if (facts.runtime_cgroups && ir.resources.processes) resources["pids"] = {{"limit", *ir.resources.processes}};
  json namespaces = json::array();
  for (const char* ns : {"pid", "network", "ipc", "uts", "mount", "user", "cgroup"})
    namespaces.push_back({{"type", ns}});
  return {
      {"ociVersion", "1.0.2"},
      {"process", process},
      {"root", {{"path", "rootfs"}, {"readonly", true}}},
      {"hostname", "paddock"},
      {"mounts", mounts(ir)},
      {"linux",
       {{"namespaces", namespaces},
        {"resources", resources},
        {"seccomp", broker ? brokered(seccomp_profile()) : seccomp_profile()},
        // The runtime's usual hiding of kernel interfaces under /proc.
        {"maskedPaths", {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                         "/proc/sched_debug", "/proc/scsi", "/proc/timer_list", "/proc/timer_stats",
                         "/sys/firmware"}},
        {"readonlyPaths", {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}}}},
  };
}

Result<json> complete_config(const json& config, const LaunchFacts& launch) {
  if (launch.command.empty()) return bad_input("no command to run: give the agent's command after --");
  json c = config;
  c["process"]["args"] = launch.command;
  for (const auto& [k, v] : launch.pass) c["process"]["env"].push_back(k + "=" + v);
  if (!launch.cwd.empty()) c["process"]["cwd"] = launch.cwd;
  // The container's root is the launching user: the runtime needs no privilege for that mapping,
  // and host files of every other owner (root's included) show as nobody's inside.
  c["linux"]["uidMappings"] = {{{"containerID", 0}, {"hostID", launch.uid}, {"size", 1}}};
  c["linux"]["gidMappings"] = {{{"containerID", 0}, {"hostID", launch.gid}, {"size", 1}}};
  if (notifies(c)) {
    if (launch.seccomp_listener.empty())
      return refused("a filtered network needs Paddock's helper to answer the container's connections: run it "
                     "with 'paddock run --backend oci', or use --net off for a bundle you run yourself");
    c["linux"]["seccomp"]["listenerPath"] = launch.seccomp_listener;
  }
  return c;
}

Result<LaunchFacts> launch_of(const json& completed, const json& plan_config) {
  const std::string where = "config.json ";
  try {
    LaunchFacts l;
    const json& p = completed.at("process");
    l.command = p.at("args").get<std::vector<std::string>>();
    l.cwd = p.at("cwd").get<std::string>();
    const json& env = p.at("env");
    const std::size_t planned = plan_config.at("process").at("env").size();
    if (env.size() < planned) return bad_input(where + "holds fewer environment variables than the plan sets");
    for (std::size_t i = planned; i < env.size(); ++i) {
      const std::string kv = env[i].get<std::string>();
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) return bad_input(where + "process.env[" + std::to_string(i) + "] is not NAME=VALUE");
      l.pass[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    l.uid = completed.at("linux").at("uidMappings").at(0).at("hostID").get<unsigned>();
    l.gid = completed.at("linux").at("gidMappings").at(0).at("hostID").get<unsigned>();
    l.seccomp_listener = completed.at("linux").at("seccomp").value("listenerPath", "");
    return l;
  } catch (const json::exception& e) {
    return bad_input(where + "does not hold a launch's facts: " + e.what());
  }
}

Result<std::string> config_text(const json& config) {
  try {
    return config.dump(2) + "\n";
  } catch (const json::type_error&) {
    return bad_input("an environment variable passed to the container is not UTF-8 text; unset it or leave it unpassed");
  }
}

Result<BackendPlan> compile_oci(const FrozenIr& ir, const json& probe) {
  auto facts = facts_from_json(probe);
  if (!facts.ok()) return facts.error();
  BackendPlan plan;
  plan.backend = "oci";
  plan.ir_hash = ir_hash(ir);
  plan.probe = probe;
  plan.steps = json::array({{{"step", "oci_config"}, {"value", compile_config(ir, *facts)}}});
  plan.capability_vector = capability_vector(oci_capability_matrix(*facts), requested_fields(ir));
  plan.losses = losses_of(plan.capability_vector);
  plan.taint = ir.taint;
  plan.refusals = ir_refusals(ir);
  for (auto& r : refusals_of("oci", plan.capability_vector)) plan.refusals.push_back(std::move(r));
  return plan;
}

}  // namespace paddock::oci_backend
