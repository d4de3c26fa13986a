// run, sessions, stop, ask, verify (docs/cli.md). `run` refuses everything it can before any fork
// (bad input 2, unapproved or dangerous layers 126, tainted plans and plans the kernel cannot
// enforce 125), then records the session's IR and plan and hands over to paddock-helper, which
// recompiles and verifies the plan itself before it applies anything.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/inputs_options.h"
#include "app/cli/launch_command.h"
#include "app/cli/session_store.h"
#include "backends/backend.h"
#include "backends/linux/kernel_probe.h"
#include "backends/linux/linux_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/context.h"
#include "engine/display_text.h"
#include "engine/engine.h"
#include "engine/env_policy.h"
#include "engine/layer.h"
#include "engine/plan.h"
#include "engine/session/control.h"
#include "engine/session/credential_records.h"
#include "engine/session/event.h"
#include "engine/session/report.h"
#include "engine/session/run_args.h"
#include "engine/tiers.h"
#include "platform/atomic_file.h"
#include "platform/audit/audit.h"
#include "platform/credential_store.h"
#include "platform/probe.h"
#include "platform/read_file.h"
#include "platform/sessions.h"
#include "platform/review/review_session.h"

namespace paddock::cli {
namespace {

using nlohmann::json;


// Replaces this process with the helper: the session's exit code, signals and process are the
// helper's own from here, with no second process waiting (SIGINT/SIGQUIT from the terminal reach
// the agent; the helper ignores them and stops the session on SIGTERM/SIGHUP). Returns only if
// the exec failed.
int exec_helper(const std::string& helper, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(helper.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(helper.c_str(), argv.data());
  const int err = errno;
  std::cerr << "paddock: cannot start " << helper << ": " << std::strerror(err) << "\n";
  errno = err;
  return static_cast<int>(ErrorCode::kRefused);
}

// A readable, not close-on-exec memory file holding `text`: it survives the exec, so the helper
// (this same process by then) opens it by its /proc/self/fd path. The sandbox's init closes it
// with every other inherited descriptor before anything runs in the sandbox.
Result<int> memory_file(const char* name, const std::string& text) {
  const int fd = ::memfd_create(name, 0);
  if (fd < 0) return internal_error(std::string("memfd_create: ") + std::strerror(errno));
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return internal_error(std::string("writing ") + name + " to memory: " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return fd;
}

// Paddock's own directories exist before the policy is resolved: the engine masks them wherever a
// grant reaches them, and a directory absent at launch cannot be masked (an agent with a write
// grant above ~/.config could otherwise create ~/.config/paddock/policy.yaml for its next session).
Status create_own_dirs(const Inputs& in) {
  auto c = make_context(in);
  if (!c.ok()) return c.error();
  for (const std::string& d : {c->config_dir, c->state_dir, c->runtime_dir}) {
    std::error_code ec;
    if (d.empty()) continue;
    if (std::filesystem::is_directory(d, ec)) continue;
    std::filesystem::create_directories(d, ec);
    if (ec) return refused("cannot create " + d + ": " + ec.message());
    std::filesystem::permissions(d, std::filesystem::perms::owner_all, ec);
  }
  return Status::Ok();
}

// The agent's state directories exist before the policy is resolved, so that they are granted
// (a path absent at launch is never granted, and the agent would meet a read-only home: EROFS on
// its first mkdir). Every directory made here is the user's alone (0700), as XDG asks.
Status create_agent_dirs(const Inputs& in) {
  auto dirs = agent_state_dirs(in);
  if (!dirs.ok()) return dirs.error();
  for (const auto& d : *dirs) {
    std::error_code ec;
    if (std::filesystem::is_directory(d, ec)) continue;
    std::vector<std::filesystem::path> made;
    for (auto p = std::filesystem::path(d); !p.empty() && !std::filesystem::exists(std::filesystem::symlink_status(p, ec));
         p = p.parent_path())
      made.push_back(p);
    for (auto it = made.rbegin(); it != made.rend(); ++it) {
      if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
        return refused("cannot create the agent's directory " + it->string() + ": " + std::strerror(errno) +
                       " (create it yourself, or pass --agent custom)");
    }
    if (!std::filesystem::is_directory(d, ec))
      return refused("the agent's directory " + d + " is not a directory; move what is there aside");
  }
  return Status::Ok();
}

std::string user_policy_path(const Inputs& in) {
  auto c = make_context(in);
  return c.ok() ? tier_file(kTierUser, c->project, c->config_dir) : std::string("your user policy");
}

bool within_any(const std::string& p, const std::vector<std::string>& roots) {
  for (const auto& r : roots)
    if (r == "/" || p == r || (p.size() > r.size() && p.compare(0, r.size(), r) == 0 && p[r.size()] == '/')) return true;
  return false;
}

// The resolved command must be runnable in the view the IR describes: inside a grant, outside
// every mask. (Under the system's lockdown no launch-command grant is added.)
Status check_runnable(const LaunchCommand& c, const FrozenIr& ir) {
  std::vector<std::string> grants = ir.fs.read_roots;
  grants.insert(grants.end(), ir.fs.write_roots.begin(), ir.fs.write_roots.end());
  std::vector<std::string> masks;
  for (const auto& d : ir.fs.deny) masks.push_back(d.path);
  for (const std::string& p : {c.executable, c.interpreter}) {
    if (p.empty()) continue;
    if (!within_any(p, grants) || within_any(p, masks))
      return refused(p + " (the command " + c.found + (p == c.interpreter ? "'s interpreter" : "") +
                     ") is not readable in the sandbox" + (within_any(p, masks) ? ": a deny rule masks it" : "") +
                     "; grant it with --allow-read " + installation_of(p));
  }
  return Status::Ok();
}

// Which sandbox `run` starts: the helper's own (linux), or the IR's OCI plan run by an OCI
// runtime under the helper's supervision (docs/backends.md).
struct RunBackend {
  std::string backend = "linux";
  std::string runtime;  // --runtime: a name on PATH or a path; "" = runc, else crun
};

// The runtime's absolute path: the one asked for, else the first of runc and crun on PATH.
Result<std::string> find_oci_runtime(const std::string& wanted, const std::string& path_var, const std::string& cwd) {
  for (const std::string& name : wanted.empty() ? std::vector<std::string>{"runc", "crun"} : std::vector{wanted})
    if (std::string p = find_on_path(name, path_var, cwd); !p.empty()) return p;
  if (!wanted.empty()) return refused("--runtime " + wanted + ": no such executable on PATH (" + path_var + ")");
  return refused("--backend oci needs an OCI runtime: neither runc nor crun is on PATH; install one (apt install runc)");
}

// Compiles and checks the plan against the (usually cached) probe. A refusal computed from a
// cached probe is re-checked against a fresh one before it is believed: the machine may have
// gained what the old facts lacked (and a fresh probe replaces the cache).
// The plan's canonical bytes come as the helper computes them (the Linux plan's steps as
// canonical bytes, never a json tree), so plan.json is written from the same bytes the hash covers.
// The OCI plan is compiled for a runtime started by this user on the probed kernel.
struct CheckedPlan {
  std::string bytes;
  json probe;
};

Result<CheckedPlan> compile_checked(const FrozenIr& ir, const platform::ProbeCache& cache, bool oci) {
  auto probe = cache.load();
  if (!probe.ok()) return probe.error();
  for (;;) {
    auto facts = linux_backend::probe_from_json(probe->probe);
    Status checked = facts.ok() ? Status::Ok() : Status(facts.error());
    std::string bytes;
    if (facts.ok() && oci) {
      auto plan = oci_backend::compile_oci(ir, oci_backend::to_json(oci_backend::facts_for(*facts)));
      checked = plan.ok() ? backends::check(*plan) : Status(plan.error());
      if (checked.ok()) bytes = plan_canonical_bytes(*plan, canonical_bytes(plan->steps));
    } else if (facts.ok()) {
      auto parts = linux_backend::compile_linux_parts(ir, *facts);
      checked = parts.ok() ? backends::check(parts->plan) : Status(parts.error());
      if (checked.ok()) bytes = plan_canonical_bytes(parts->plan, parts->steps);
    }
    if (checked.ok()) return CheckedPlan{std::move(bytes), std::move(probe->probe)};
    if (probe->source != platform::ProbeSource::kCache) return checked.error();
    probe = cache.load(/*fresh=*/true);
    if (!probe.ok()) return probe.error();
  }
}

int run(const session::LaunchRequest& o, const RunBackend& b, CliContext& ctx) {
  if (o.command.empty()) return fail(bad_input("run: no command given; usage: paddock run [INPUTS] -- CMD [ARGS...]"));
  auto in = to_engine_inputs(o, ctx);
  if (!in.ok()) return fail(in.error());
  in->require_approvals = true;
  in->with_report = false;  // lint and provenance are for explain/plan; run needs the IR only
  if (auto s = create_own_dirs(*in); !s.ok()) return fail(s.error());
  if (auto s = create_agent_dirs(*in); !s.ok()) return fail(s.error());
  std::error_code cwd_ec;
  const std::string cwd = std::filesystem::current_path(cwd_ec).string();
  auto launch = resolve_launch_command(o.command[0], sanitize_path_var(in->environment["PATH"]), cwd);
  if (!launch.ok()) return fail(launch.error());
  in->launch_reads = launch->grants;
  auto ev = evaluate(*in);
  if (!ev.ok()) return fail(ev.error());
  if (auto s = check_runnable(*launch, ev->ir); !s.ok()) return fail(s.error());
  std::vector<std::string> command = o.command;
  // Found outside every grant (under the home directory): run it by the path the grant shows.
  std::vector<std::string> grants = ev->ir.fs.read_roots;
  grants.insert(grants.end(), ev->ir.fs.write_roots.begin(), ev->ir.fs.write_roots.end());
  if (!within_any(launch->found, grants)) command[0] = launch->executable;
  // What the engine found in the project that only the user can put right (a symlink the agent
  // made where git reads its hooks, say): the session runs, and the line says how to fix it.
  for (const auto& w : ev->ir.warnings)
    if (w.rfind("git metadata: ", 0) == 0) std::cerr << "paddock: warning: " << display_text(w) << "\n";
  if (!ev->withheld_credentials.empty()) {
    std::string what;
    for (const auto& w : ev->withheld_credentials) what += (what.empty() ? "" : ", ") + display_text(w);
    std::cerr << "paddock: withheld " << ev->ir.meta.agent << "'s own credentials (" << what
              << "); to let its session use them, set environment.agent_credentials: true in "
              << user_policy_path(*in) << " or a --policy file (docs/agents.md)\n";
  }
  // What Paddock set in the agent's own settings (its nested sandbox off), in one plain line each.
  for (const auto& a : ev->ir.fs.agent_state)
    for (const auto& setting : a.settings)
      if (!setting.set.empty()) std::cerr << "paddock: " << setting.why << "\n";
  if (!ev->ir.taint.empty() && !o.allow_tainted)
    return fail(refused("the policy is tainted by " + ev->ir.taint.front() +
                        "; rerun with --allow-tainted to accept a weakened boundary, or unset it"));
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  const platform::ProbeCache cache(ctx.helper_path().string(), layout->probe_cache());
  const bool oci = b.backend == "oci";
  std::string runtime;
  if (oci) {
    auto found = find_oci_runtime(b.runtime, in->environment["PATH"], cwd);
    if (!found.ok()) return fail(found.error());
    runtime = *found;
  }
  auto compiled = compile_checked(ev->ir, cache, oci);
  if (!compiled.ok()) return fail(compiled.error());
  const json* probe = &compiled->probe;
  // plan_hash(plan) is sha256 over the plan's canonical bytes, and plan.json holds exactly those
  // bytes: serialised once, and `sha256sum plan.json` is the plan hash.
  const std::string hash = sha256_hex(compiled->bytes);

  // What earlier direct-mode sessions on this project left undecided, said once more before this
  // one starts: the agent about to run could build on it.
  for (const auto& p : platform::pending_audits_of(*layout, ev->ir.meta.project))
    std::cerr << "paddock: session " << p.session_id << " left " << p.pending
              << (p.pending == 1 ? " finding" : " findings")
              << " in this project for a tool on this machine to run, undecided: paddock audit " << p.session_id << "\n";
  SessionStore store(*layout);
  auto id = SessionStore::new_id();
  if (!id.ok()) return fail(id.error());
  auto dir = store.create(*id);
  if (!dir.ok()) return fail(dir.error());

  // The IR and the probe reach the helper through anonymous memory files. The helper re-checks
  // the probe (plan.json records the same facts for verify), and writes the session's ir.json
  // (these bytes) and plan.json (the plan whose hash it checked, the bytes hashed above) itself,
  // while the sandbox builds its view: two new files off the path to the agent's start.
  auto ir_fd = memory_file("paddock-ir", ev->ir_bytes);
  if (!ir_fd.ok()) return fail(ir_fd.error());
  auto probe_fd = memory_file("paddock-probe", probe->dump());
  if (!probe_fd.ok()) return fail(probe_fd.error());
  session::HelperRunArgs args;
  if (!ev->ir.secrets.credentials.empty()) {
    // The brokered credentials' values, out of the store only now, for the helper's broker: in a
    // memory file it reads once the sandbox's init runs, never an argument or a variable. The
    // placeholders (not secret) apart, for the agent's variables.
    platform::CredentialStore credentials(*layout, ctx.keyring_path().string());
    auto stored = credentials.list();
    if (!stored.ok()) return fail(stored.error());
    std::vector<session::CredentialSecret> secrets;
    std::map<std::string, std::string> placeholders;
    for (const auto& c : ev->ir.secrets.credentials) {
      auto it = std::find_if(stored->begin(), stored->end(), [&](const auto& s) { return s.name == c.name; });
      if (it == stored->end()) return fail(refused("credential " + c.name + " is no longer stored"));
      auto value = credentials.value(c.name);
      if (!value.ok()) return fail(value.error());
      secrets.push_back({c.name, it->entry.upstream, it->entry.placeholder, std::move(*value)});
      placeholders[c.name] = it->entry.placeholder;
    }
    auto secrets_fd = memory_file("paddock-credentials", session::encode_credential_secrets(secrets));
    if (!secrets_fd.ok()) return fail(secrets_fd.error());
    auto placeholders_fd = memory_file("paddock-placeholders", session::encode_credential_placeholders(placeholders));
    if (!placeholders_fd.ok()) return fail(placeholders_fd.error());
    args.credentials_file = "/proc/self/fd/" + std::to_string(*secrets_fd);
    args.placeholders_file = "/proc/self/fd/" + std::to_string(*placeholders_fd);
  }
  args.oci_runtime = runtime;
  args.ir_file = "/proc/self/fd/" + std::to_string(*ir_fd);
  args.record_session = true;
  args.plan_hash = hash;
  args.session_dir = *dir;
  args.session_id = *id;
  args.control_socket = store.control_socket(*id);
  args.probe_file = "/proc/self/fd/" + std::to_string(*probe_fd);
  args.timeout_secs = in->timeout_secs;
  args.replaces_caller = true;
  args.probe_cached = !cache.path().empty();
  args.allow_tainted = o.allow_tainted;
  args.command = command;
  int code = exec_helper(ctx.helper_path().string(), session::encode_run_args(args));
  const int exec_errno = errno;
  cache.drop();  // not even started: the next run probes afresh
  // The helper never ran, so it recorded nothing: the session says what was asked and why it
  // did not start.
  (void)platform::write_file_atomic(*dir + "/ir.json", ev->ir_bytes);
  session::Report report;
  report.session_id = *id;
  report.status = session::ReportStatus::kFailed;
  report.exit_code = code;
  report.error = "cannot start " + ctx.helper_path().string() + ": " + std::strerror(exec_errno);
  (void)platform::write_file_atomic(*dir + "/report.json", session::encode_report(report));
  return code;
}

// The asks a running session waits on, from its control socket.
Result<std::vector<session::PendingAsk>> pending_asks(const session::Layout& layout, const std::string& id) {
  auto reply = control_request(layout.control_socket(id), session::request_of(session::ControlCommand::kAsks));
  if (!reply.ok()) return reply.error();
  if (!reply->ok) return internal_error("session " + id + ": " + reply->error);
  return std::move(reply->asks);
}

// Host names come from the agent (what it asked the proxy for): shown escaped.
std::string host_port(const std::string& host, int port) { return display_text(host) + ":" + std::to_string(port); }

std::string ask_line(const session::PendingAsk& a) {
  return display_text(a.id) + "  " + host_port(a.host, a.port) + "  waiting since " + display_text(a.ts);
}

// "2026-12-01T10:00:00.123Z" -> seconds since the epoch; nullopt for anything else.
std::optional<time_t> utc_seconds(const std::string& ts) {
  tm t{};
  const char* end = ::strptime(ts.c_str(), "%Y-%m-%dT%H:%M:%S", &t);
  if (!end) return std::nullopt;
  return ::timegm(&t);
}

// The asks a session raised whose wait overlapped the last `window` seconds (raised later than
// now - window - the session's ask timeout), from its events: each one the user may have seen
// in the last moments. An error when the log cannot tell (unreadable, or too large to read).
Result<std::vector<session::PendingAsk>> recent_asks(const session::Layout& layout, const std::string& id, int window) {
  const std::string dir = layout.session_dir(id);
  int timeout = 30;
  if (auto ir = platform::read_session_ir(dir); ir.ok()) timeout = ir->egress.ask_timeout_secs;
  auto text = platform::read_file(dir + "/events.jsonl");
  if (!text.ok()) return text.error();
  const time_t since = ::time(nullptr) - window - timeout;
  std::vector<session::PendingAsk> out;
  std::size_t start = 0;
  while (start < text->size()) {
    std::size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    auto e = session::decode_event(std::string_view(*text).substr(start, end - start));
    start = end + 1;
    if (!e.ok() || e->type != session::EventType::kAsk) continue;
    const auto raised = utc_seconds(e->ts);
    if (!raised || *raised < since) continue;
    session::PendingAsk a;
    a.id = e->fields.value("id", "");
    a.host = e->fields.value("host", "");
    a.port = e->fields.value("port", 0);
    a.ts = e->ts;
    out.push_back(std::move(a));
  }
  return out;
}

// One line per session, oldest first; an unreadable session says which file and why, and the
// listing goes on (its exit code stays 0: the listing itself worked). Under a running session,
// one line per ask it waits on (`paddock ask` answers them).
// What a session holds for review: "held" (changes not yet applied or discarded), "reviewed" (its
// copy of the agent's writes is gone), "" (it ran in direct mode).
std::string review_state(const SessionStore& store, const std::string& id) {
  auto s = platform::open_review_session(store.session_dir(id), id);
  if (!s.ok()) return s.error().code == ErrorCode::kNotFound ? "" : "held";
  return s->has_layers() ? "held" : "reviewed";
}

// Removes the records of sessions that ended longer ago than the retention (the setting in
// sessions.json, or --older-than), except sessions whose changes are still held for review.
int prune(const SessionStore& store, std::optional<int> older_than, CliContext& ctx) {
  auto out = platform::prune_sessions(store.layout(), ctx.resources_dir().string(), older_than);
  if (!out.ok()) return fail(out.error());
  for (const auto& e : out->errors) std::cerr << "paddock: " << e << "\n";
  std::cout << "removed " << out->removed << (out->removed == 1 ? " session" : " sessions") << " that ended more than "
            << out->keep_days << " days ago";
  if (out->kept_for_review) std::cout << "; kept " << out->kept_for_review << " holding changes for review (paddock review ID)";
  std::cout << "\n";
  return out->errors.empty() ? 0 : 1;
}

int sessions(bool as_json, bool do_prune, std::optional<int> older_than, CliContext& ctx) {
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  SessionStore store(*layout);
  if (do_prune) return prune(store, older_than, ctx);
  std::vector<session::SessionSummary> all;
  for (const auto& id : store.list_ids()) {
    // A direct-mode session whose helper was killed is audited the first time it is listed.
    if (auto r = platform::audit_if_abandoned(*layout, id, ctx.resources_dir().string(), "paddock sessions"); !r.ok())
      std::cerr << "paddock: session " << id << ": " << r.error().message << "\n";
    all.push_back(store.summary(id));
  }
  std::map<std::string, Result<std::vector<session::PendingAsk>>> asks;
  for (const auto& s : all)
    if (s.state == session::SessionState::kRunning) asks.emplace(s.id, pending_asks(*layout, s.id));
  if (as_json) {
    json out = json::array();
    for (const auto& s : all) {
      json j = session::summary_json(s);
      if (const std::string r = review_state(store, s.id); !r.empty()) j["review"] = r;
      if (const auto a = platform::load_audit(store.session_dir(s.id)); a.record)
        j["audit"] = {{"findings", a.record->findings.size()}, {"pending", a.pending()}, {"complete", a.record->complete}};
      if (auto it = asks.find(s.id); it != asks.end() && it->second.ok()) {
        j["asks"] = json::array();
        for (const auto& a : *it->second)
          j["asks"].push_back({{"id", a.id}, {"host", a.host}, {"port", a.port}, {"ts", a.ts}});
      }
      out.push_back(std::move(j));
    }
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (all.empty()) std::cout << "no sessions\n";
  for (const auto& s : all) {
    std::string cmd;
    for (const auto& a : s.command) cmd += (cmd.empty() ? "" : " ") + a;
    std::cout << s.id << "  " << session::to_string(s.state) << "  "
              << (s.exit_code ? std::to_string(*s.exit_code) : std::string("-")) << "  "
              << display_text(s.problem.empty() ? cmd : s.problem) << "\n";
    if (auto it = asks.find(s.id); it != asks.end()) {
      if (!it->second.ok())
        std::cout << "  ? pending asks unknown: " << display_text(it->second.error().message) << "\n";
      else
        for (const auto& a : *it->second)
          std::cout << "  ? ask " << ask_line(a) << "  (paddock ask " << s.id << " " << display_text(a.id)
                    << " allow-once|allow-session|deny)\n";
    }
    if (review_state(store, s.id) == "held")
      std::cout << "  > changes held for review: paddock review " << s.id << "\n";
    if (const auto a = platform::load_audit(store.session_dir(s.id)); a.record && (a.pending() || !a.record->complete)) {
      if (a.pending())
        std::cout << "  ! " << a.pending() << (a.pending() == 1 ? " finding" : " findings")
                  << " for a tool on this machine to run, undecided: paddock audit " << s.id << "\n";
      if (!a.record->complete) std::cout << "  ! part of the project was not audited: paddock audit " << s.id << "\n";
    }
    // Said under the session each time it is listed: the change outlives the session.
    if (s.report)
      for (const auto& c : s.report->config_changes)
        std::cout << "  ! " << display_text(c.file) << ": " << display_text(c.key) << " " << display_text(c.change)
                  << " by the agent; its CLI runs what this names on the host, outside Paddock: review it\n";
  }
  return 0;
}

Error not_running(const std::string& id) {
  return bad_input("session " + id + " is not running (see 'paddock sessions')");
}

int stop(const std::string& id, CliContext& ctx) {
  if (auto s = SessionStore::validate_id(id); !s.ok()) return fail(s.error());
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  auto reply = control_request(layout->control_socket(id), session::request_of(session::ControlCommand::kStop));
  if (!reply.ok()) return fail(reply.error().code == ErrorCode::kBadInput ? not_running(id) : reply.error());
  if (!reply->ok) return fail(internal_error("session " + id + " refused stop: " + reply->error));
  std::cout << "stopping session " << id << "\n";
  return 0;
}

// The words `paddock ask` takes; the protocol's are the same with '_'.
std::optional<session::AskAnswer> parse_cli_answer(const std::string& word) {
  if (word == "allow-once") return session::AskAnswer::kAllowOnce;
  if (word == "allow-session") return session::AskAnswer::kAllowSession;
  if (word == "deny") return session::AskAnswer::kDeny;
  return std::nullopt;
}

// paddock ask SESSION [ASK] allow-once|allow-session|deny: the same ask_reply the app sends.
// Without ASK it answers the session's only pending ask; with several it lists them and asks
// for one (exit 2).
// Without an ask id, only the ask the user can have seen is answered: the one pending ask, and
// only when no other ask was waiting in the last 30 seconds (one that expired just as the user
// typed would otherwise leave its place to a new one, which the answer would then allow). Every
// answer says which host and port it was for.
int ask(const std::string& id, const std::vector<std::string>& words, CliContext& ctx) {
  if (auto s = SessionStore::validate_id(id); !s.ok()) return fail(s.error());
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  const auto answer = parse_cli_answer(words.back());
  if (!answer) return fail(bad_input("'" + words.back() + "' is not an answer: use allow-once, allow-session or deny"));
  std::error_code ec;
  if (!std::filesystem::is_directory(layout->session_dir(id), ec))
    return fail(bad_input("no session " + id + " (see 'paddock sessions')"));
  auto asks = pending_asks(*layout, id);
  if (!asks.ok()) return fail(asks.error().code == ErrorCode::kBadInput ? not_running(id) : asks.error());
  std::string ask_id = words.size() == 2 ? words.front() : "";
  constexpr int kWindow = 30;
  std::string target;  // "host:port" the answer is for
  if (!ask_id.empty()) {
    for (const auto& a : *asks)
      if (a.id == ask_id) target = host_port(a.host, a.port);
    // Not pending (any more, or not yet listed): the session's answer says why; its events say
    // what it was for.
    if (target.empty())
      if (auto raised = recent_asks(*layout, id, 24 * 3600); raised.ok())
        for (const auto& a : *raised)
          if (a.id == ask_id) target = host_port(a.host, a.port);
  } else {
    if (asks->empty()) return fail(bad_input("session " + id + " has no pending ask"));
    const std::string name_one = "; name one: paddock ask " + id + " ASK " + words.back();
    if (asks->size() > 1) {
      for (const auto& a : *asks) std::cout << ask_line(a) << "\n";
      return fail(bad_input("session " + id + " has " + std::to_string(asks->size()) + " pending asks" + name_one));
    }
    auto recent = recent_asks(*layout, id, kWindow);
    if (!recent.ok())
      return fail(bad_input("session " + id + ": cannot tell which asks were raised (" + recent.error().message + ")" + name_one));
    bool other = false;
    for (const auto& r : *recent) other = other || r.id != asks->front().id;
    if (other) {
      for (const auto& r : *recent)
        std::cout << display_text(r.id) << "  " << host_port(r.host, r.port) << "  raised " << display_text(r.ts)
                  << (r.id == asks->front().id ? "  (pending)" : "  (no longer pending)") << "\n";
      return fail(bad_input("session " + id + " raised more than one ask in the last " + std::to_string(kWindow) +
                            " seconds, so the one pending (" + host_port(asks->front().host, asks->front().port) +
                            ") may not be the one you saw" + name_one));
    }
    ask_id = asks->front().id;
    target = host_port(asks->front().host, asks->front().port);
  }
  if (target.empty()) target = "an ask this session never raised";
  auto reply = control_request(layout->control_socket(id), session::ask_reply_request(ask_id, *answer));
  if (!reply.ok()) return fail(reply.error().code == ErrorCode::kBadInput ? not_running(id) : reply.error());
  if (!reply->ok) return fail(bad_input("session " + id + ": " + reply->error));
  std::cout << "answered " << words.back() << " to " << target << " (ask " << display_text(ask_id) << " of session " << id
            << ")\n";
  return 0;
}

Error mismatch(const std::string& what) { return {ErrorCode::kVerifyMismatch, what}; }

// An OCI session's bundle: its config.json is the one the attestation hashed, and it is the
// plan's config completed with the launch's facts alone (command, passed variables, working
// directory, the user the container's root maps to).
Status verify_oci_bundle(const std::string& dir, const BackendPlan& plan, const Attestation& att) {
  if (att.runtime_config_hash.empty()) return bad_input("the attestation names no runtime config");
  platform::ReadOptions o;
  o.no_follow = true;
  auto text = platform::read_file(dir + "/bundle/config.json", o);
  if (!text.ok()) return bad_input("bundle/config.json: " + text.error().message);
  if (const std::string h = sha256_hex(*text); h != att.runtime_config_hash)
    return bad_input("bundle/config.json's sha256 " + h + " differs from the attested " + att.runtime_config_hash);
  const json config = json::parse(*text, nullptr, false);
  if (config.is_discarded()) return bad_input("bundle/config.json is not JSON");
  const json& planned = plan.steps.at(0).at("value");
  auto launch = oci_backend::launch_of(config, planned);
  if (!launch.ok()) return launch.error();
  auto again = oci_backend::complete_config(planned, *launch);
  if (!again.ok() || *again != config)
    return bad_input("bundle/config.json is not the plan's config with the launch's facts: it differs from the plan");
  return Status::Ok();
}

// Recomputes the IR hash from the stored bytes and the plan hash from that IR with the stored
// probe, and compares both with the attestation the helper sent before exec.
int verify(const std::string& id, CliContext& ctx) {
  if (auto s = SessionStore::validate_id(id); !s.ok()) return fail(s.error());
  auto layout = ctx.layout();
  if (!layout.ok()) return fail(layout.error());
  const std::string dir = layout->session_dir(id);
  auto ir_bytes = platform::read_file(dir + "/ir.json");
  if (!ir_bytes.ok()) return fail(bad_input("no session " + id + " (" + ir_bytes.error().message + ")"));
  auto att_bytes = platform::read_file(dir + "/attestation.json");
  if (!att_bytes.ok()) return fail(mismatch("session " + id + " has no attestation: the helper never reported ready"));
  auto plan_bytes = platform::read_file(dir + "/plan.json");
  if (!plan_bytes.ok()) return fail(mismatch("session " + id + ": plan.json is missing"));

  json att_json = json::parse(*att_bytes, nullptr, false);
  auto att = attestation_from_json(att_json);
  if (att_json.is_discarded() || !att.ok()) return fail(mismatch("session " + id + ": attestation.json does not parse"));
  json ir_json = json::parse(*ir_bytes, nullptr, false);
  if (ir_json.is_discarded()) return fail(mismatch("session " + id + ": ir.json is no longer valid JSON"));
  auto ir = ir_from_json(ir_json);
  if (!ir.ok()) return fail(mismatch("session " + id + ": ir.json no longer reads as an IR: " + ir.error().message));
  // The stored bytes must be exactly the canonical bytes: a changed byte anywhere fails here.
  if (canonical_bytes(*ir) != *ir_bytes) return fail(mismatch("session " + id + ": ir.json is not the canonical IR it was"));
  const std::string ir_h = sha256_hex(*ir_bytes);
  if (ir_h != att->ir_hash)
    return fail(mismatch("session " + id + ": ir_hash " + ir_h + " differs from the attested " + att->ir_hash));

  json plan_json = json::parse(*plan_bytes, nullptr, false);
  auto stored_plan = plan_json.is_discarded() ? Result<BackendPlan>(bad_input("not JSON")) : plan_from_json(plan_json);
  if (!stored_plan.ok()) return fail(mismatch("session " + id + ": plan.json does not parse"));
  auto backend = backends::backend_from_string(stored_plan->backend);
  if (!backend.ok() || (*backend != backends::BackendId::kLinux && *backend != backends::BackendId::kOci))
    return fail(mismatch("session " + id + ": plan.json is a " + stored_plan->backend + " plan, which no session runs"));
  if (att->backend != stored_plan->backend)
    return fail(mismatch("session " + id + ": the attestation is of a " + att->backend + " session, plan.json of " +
                         stored_plan->backend));
  auto plan = backends::compile(*ir, *backend, stored_plan->probe);
  if (!plan.ok()) return fail(mismatch("session " + id + ": the plan no longer compiles: " + plan.error().message));
  const std::string plan_h = plan_hash(*plan);
  if (plan_h != att->plan_hash)
    return fail(mismatch("session " + id + ": plan_hash " + plan_h + " differs from the attested " + att->plan_hash));
  if (plan_hash(*stored_plan) != plan_h)
    return fail(mismatch("session " + id + ": plan.json differs from the plan compiled from ir.json"));
  std::cout << "verified session " << id << "\n  ir_hash   " << ir_h << "\n  plan_hash " << plan_h << "\n";
  if (*backend == backends::BackendId::kOci) {
    if (auto s = verify_oci_bundle(dir, *plan, *att); !s.ok()) return fail(mismatch("session " + id + ": " + s.error().message));
    std::cout << "  config    " << att->runtime_config_hash << " (" << display_text(att->runtime) << ")\n";
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, CliContext& ctx) {
  auto* run_cmd = app.add_subcommand("run", "Run a command inside the sandbox");
  auto request = add_launch_options(run_cmd);
  auto backend = std::make_shared<RunBackend>();
  run_cmd->add_option("--backend", backend->backend,
                      "linux (default): Paddock's own sandbox; oci: the OCI plan, run by an OCI runtime "
                      "(runc or crun) under Paddock's supervision (docs/backends.md)")
      ->check(CLI::IsMember({"linux", "oci"}));
  run_cmd->add_option("--runtime", backend->runtime,
                      "With --backend oci: the OCI runtime, a name on PATH or a path (default: runc, else crun)")
      ->type_name("RUNTIME");
  run_cmd->callback([&ctx, request, backend] {
    if (!backend->runtime.empty() && backend->backend != "oci") {
      ctx.exit_code = fail(bad_input("--runtime names an OCI runtime: use it with --backend oci"));
      return;
    }
    ctx.exit_code = run(*request, *backend, ctx);
  });
}

void add_session_commands(CLI::App& app, CliContext& ctx) {
  add_run_command(app, ctx);

  auto* sessions_cmd = app.add_subcommand("sessions", "List sessions");
  auto as_json = std::make_shared<bool>(false);
  auto do_prune = std::make_shared<bool>(false);
  auto older_than = std::make_shared<std::optional<int>>();
  sessions_cmd->add_flag("--json", *as_json, "Machine-readable output");
  sessions_cmd->add_flag("--prune", *do_prune,
                         "Remove the records of sessions that ended long ago (sessions.json keep_days, default 30), "
                         "keeping those whose changes are held for review");
  sessions_cmd->add_option("--older-than", *older_than, "With --prune: days instead of the setting")
      ->type_name("DAYS")
      ->check(CLI::Range(0, 36500));
  sessions_cmd->callback([&ctx, as_json, do_prune, older_than] {
    if (older_than->has_value() && !*do_prune) {
      ctx.exit_code = fail(bad_input("--older-than goes with --prune"));
      return;
    }
    ctx.exit_code = sessions(*as_json, *do_prune, *older_than, ctx);
  });

  auto* stop_cmd = app.add_subcommand("stop", "Stop a running session");
  auto stop_id = std::make_shared<std::string>();
  stop_cmd->add_option("id", *stop_id, "Session id")->required();
  stop_cmd->callback([&ctx, stop_id] { ctx.exit_code = stop(*stop_id, ctx); });

  auto* ask_cmd = app.add_subcommand("ask", "Answer a pending network ask of a running session (--net ask)");
  auto ask_id = std::make_shared<std::string>();
  auto ask_words = std::make_shared<std::vector<std::string>>();
  ask_cmd->add_option("id", *ask_id, "Session id")->required()->type_name("ID");
  ask_cmd->add_option("answer", *ask_words, "[ASK] allow-once|allow-session|deny (ASK: the ask's id, as 'paddock sessions' shows it)")
      ->required()
      ->expected(1, 2)
      ->type_name("[ASK] ANSWER");
  ask_cmd->callback([&ctx, ask_id, ask_words] { ctx.exit_code = ask(*ask_id, *ask_words, ctx); });

  auto* verify_cmd = app.add_subcommand("verify", "Recompute a session's hashes and compare with its attestation");
  auto verify_id = std::make_shared<std::string>();
  verify_cmd->add_option("--session", *verify_id, "Session id")->required();
  verify_cmd->callback([&ctx, verify_id] { ctx.exit_code = verify(*verify_id, ctx); });
}

}  // namespace paddock::cli
