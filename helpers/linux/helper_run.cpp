#include "helpers/linux/helper_run.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"
#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/session/credential_records.h"
#include "engine/session/layout.h"
#include "engine/session/run_args.h"
#include "helpers/linux/landlock_apply.h"
#include "helpers/linux/landlock_tier_exec.h"
#include "helpers/linux/oci_session.h"
#include "helpers/linux/placeholders.h"
#include "helpers/linux/probe.h"
#include "helpers/linux/session_audit.h"
#include "helpers/linux/session_end.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/supervisor.h"
#include "helpers/linux/terminal_modes.h"
#include "platform/atomic_file.h"
#include "platform/bundles.h"
#include "platform/probe.h"
#include "platform/read_file.h"

extern char** environ;

namespace paddock::helper {
namespace {

using nlohmann::json;

// A probe handed in by the caller is only a shortcut: the facts this helper can check without
// forking must match the running kernel, and every other fact is re-proven by applying it (a
// missing namespace, ABI or cgroup makes setup fail closed with 125).
Result<linux_backend::KernelProbe> load_probe(const std::string& file) {
  if (file.empty()) return probe_kernel();
  auto text = platform::read_file(file);
  if (!text) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return bad_input("probe file is not JSON: " + file);
  auto p = linux_backend::probe_from_json(j);
  if (!p) return p.error();
  // The kernel release decides exact or partial for some rows (RLIMIT_NPROC per user namespace
  // since 5.14): facts about another kernel are not these facts.
  struct utsname u {};
  const bool same_kernel = ::uname(&u) == 0 && p->kernel_release == u.release;
  if (p->landlock_abi != landlock_runtime_abi() || p->unprivileged != (geteuid() != 0) ||
      p->host_root != is_host_root() || !same_kernel)
    return Error{ErrorCode::kVerifyMismatch, "probe file " + file + " does not describe this kernel and user"};
  return p;
}

// The helper's own descriptors come from the caller's soft RLIMIT_NOFILE (often 1024), while the
// broker it hosts holds several per connection the agent opens: at the caller's limit the agent
// could use up the helper's descriptors, after which the control socket accepts nobody (`paddock
// stop` then finds the session "not running") and the session's files cannot be opened. The
// helper takes the whole hard limit for itself; the broker's connection cap is derived from it
// (egress_relay.cpp) so that a reserve always stays. Returns the caller's soft limit, which the
// agent gets back.
std::optional<std::uint64_t> raise_own_nofile() {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= l.rlim_max) return std::nullopt;
  const rlim_t caller = l.rlim_cur;
  l.rlim_cur = l.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &l) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(caller);
}

// The built-in lists, found relative to this executable as the CLI finds them relative to itself
// (<prefix>/libexec/paddock/paddock-helper, <prefix>/share/paddock).
std::string resources_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string prefix(buf, static_cast<std::size_t>(n));
  prefix = prefix.substr(0, prefix.rfind('/'));
  for (std::string_view rel = PADDOCK_LIBEXEC_REL; !rel.empty();) {
    prefix = prefix.substr(0, prefix.rfind('/'));
    const auto slash = rel.find('/');
    rel = slash == std::string_view::npos ? std::string_view() : rel.substr(slash + 1);
  }
  return prefix + "/" + PADDOCK_DATA_REL;
}

std::map<std::string, std::string> environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

// What every session path checks on the plan it recompiled from the IR, before anything starts:
// the hash the caller computed, the capability refusals, the taint. The plan's hash, or why not.
Result<std::string> checked_plan_hash(const BackendPlan& plan, const std::string& plan_bytes,
                                      const session::HelperRunArgs& args, std::string_view which) {
  std::string hash = sha256_hex(plan_bytes);
  if (hash != args.plan_hash)
    return Error{ErrorCode::kVerifyMismatch, "plan hash mismatch: the " + std::string(which) + " recompiled from the IR is " +
                                                 hash + ", the caller expected " + args.plan_hash +
                                                 " (IR, probe or Paddock version differ; nothing was run)"};
  if (auto s = backends::check(plan); !s) return s.error();
  if (!plan.taint.empty() && !args.allow_tainted)
    return refused("the plan is tainted (" + plan.taint.front() +
                   "); rerun with --allow-tainted to accept a weakened boundary");
  return hash;
}

Attestation attestation_of(const BackendPlan& plan, const std::string& hash, const FrozenIr& ir, std::string backend) {
  Attestation att;
  att.ir_hash = plan.ir_hash;  // the compiler hashed this IR already; hashing is not free
  att.plan_hash = hash;
  att.backend = std::move(backend);
  att.capability_vector = plan.capability_vector;
  att.taint = plan.taint;
  for (const auto& l : ir.meta.source_layers) att.source_layers.push_back(l.tier + ":" + l.file);
  return att;
}

// What every session keeps once its plan is checked: the tighter of the caller's and the plan's
// wall-time limits, the records to write (the IR as handed over, the plan's canonical bytes) and
// what session_started announces. The IR is copied: a refusal after this still writes it.
void settle_options(SessionOptions& opt, const session::HelperRunArgs& args, const Attestation& att,
                    std::optional<std::int64_t> plan_wall_secs, const std::optional<std::string>& ir_record,
                    std::string plan_bytes) {
  if (plan_wall_secs && (!opt.timeout_secs || *plan_wall_secs < *opt.timeout_secs))
    opt.timeout_secs = static_cast<long>(*plan_wall_secs);
  if (args.record_session) {
    opt.record_ir = ir_record.value_or(std::string());
    opt.record_plan = std::move(plan_bytes);
  }
  opt.started.ir_hash = att.ir_hash;
  opt.started.plan_hash = att.plan_hash;
  opt.started.backend = att.backend;
  opt.started.tainted = !att.taint.empty();
}

// The landlock tier's session (landlock_tier_exec.h): the same checks as the namespace tier's
// (plan hash, capability refusals, taint) on its own plan. An error is a refusal before anything
// started; otherwise the session's exit code.
Result<int> run_tier(const session::HelperRunArgs& args, const FrozenIr& ir, const linux_backend::KernelProbe& probe,
                     SessionOptions& opt, const std::map<std::string, std::string>& env,
                     std::optional<std::uint64_t> caller_nofile, const std::optional<std::string>& ir_record) {
  auto compiled = linux_backend::compile_landlock_tier_parts(ir, probe);
  if (!compiled) return compiled.error();
  const BackendPlan& bplan = compiled->plan;
  std::string plan_bytes = plan_canonical_bytes(bplan, compiled->steps);
  auto hash = checked_plan_hash(bplan, plan_bytes, args, "plan");
  if (!hash) return hash.error();
  Attestation att = attestation_of(bplan, *hash, ir, "linux");
  att.abi = compiled->tier_plan.landlock.abi;
  TierSpec spec;
  spec.plan = std::move(compiled->tier_plan);
  spec.argv = args.command;
  spec.launch_env = env;
  spec.cwd = args.cwd.empty() ? ir.meta.project : args.cwd;
  spec.attestation_json = to_json(att).dump();
  spec.agent_nofile_soft = caller_nofile;
  settle_options(opt, args, att, spec.plan.wall_time_secs, ir_record, std::move(plan_bytes));
  opt.egress = ir.egress;
  opt.home = ir.meta.home;
  opt.watched_configs = ir.fs.watched_configs;  // the IR's hash is in the plan's: covered by plan_hash
  return run_landlock_tier(spec, opt);
}

// An OCI session (oci_session.h): the same checks on the OCI plan of the IR, for a runtime
// started by this user on this kernel; then the bundle, completed with the launch's facts, in the
// session's directory, and the attestation with the runtime and the hash of its config.json.
Result<int> run_oci(const session::HelperRunArgs& args, const FrozenIr& ir, const linux_backend::KernelProbe& probe,
                    SessionOptions& opt, const std::map<std::string, std::string>& env,
                    const std::optional<std::string>& ir_record) {
  if (opt.session_dir.empty()) return refused("an OCI session needs a session directory (--session-dir) for its bundle");
  if (args.oci_runtime.empty() || args.oci_runtime[0] != '/')
    return bad_input("--oci-runtime: expected the runtime's absolute path, not '" + args.oci_runtime + "'");
  auto bplan = oci_backend::compile_oci(ir, oci_backend::to_json(oci_backend::facts_for(probe)));
  if (!bplan) return bplan.error();
  std::string plan_bytes = plan_canonical_bytes(*bplan, canonical_bytes(bplan->steps));
  auto hash = checked_plan_hash(*bplan, plan_bytes, args, "OCI plan");
  if (!hash) return hash.error();
  auto label = runtime_label(args.oci_runtime);
  if (!label) return label.error();
  oci_backend::LaunchFacts launch;
  launch.command = args.command;
  for (const std::string& name : ir.env.passed_names)
    if (auto it = env.find(name); it != env.end()) launch.pass[name] = it->second;
  launch.cwd = args.cwd.empty() ? ir.meta.project : args.cwd;
  launch.uid = platform::current_uid();
  launch.gid = platform::current_gid();
  // A filtered network: the runtime hands the container's seccomp listener to the helper here
  // (beside the control socket, whose directory keeps the path short enough for a socket).
  if (ir.egress.mode != NetMode::kOff) {
    launch.seccomp_listener =
        opt.control_socket.empty() ? opt.session_dir + "/seccomp.sock" : opt.control_socket + ".seccomp";
    if (launch.seccomp_listener.size() >= sizeof(sockaddr_un::sun_path))
      return refused("the path for the container's seccomp listener is too long for a socket: " + launch.seccomp_listener);
  }
  auto config = oci_backend::complete_config(bplan->steps.at(0).at("value"), launch);
  if (!config) return config.error();
  auto config_text = oci_backend::config_text(*config);
  if (!config_text) return config_text.error();
  OciSpec spec;
  spec.runtime = args.oci_runtime;
  spec.bundle = opt.session_dir + "/bundle";
  spec.container_id = "paddock-" + opt.session_id;
  spec.state_root = opt.session_dir + "/oci-state";
  spec.argv = args.command;
  spec.seccomp_listener = launch.seccomp_listener;
  if (ir.resources.cpu_seconds) spec.limits.cpu_ms = *ir.resources.cpu_seconds * 1000;
  spec.limits.memory_bytes = ir.resources.memory_bytes;
  spec.limits.processes = ir.resources.processes;
  if (auto s = platform::write_oci_bundle(spec.bundle, *config); !s) return s.error();
  std::vector<linux_backend::MountStep> absent;
  for (auto& m : linux_backend::mount_steps(ir.fs, ir.egress.unix_socket_files, ""))
    if (makes_placeholder(m.op) && !m.within.empty() && path_inside(m.target, m.within) && m.target != m.within) {
      const bool dir = m.op == linux_backend::MountOp::kProtectAbsentDir ||
                       (m.op == linux_backend::MountOp::kMaskAbsent &&
                        linux_backend::deny_kind(ir.fs, m.target) == PathKind::kAbsentDir);
      spec.placeholders.push_back(
          {m.within, m.target, dir, m.op == linux_backend::MountOp::kProtectAbsentPointer ? ".\n" : ""});
      absent.push_back(std::move(m));
    }
  spec.placeholder_candidates = placeholder_candidates(absent);
  Attestation att = attestation_of(*bplan, *hash, ir, "oci");
  att.runtime = *label;
  att.runtime_config_hash = sha256_hex(*config_text);
  spec.attestation_json = to_json(att).dump();
  settle_options(opt, args, att, ir.resources.wall_time_secs, ir_record, std::move(plan_bytes));
  opt.egress = ir.egress;
  opt.home = ir.meta.home;
  opt.watched_configs = ir.fs.watched_configs;  // the IR's hash is in the plan's: covered by plan_hash
  return run_oci_session(spec, opt);
}

}  // namespace

int helper_run_main(int argc, char** argv) {
  auto args = session::decode_run_args(std::vector<std::string>(argv + 1, argv + argc));
  // If whoever started us dies (even by SIGKILL), we die, and with us the sandbox (its init has
  // the same setting towards us). Set before anything else can fail.
  if (!args || !args->replaces_caller) ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (!args) {
    const std::string line = "paddock: " + args.error().message + "\n";
    std::fputs(line.c_str(), stderr);
    return args.error().exit_code();
  }
  const std::optional<std::uint64_t> caller_nofile = raise_own_nofile();
  // Before anything of the sandbox exists; put back once nothing of it runs any more.
  const TerminalModes terminal = TerminalModes::save();
  // A probe from the caller's cache that led to a refusal or mismatch is not used again: the
  // cache is where this environment's layout puts it, the same place the caller read it from.
  const bool probe_cached = args->probe_cached;
  const auto env = environment();
  auto finish = [&](int code) {
    terminal.restore();
    if ((code == exit_code(ErrorCode::kVerifyMismatch) || code == exit_code(ErrorCode::kRefused)) && probe_cached)
      if (auto layout = session::from_env(env); layout.ok()) platform::drop_probe_cache(layout->probe_cache());
    return code;
  };
  SessionOptions opt;
  opt.session_id = args->session_id;
  opt.session_dir = args->session_dir;
  opt.control_socket = args->control_socket;
  if (auto layout = session::from_env(env); layout.ok()) {
    opt.placeholders_dir = layout->placeholders_dir();
    opt.layout = *layout;
  }
  if (args->timeout_secs) opt.timeout_secs = static_cast<long>(*args->timeout_secs);
  std::optional<std::string> ir_record;  // ir.json to write on failure too: what was asked for
  auto fail = [&](const Error& e) {
    if (ir_record && !opt.session_dir.empty()) (void)platform::write_file_atomic(opt.session_dir + "/ir.json", *ir_record);
    return finish(fail_session(opt, e.exit_code(), e.message));
  };

  auto text = platform::read_file(args->ir_file);
  if (!text) return fail(text.error());
  if (args->record_session) ir_record = *text;
  json ir_json = json::parse(*text, nullptr, false);
  if (ir_json.is_discarded()) return fail(bad_input("IR file is not JSON: " + args->ir_file));
  auto ir = ir_from_json(ir_json);
  if (!ir) return fail(ir.error());
  auto probe = load_probe(args->probe_file);
  if (!probe) return fail(probe.error());
  if (!args->oci_runtime.empty()) {
    auto oci = run_oci(*args, *ir, *probe, opt, env, ir_record);
    return finish(oci.ok() ? *oci : fail(oci.error()));
  }
  if (ir->meta.linux_tier == linux_backend::kTierLandlock) {
    auto tier = run_tier(*args, *ir, *probe, opt, env, caller_nofile, ir_record);
    return finish(tier.ok() ? *tier : fail(tier.error()));
  }
  // One compile: the typed plan to apply, and the plan's hash over the canonical bytes of its
  // steps as written (no json tree of the steps is built here).
  auto compiled = linux_backend::compile_linux_parts(*ir, *probe);
  if (!compiled) return fail(compiled.error());
  const BackendPlan& bplan = compiled->plan;
  std::string plan_bytes = plan_canonical_bytes(bplan, compiled->steps);
  auto hash = checked_plan_hash(bplan, plan_bytes, *args, "plan");
  if (!hash) return fail(hash.error());
  linux_backend::LinuxPlan& lplan = compiled->linux_plan;
  Attestation att = attestation_of(bplan, *hash, *ir, "linux");
  att.abi = lplan.landlock.abi;

  SandboxSpec spec;
  spec.plan = std::move(lplan);
  spec.argv = args->command;
  spec.launch_env = env;
  spec.cwd = args->cwd.empty() ? ir->meta.project : args->cwd;
  spec.attestation_json = to_json(att).dump();
  spec.agent_nofile_soft = caller_nofile;
  settle_options(opt, *args, att, spec.plan.wall_time_secs, ir_record, std::move(plan_bytes));
  // Init keeps the same deadline as a backstop (sandbox_child.cpp); only ever the tighter one.
  if (opt.timeout_secs) spec.plan.wall_time_secs = *opt.timeout_secs;
  opt.egress = ir->egress;
  opt.home = ir->meta.home;
  opt.agent_state.agent_state_dir = ir->fs.agent_state_dir;
  opt.agent_state.agent_state = ir->fs.agent_state;
  if (!spec.plan.credentials.endpoints.empty()) {
    // The placeholders now (not secret: the agent's variables carry them); the values only once
    // the sandbox's init runs (credential_relay.h).
    if (args->placeholders_file.empty() || args->credentials_file.empty())
      return fail(refused("this session brokers credentials (" + spec.plan.credentials.endpoints.front().name +
                          "), but their values were not handed over; start it with 'paddock run'"));
    auto placeholders = platform::read_file(args->placeholders_file, {.max_bytes = 1 << 20});
    if (!placeholders) return fail(placeholders.error());
    auto decoded = session::decode_credential_placeholders(*placeholders);
    if (!decoded) return fail(decoded.error());
    for (const auto& c : spec.plan.credentials.endpoints)
      if (!decoded->count(c.name)) return fail(refused("credential " + c.name + ": no placeholder was handed over"));
    spec.credential_placeholders = *decoded;
    opt.credentials.credentials = spec.plan.credentials.endpoints;
    opt.credentials.placeholders = std::move(*decoded);
    opt.credentials.secrets_file = args->credentials_file;
    opt.credentials.extra_ca_file = spec.plan.credentials.extra_ca;
    opt.credentials.tainted = !ir->secrets.debug_upstreams.empty() || !ir->secrets.debug_upstream_ca.empty();
    if (auto layout = session::from_env(env); layout.ok()) opt.credential_use_file = layout->credential_use_file();
  }
  opt.watched_configs = ir->fs.watched_configs;  // the IR's hash is in the plan's: covered by plan_hash
  // Direct mode's audit: the start time and the files whose content before the session it keeps,
  // taken before the sandbox exists.
  if (!args->session_dir.empty()) {
    opt.audit = std::make_shared<SessionAudit>(SessionAudit::prepare(*ir));
    opt.resources_dir = resources_dir();
  }
  return finish(run_session(spec, opt));
}

}  // namespace paddock::helper
