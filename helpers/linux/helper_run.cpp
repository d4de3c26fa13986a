#include "helpers/linux/helper_run.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
#include "engine/ir.h"
#include "engine/plan.h"
#include "helpers/common/atomic_file.h"
#include "helpers/linux/landlock_apply.h"
#include "helpers/linux/probe.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/supervisor.h"
#include "helpers/linux/terminal_modes.h"

extern char** environ;

namespace paddock::helper {
namespace {

using nlohmann::json;

struct RunArgs {
  std::string ir_file, plan_hash, session_dir, session_id, control_socket, probe_file, cwd;
  // Where the caller's cached probe lives: a refusal (125) or mismatch (103) removes it, so the
  // next run probes afresh instead of trusting the same facts again.
  std::string probe_cache;
  std::optional<long> timeout_secs;
  bool allow_tainted = false;
  // `paddock run` exec'd this helper in its own process: there is no separate launcher whose
  // death must end the session (a shell that exits leaves it running, as it leaves any command).
  bool replaces_caller = false;
  // The helper writes the session's ir.json (the IR bytes it was given) and plan.json (the
  // canonical bytes of the plan whose hash it checked) itself, while the sandbox builds its view,
  // instead of the caller writing them before the exec (`paddock run`).
  bool record_session = false;
  std::vector<std::string> command;
};

Result<RunArgs> parse(int argc, char** argv) {
  RunArgs a;
  int i = 2;  // argv[1] == "run"
  auto value = [&](const char* name) -> Result<std::string> {
    if (i + 1 >= argc) return bad_input(std::string(name) + " needs a value");
    return std::string(argv[++i]);
  };
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    std::string* target = nullptr;
    if (arg == "--") {
      for (++i; i < argc; ++i) a.command.emplace_back(argv[i]);
      break;
    }
    if (arg == "--allow-tainted") {
      a.allow_tainted = true;
      continue;
    }
    if (arg == "--replaces-caller") {
      a.replaces_caller = true;
      continue;
    }
    if (arg == "--record-session") {
      a.record_session = true;
      continue;
    }
    if (arg == "--ir") target = &a.ir_file;
    else if (arg == "--plan-hash") target = &a.plan_hash;
    else if (arg == "--session-dir") target = &a.session_dir;
    else if (arg == "--session-id") target = &a.session_id;
    else if (arg == "--control-socket") target = &a.control_socket;
    else if (arg == "--probe") target = &a.probe_file;
    else if (arg == "--probe-cache") target = &a.probe_cache;
    else if (arg == "--cwd") target = &a.cwd;
    else if (arg == "--timeout") {
      auto v = value("--timeout");
      if (!v) return v.error();
      char* end = nullptr;
      long secs = std::strtol(v->c_str(), &end, 10);
      if (!end || *end || secs <= 0) return bad_input("--timeout: expected a positive number of seconds");
      a.timeout_secs = secs;
      continue;
    } else {
      return bad_input("unknown option " + arg + " (see paddock-helper run usage)");
    }
    auto v = value(arg.c_str());
    if (!v) return v.error();
    *target = *v;
  }
  if (a.ir_file.empty() || a.plan_hash.empty() || a.session_dir.empty() || a.session_id.empty())
    return bad_input("run needs --ir, --plan-hash, --session-dir and --session-id");
  if (a.command.empty()) return bad_input("no command given after --");
  return a;
}

// A probe handed in by the caller is only a shortcut: the facts this helper can check without
// forking must match the running kernel, and every other fact is re-proven by applying it (a
// missing namespace, ABI or cgroup makes setup fail closed with 125).
Result<linux_backend::KernelProbe> load_probe(const std::string& file) {
  if (file.empty()) return probe_kernel();
  auto text = read_file(file);
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

// Only a regular file of ours: the path comes from the command line.
void drop_probe_cache(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid()) ::unlink(path.c_str());
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

std::map<std::string, std::string> environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

}  // namespace

int helper_run_main(int argc, char** argv) {
  auto args = parse(argc, argv);
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
  const std::string probe_cache = args->probe_cache;
  auto finish = [&](int code) {
    terminal.restore();
    if ((code == 103 || code == 125) && !probe_cache.empty()) drop_probe_cache(probe_cache);
    return code;
  };
  SessionOptions opt;
  opt.session_id = args->session_id;
  opt.session_dir = args->session_dir;
  opt.control_socket = args->control_socket;
  opt.timeout_secs = args->timeout_secs;
  std::optional<std::string> ir_record;  // ir.json to write on failure too: what was asked for
  auto fail = [&](const Error& e) {
    if (ir_record && !opt.session_dir.empty()) (void)write_file_atomic(opt.session_dir + "/ir.json", *ir_record);
    return finish(fail_session(opt, e.exit_code(), e.message));
  };

  auto text = read_file(args->ir_file);
  if (!text) return fail(text.error());
  if (args->record_session) ir_record = *text;
  json ir_json = json::parse(*text, nullptr, false);
  if (ir_json.is_discarded()) return fail(bad_input("IR file is not JSON: " + args->ir_file));
  auto ir = ir_from_json(ir_json);
  if (!ir) return fail(ir.error());
  auto probe = load_probe(args->probe_file);
  if (!probe) return fail(probe.error());
  // One compile: the typed plan to apply, and the plan's hash over the canonical bytes of its
  // steps as written (no json tree of the steps is built here).
  auto compiled = linux_backend::compile_linux_parts(*ir, *probe);
  if (!compiled) return fail(compiled.error());
  const BackendPlan& bplan = compiled->plan;
  std::string plan_bytes = plan_canonical_bytes(bplan, compiled->steps);
  const std::string hash = sha256_hex(plan_bytes);
  if (hash != args->plan_hash)
    return fail({ErrorCode::kVerifyMismatch, "plan hash mismatch: the plan recompiled from the IR is " + hash +
                                                 ", the caller expected " + args->plan_hash +
                                                 " (IR, probe or Paddock version differ; nothing was run)"});
  if (auto s = backends::check(bplan); !s) return fail(s.error());
  if (!bplan.taint.empty() && !args->allow_tainted)
    return fail(refused("the plan is tainted (" + bplan.taint.front() +
                        "); rerun with --allow-tainted to accept a weakened boundary"));
  if (ir->egress.mode != NetMode::kOff && !relay_available())
    return fail(refused("egress relay not built into this helper; run with --net off"));
  linux_backend::LinuxPlan& lplan = compiled->linux_plan;

  Attestation att;
  att.ir_hash = bplan.ir_hash;  // compile_linux_parts hashed this IR already; hashing is not free
  att.plan_hash = hash;
  att.backend = "linux";
  att.abi = lplan.landlock.abi;
  att.capability_vector = bplan.capability_vector;
  att.taint = bplan.taint;
  for (const auto& l : ir->meta.source_layers) att.source_layers.push_back(l.tier + ":" + l.file);

  SandboxSpec spec;
  spec.plan = std::move(lplan);
  spec.argv = args->command;
  spec.launch_env = environment();
  spec.cwd = args->cwd.empty() ? ir->meta.project : args->cwd;
  spec.attestation_json = to_json(att).dump();
  spec.agent_nofile_soft = caller_nofile;
  if (spec.plan.wall_time_secs && (!opt.timeout_secs || *spec.plan.wall_time_secs < *opt.timeout_secs))
    opt.timeout_secs = static_cast<long>(*spec.plan.wall_time_secs);
  // Init keeps the same deadline as a backstop (sandbox_child.cpp); only ever the tighter one.
  if (opt.timeout_secs) spec.plan.wall_time_secs = *opt.timeout_secs;
  opt.egress = ir->egress;
  if (args->record_session) {
    opt.record_ir = std::move(*ir_record);
    opt.record_plan = std::move(plan_bytes);
  }
  opt.started = {{"ir_hash", att.ir_hash}, {"plan_hash", hash}, {"backend", "linux"},
                 {"tainted", !bplan.taint.empty()}};
  return finish(run_session(spec, opt));
}

}  // namespace paddock::helper
