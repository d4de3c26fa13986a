// `paddock plan [INPUTS] [--backend linux|macos|windows] [--json]` (docs/cli.md): compiles the
// effective policy for a backend and prints the steps, the capability vector, the losses and the
// check() verdict. A refused plan is still printed, then the command exits 125 with the one-line
// reason on stderr, exactly as `paddock run` would refuse it.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/inputs_options.h"
#include "backends/backend.h"
#include "backends/kubernetes/kubernetes_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"
#include "platform/bundles.h"
#include "engine/display_text.h"
#include "platform/probe.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

struct PlanFlags {
  std::string backend;  // "" = this OS
  bool json = false;
  std::string bundle;                // --bundle DIR (oci, kubernetes)
  std::string image;                 // --image (kubernetes)
  std::string broker_image;          // --broker-image (kubernetes, a filtered network)
  std::string claim = "paddock-project";  // --project-claim (kubernetes)
  std::int64_t uid = 1000;           // --uid (kubernetes)
  std::vector<std::string> command;  // after "--": the bundle's process
};

// The facts the plan compiler needs. Linux: the same helper that will enforce the plan probes the
// kernel (so `plan` and `run` cannot disagree). macOS and Windows plans need no probe.
Result<json> probe_for(backends::BackendId b, CliContext& ctx) {
  if (b != backends::BackendId::kLinux && b != backends::BackendId::kOci) return json::object();
  auto probe = platform::run_probe(ctx.helper_path().string());
  if (!probe.ok() || b == backends::BackendId::kLinux) return probe;
  // OCI: what a runtime started by this user can do with cgroups and rlimits on this kernel.
  auto kernel = linux_backend::probe_from_json(*probe);
  if (!kernel.ok()) return kernel.error();
  return oci_backend::to_json(oci_backend::facts_for(*kernel));
}

// A string of the plan as it may be shown: paths and names are chosen by whoever made the files
// (engine/display_text.h).
std::string str(const json& v) { return display_text(v.is_string() ? v.get<std::string>() : v.dump()); }

std::string join(const json& list, const char* sep = " ") {
  std::string out;
  for (const auto& v : list) {
    if (!out.empty()) out += sep;
    out += str(v);
  }
  return out;
}

// One readable line (or a few) per step; anything unexpected is printed as compact JSON.
void print_step(std::ostream& o, int n, const json& step) {
  const std::string name = step.value("step", "");
  const json& v = step["value"];
  o << "  " << n << ". ";
  if (name == "mount") {
    o << "mount " << str(v["op"]) << " " << str(v["target"]);
    if (!v["source"].get<std::string>().empty() && v["source"] != v["target"]) o << " <- " << str(v["source"]);
    o << "\n";
  } else if (name == "namespaces") {
    std::string on;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it.value().get<bool>()) on += " " + it.key();
    o << "namespaces (new):" << on << "\n";
  } else if (name == "landlock") {
    // The namespace tier's step has net rules; the landlock tier's has carves instead.
    const json none = json::array();
    auto list = [&](const char* key) -> const json& { return v.contains(key) ? v[key] : none; };
    o << "landlock ABI " << v["abi"] << ": handles " << join(v["handled_fs"]);
    if (!list("handled_net").empty()) o << "; net " << join(list("handled_net"));
    if (!list("scoped").empty()) o << "; scoped " << join(list("scoped"));
    o << "\n";
    for (const auto& r : list("path_rules"))
      o << "       allow " << str(r["path"]) << ": " << join(r["access"]) << "\n";
    for (const auto& r : list("net_rules"))
      o << "       allow port " << r["port"] << ": " << join(r["access"]) << "\n";
    for (const auto& c : list("carves")) {
      o << "       allow " << str(c["grant"]) << ": " << join(c["access"]);
      if (!c["denied"].empty()) o << "; except (no right) " << join(c["denied"]);
      if (!c["read_only"].empty()) o << "; except (read only) " << join(c["read_only"]);
      o << "\n";
    }
  } else if (name == "seccomp") {
    o << "seccomp (default allow): " << v["rules"].size() << " deny rules; socket families "
      << join(v["socket_families_allowed"]) << "\n";
  } else if (name == "rlimits") {
    o << "rlimits:";
    for (const auto& r : v) o << " " << r["resource"].get<std::string>() << "=" << r["value"];
    o << "\n";
  } else if (name == "limits") {
    o << "limits:";
    if (v.empty()) o << " (none)";
    for (const auto& l : v)
      o << " " << l["limit"].get<std::string>() << "=" << l["value"] << " via "
        << l["mechanism"].get<std::string>();
    o << "\n";
  } else if (name == "env") {
    o << "env: set";
    for (auto it = v["set"].begin(); it != v["set"].end(); ++it) o << " " << display_text(it.key());
    o << "; pass " << (v["pass"].empty() ? "(none)" : join(v["pass"])) << "\n";
  } else if (name == "seatbelt") {
    o << "seatbelt profile (" << v["profile"].get<std::string>().size() << " bytes), parameters:\n";
    for (auto it = v["params"].begin(); it != v["params"].end(); ++it)
      o << "       " << display_text(it.key()) << " = " << str(it.value()) << "\n";
  } else if (name == "appcontainer") {
    o << "appcontainer " << v["container_name"].get<std::string>() << ", capabilities: "
      << (v["capabilities"].empty() ? "none (no network)" : join(v["capabilities"])) << "\n";
    for (const auto& g : v["grants"])
      o << "       grant " << str(g["access"]) << " " << str(g["path"]) << "\n";
    for (const auto& d : v["denies"])
      o << "       deny " << str(d["access"]) << " " << str(d["path"]) << "\n";
    o << "       job " << v["job"].dump() << "\n";
  } else if (name == "oci_config") {
    std::string ns;
    for (const auto& each : v["linux"]["namespaces"]) ns += " " + each["type"].get<std::string>();
    o << "OCI config.json: namespaces" << ns << "; " << v["linux"]["seccomp"]["syscalls"].size()
      << " seccomp deny rules; no capabilities; noNewPrivileges\n";
    for (const auto& m : v["mounts"]) {
      o << "       mount " << str(m["type"]) << " " << str(m["destination"]);
      if (m["type"] == "bind" && m["source"] != m["destination"]) o << " <- " << str(m["source"]);
      o << " (" << join(m.value("options", json::array()), ",") << ")\n";
    }
  } else if (name == "kubernetes") {
    o << "Kubernetes manifests:\n";
    for (const auto& item : v["manifests"]["items"])
      o << "       " << str(item["kind"]) << " " << str(item["metadata"]["name"]) << "\n";
    const json& pod = v["manifests"]["items"].back();
    for (const auto& m : pod["spec"]["containers"][0]["volumeMounts"]) {
      o << "       mount " << str(m["name"]) << " " << str(m["mountPath"]);
      if (m.contains("subPath")) o << " (subPath " << str(m["subPath"]) << ")";
      o << (m["readOnly"].get<bool>() ? " ro" : " rw") << "\n";
    }
    o << "       seccomp profile (Localhost): " << str(v["seccomp_profile"]["path"]) << "\n";
  } else {
    o << display_text(name) << " " << str(v) << "\n";
  }
}

void print_plan(std::ostream& o, const BackendPlan& plan, const Status& verdict) {
  o << "backend:   " << plan.backend;
  if (plan.probe.contains("landlock_abi")) o << " (Landlock ABI " << plan.probe["landlock_abi"] << ")";
  o << "\nir_hash:   " << plan.ir_hash << "\nplan_hash: " << plan_hash(plan) << "\n\nsteps:\n";
  int n = 0;
  for (const auto& s : plan.steps) print_step(o, ++n, s);
  o << "\ncapabilities:\n";
  for (const auto& c : plan.capability_vector) {
    o << "  " << to_string(c.support);
    for (std::size_t i = std::string(to_string(c.support)).size(); i < 12; ++i) o << ' ';
    o << c.field;
    if (c.needs != Needs::kNone) o << " [needs " << to_string(c.needs) << "]";
    if (!c.mechanism.empty()) o << " (" << c.mechanism << ")";
    o << "\n";
  }
  o << "\nlosses:\n";
  if (plan.losses.empty()) o << "  none\n";
  for (const auto& l : plan.losses) o << "  - " << display_text(l) << "\n";
  o << "\ntaint: " << (plan.taint.empty() ? "none" : join(json(plan.taint), ", ")) << "\n";
  o << "check: " << (verdict.ok() ? "ok" : "refused: " + display_text(verdict.error().message)) << "\n";
}

// The checked plan, completed with what the launch knows: a bundle a runtime runs (`crun run
// --bundle DIR NAME`), or manifests a user applies. The working directory is the launch's when the
// view holds it.
Status write_bundle(backends::BackendId backend, const BackendPlan& plan, const FrozenIr& ir, const PlanFlags& f,
                    const Inputs& in) {
  std::map<std::string, std::string> pass;
  for (const std::string& name : ir.env.passed_names)
    if (auto it = in.environment.find(name); it != in.environment.end()) pass[name] = it->second;
  const json& step = plan.steps.at(0).at("value");
  if (backend == backends::BackendId::kKubernetes) {
    kubernetes_backend::LaunchFacts launch;
    launch.image = f.image;
    launch.broker_image = f.broker_image;
    launch.command = f.command;
    launch.pass = pass;
    launch.project_claim = f.claim;
    launch.uid = launch.gid = f.uid;
    auto manifests = kubernetes_backend::complete_manifests(step, launch);
    if (!manifests.ok()) return manifests.error();
    return platform::write_kubernetes_bundle(f.bundle, *manifests);
  }
  oci_backend::LaunchFacts launch;
  launch.command = f.command;
  launch.pass = pass;
  const std::string cwd = std::filesystem::current_path().string();
  launch.cwd = ir.fs.write_roots.empty() ? "/" : ir.fs.write_roots.front();
  for (const auto* roots : {&ir.fs.write_roots, &ir.fs.read_roots})
    for (const std::string& r : *roots)
      if (path_inside(cwd, r)) launch.cwd = cwd;
  launch.uid = platform::current_uid();
  launch.gid = platform::current_gid();
  auto config = oci_backend::complete_config(step, launch);
  if (!config.ok()) return config.error();
  return platform::write_oci_bundle(f.bundle, *config);
}

int plan_command(const session::LaunchRequest& o, const PlanFlags& f, CliContext& ctx) {
  backends::BackendId backend = backends::host_backend();
  if (!f.backend.empty()) {
    auto b = backends::backend_from_string(f.backend);
    if (!b.ok()) { print_error(b.error().message); return b.error().exit_code(); }
    backend = *b;
  }
  auto in = to_engine_inputs(o, ctx);
  if (!in.ok()) { print_error(in.error().message); return in.error().exit_code(); }
  // Resolve the policy for the OS it will run on (an OCI container runs Linux).
  const bool container = backend == backends::BackendId::kOci || backend == backends::BackendId::kKubernetes;
  in->os = container ? "linux" : backends::to_string(backend);
  if (!f.bundle.empty() && !container) {
    print_error("--bundle writes an OCI runtime bundle or Kubernetes manifests: use it with --backend oci or kubernetes");
    return 2;
  }
  auto ev = evaluate(*in);
  if (!ev.ok()) { print_error(ev.error().message); return ev.error().exit_code(); }
  auto probe = probe_for(backend, ctx);
  if (!probe.ok()) { print_error(probe.error().message); return probe.error().exit_code(); }
  auto plan = backends::compile(ev->ir, backend, *probe);
  if (!plan.ok()) { print_error(plan.error().message); return plan.error().exit_code(); }
  const Status verdict = backends::check(*plan);
  // Credentials stored in the project's git config are readable by the agent whatever the plan
  // says: one line each, with the fix, on stderr (stdout stays the plan, or valid JSON).
  for (const auto& finding : ev->lint)
    if (finding.rule == "R6") print_error("warning: " + finding.message);
  if (f.json) {
    json out = {{"plan", to_json(*plan)}, {"plan_hash", plan_hash(*plan)},
                {"check", verdict.ok() ? json{{"ok", true}, {"refusal", nullptr}}
                                       : json{{"ok", false}, {"refusal", verdict.error().message}}}};
    std::cout << out.dump(2) << "\n";
  } else {
    print_plan(std::cout, *plan, verdict);
  }
  if (!verdict.ok()) {
    print_error(verdict.error().message);
    return verdict.error().exit_code();
  }
  if (!f.bundle.empty()) {
    Status s = write_bundle(backend, *plan, ev->ir, f, *in);
    if (!s.ok()) { print_error(s.error().message); return s.error().exit_code(); }
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("plan", "Compile the effective policy for a backend: steps, capabilities, losses");
  auto o = add_inputs_options(cmd);
  auto f = std::make_shared<PlanFlags>();
  cmd->add_option("--backend", f->backend, "linux, macos, windows, oci or kubernetes (default: this OS)")
      ->check(CLI::IsMember({"linux", "macos", "windows", "oci", "kubernetes"}));
  cmd->add_option("--bundle", f->bundle,
                  "With --backend oci: write an OCI runtime bundle to DIR (new or empty) for the command after --; "
                  "with --backend kubernetes: the manifests and their seccomp profile")
      ->type_name("DIR");
  cmd->add_option("--image", f->image, "With --backend kubernetes --bundle: the agent's container image")
      ->type_name("IMAGE");
  cmd->add_option("--broker-image", f->broker_image,
                  "With --backend kubernetes --bundle and a filtered network: the image holding paddock-broker")
      ->type_name("IMAGE");
  cmd->add_option("--project-claim", f->claim,
                  "With --backend kubernetes --bundle: the PersistentVolumeClaim holding the project (default "
                  "paddock-project)")
      ->type_name("NAME");
  cmd->add_option("--uid", f->uid, "With --backend kubernetes --bundle: the uid and gid the agent runs as (default 1000)")
      ->check(CLI::Range(1, 2147483647));
  for (auto* opt : cmd->get_options())
    if (!opt->get_positional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
  cmd->add_option("command", f->command, "-- CMD [ARGS...] (with --bundle)")->type_name("CMD");
  cmd->add_flag("--json", f->json, "{plan, plan_hash, check} as JSON");
  cmd->callback([&ctx, o, f] { ctx.exit_code = plan_command(*o, *f, ctx); });
}

}  // namespace paddock::cli
