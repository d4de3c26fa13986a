#include "helpers/linux/oci_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/session/record_json.h"
#include "engine/session/report.h"
#include "helpers/common/event_log.h"
#include "helpers/linux/agent_config_watch.h"
#include "helpers/linux/child_watch.h"
#include "helpers/linux/connect_redirect.h"
#include "helpers/linux/control_server.h"
#include "helpers/linux/placeholders.h"
#include "helpers/linux/session_end.h"
#include "helpers/linux/session_files.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/sys_error.h"
#include "helpers/linux/tree_usage.h"
#include "platform/fd_passing.h"
#include "platform/read_file.h"
#include "platform/subprocess.h"
#include "platform/utc_time.h"

namespace paddock::helper {
namespace {

using Clock = std::chrono::steady_clock;

// A filtered network's seccomp agent, at the bundle's listenerPath: the runtime connects once
// the container's filter exists and sends its listener (beside the container's state, which is
// not needed); from then on the helper answers the container's connect(2) calls with the broker
// (connect_redirect.h). Should anything fail on the way, the listener is closed and every
// connect(2) of the container fails (ENOSYS) rather than wait.
class SeccompAgent {
 public:
  SeccompAgent(SessionRelay& relay, const IrEgress& egress) : relay_(relay), egress_(egress) {}
  ~SeccompAgent() { stop(); }

  // Before the runtime starts: the socket the runtime connects to, and the broker's port.
  Status listen(const std::string& path) {
    auto broker = listen_for_broker();
    if (!broker) return broker.error();
    broker_ = std::move(broker.value());
    sock_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    wake_.reset(::eventfd(0, EFD_CLOEXEC));
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (!sock_.valid() || !wake_.valid() || path.size() >= sizeof a.sun_path)
      return refused("the seccomp agent's socket " + path + " cannot be made");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    ::unlink(path.c_str());
    if (::bind(sock_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(sock_.get(), 1) != 0)
      return sys_error("listen (seccomp agent)", path);
    path_ = path;
    thread_ = std::thread([this] { run(); });
    return Status::Ok();
  }

  void stop() {
    if (thread_.joinable()) {
      const std::uint64_t one = 1;
      (void)!::write(wake_.get(), &one, sizeof one);
      thread_.join();
    }
    if (redirect_) redirect_->stop();
    if (!path_.empty()) ::unlink(path_.c_str());
    path_.clear();
  }

 private:
  void run() {
    pollfd p[2] = {{sock_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    while (::poll(p, 2, -1) < 0 && errno == EINTR) {
    }
    if (p[1].revents || !(p[0].revents & POLLIN)) return;
    platform::UniqueFd conn(::accept4(sock_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn.valid()) return;
    std::vector<char> state(64 * 1024);
    platform::UniqueFd listener;
    if (platform::receive_message(conn.get(), state.data(), state.size(), &listener) <= 0 || !listener.valid()) return;
    RedirectTargets targets;
    targets.scope = RedirectScope::kOffLoopback;
    auto r = start_brokered_connects(&relay_, std::move(broker_), egress_, std::move(listener), std::move(targets));
    if (r) redirect_ = std::move(r.value());
  }

  SessionRelay& relay_;
  const IrEgress& egress_;
  BrokerListener broker_;
  platform::UniqueFd sock_, wake_;
  std::string path_;
  std::thread thread_;
  std::unique_ptr<ConnectRedirect> redirect_;
};

// The runtime's own commands on the container (kill, delete): their output is the runtime's
// business, their failure is reported by what follows (the container still running, or not).
void runtime_command(const OciSpec& spec, std::vector<std::string> args) {
  args.insert(args.begin(), {"--root", spec.state_root});
  (void)platform::run_capture(spec.runtime, args);
}

// Makes each absent protected path beneath its write root, component by component without
// following a symlink (one that appeared since the policy was resolved refuses the session), and
// returns what it made.
Result<std::vector<Placeholder>> make_placeholders(const std::vector<OciPlaceholder>& wanted) {
  std::vector<Placeholder> made;
  for (const auto& w : wanted) {
    platform::UniqueFd fd(::open(w.within.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return sys_error("open", w.within);
    std::string path = w.within == "/" ? "" : w.within;
    const std::string rel = w.target.substr(path.size() + 1);
    for (std::size_t start = 0; start <= rel.size();) {
      const std::size_t slash = std::min(rel.find('/', start), rel.size());
      const std::string name = rel.substr(start, slash - start);
      const bool last = slash == rel.size();
      start = slash + 1;
      path += "/" + name;
      platform::UniqueFd next(::openat(fd.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!next.valid() && errno == ENOENT) {
        const bool dir = !last || w.dir;
        const int fresh = dir ? ::mkdirat(fd.get(), name.c_str(), 0755)
                              : ::openat(fd.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fresh < 0 && errno != EEXIST) return sys_error("create the placeholder", path);
        if (!dir && fresh >= 0) {
          const bool written = ::write(fresh, w.content.data(), w.content.size()) == static_cast<ssize_t>(w.content.size());
          ::close(fresh);
          if (!written) return sys_error("write the placeholder", path);
        }
        next.reset(::openat(fd.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
        struct stat st {};
        if (fresh >= 0 && next.valid() && ::fstat(next.get(), &st) == 0)
          made.push_back({path, dir, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec,
                          dir ? std::string() : w.content});
      }
      if (!next.valid()) return sys_error("open", path);
      struct stat st {};
      if (::fstat(next.get(), &st) != 0) return sys_error("stat", path);
      if (S_ISLNK(st.st_mode))
        return refused(path + " became a symlink since the policy was resolved; start the session again");
      if (last) break;
      if (!S_ISDIR(st.st_mode)) return refused(path + " is no longer a directory; start the session again");
      fd = std::move(next);
    }
  }
  return made;
}

}  // namespace

Result<std::string> runtime_label(const std::string& runtime) {
  auto v = platform::run_capture(runtime, {"--version"}, std::nullopt, "install runc or crun, or name one with --runtime");
  if (!v.ok()) return v.error();
  const std::string name = runtime.substr(runtime.rfind('/') + 1);
  if (v->exit_code != 0) return refused(runtime + " --version failed: is it an OCI runtime?");
  // "runc version 1.1.5" / "crun version 1.8.1": the first line's last word.
  std::string first = v->out.substr(0, v->out.find('\n'));
  // gVisor reads a bundle its own way: without --oci-seccomp it drops the seccomp profile, and it
  // answers every denied call with EPERM, so the plan's rows would not hold (docs/backends.md).
  if (first.rfind("runsc version ", 0) == 0)
    return refused(runtime + " is gVisor's runsc, which Paddock does not run yet (it would drop or change the "
                   "bundle's seccomp profile, docs/backends.md): use runc or crun");
  const auto space = first.rfind(' ');
  if (first.rfind(name + " version ", 0) != 0 || space == std::string::npos) return name;
  return name + " " + first.substr(space + 1);
}

int run_oci_session(const OciSpec& spec, const SessionOptions& o) {
  const auto t0 = Clock::now();
  if (::mkdir(spec.state_root.c_str(), 0700) != 0 && errno != EEXIST)
    return fail_session(o, 125, sys_error("mkdir", spec.state_root).message);
  EventLog events(o.session_dir + "/events.jsonl");
  SessionFiles files(o.session_dir);
  const std::string attestation = session::dump_record(nlohmann::json::parse(spec.attestation_json), 2) + "\n";
  if (auto s = files.stage_records(o.record_ir, o.record_plan, attestation); !s)
    return fail_session(o, s.error().exit_code(), s.error().message);
  if (auto s = files.publish_attestation(); !s) return fail_session(o, s.error().exit_code(), s.error().message);

  // The absent protected paths, made here rather than by the runtime, so that they are removed
  // at the end unless another session still relies on them.
  PlaceholderRegistry registry;
  if (!spec.placeholders.empty()) {
    auto r = PlaceholderRegistry::open(o.placeholders_dir);
    if (!r) return fail_session(o, r.error().exit_code(), r.error().message);
    if (auto s = r->hold(spec.placeholder_candidates); !s) return fail_session(o, s.error().exit_code(), s.error().message);
    registry = std::move(*r);
    auto made = make_placeholders(spec.placeholders);
    if (made && !made->empty())
      if (auto s = registry.record(*made); !s) made = s.error();
    if (!made) return fail_session(o, made.error().exit_code(), made.error().message);
  }

  // The agents' host-executed settings the container could write, read before it exists.
  const AgentConfigWatch configs(o.watched_configs, o.home);
  bool stop_requested = false;
  pid_t runtime = -1;
  SessionRelay relay(events);
  const bool brokered = !spec.seccomp_listener.empty();
  ControlServer control(events, {[&] { stop_requested = true; },
                                 [&](const std::string& id, session::AskAnswer a) -> Status {
                                   if (!brokered) return bad_input("this session's network is off: it raises no asks");
                                   return relay.answer(id, a);
                                 },
                                 [&] { return brokered ? relay.pending_asks() : std::vector<session::PendingAsk>{}; },
                                 [&] {
                                   // The runtime's descendants are the container's processes; the
                                   // runtime itself is not the agent's. It is this process's child,
                                   // not reaped while the socket is served: its pid is its own.
                                   const ProcTreeUsage t = proc_tree_usage(runtime, false);
                                   return session::encode_usage_reply({t.cpu_ms, t.rss_bytes, t.tasks, spec.limits});
                                 }});
  if (!o.control_socket.empty())
    if (auto s = control.listen(o.control_socket); !s) return fail_session(o, s.error().exit_code(), s.error().message);

  // SIGINT and SIGQUIT from the terminal reach the runtime, which hands them to the agent;
  // SIGTERM and SIGHUP stop the session (child_watch.h).
  const sigset_t mask = watched_signals();
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  // Its threads start with these signals blocked, as the process's other threads.
  SeccompAgent agent(relay, o.egress);
  if (brokered)
    if (auto s = agent.listen(spec.seccomp_listener); !s) {
      ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
      return fail_session(o, s.error().exit_code(), s.error().message);
    }

  const std::string pid_file = o.session_dir + "/oci.pid";
  std::vector<std::string> argv = {spec.runtime, "--root", spec.state_root, "run", "--bundle", spec.bundle,
                                   "--pid-file", pid_file, spec.container_id};
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  runtime = ::fork();
  if (runtime < 0) return fail_session(o, 125, sys_error("fork").message);
  if (runtime == 0) {
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execv(cargv[0], cargv.data());
    std::perror("paddock: cannot start the OCI runtime");
    ::_exit(125);
  }
  session::SessionStarted started = o.started;
  started.session_id = o.session_id;
  started.command = spec.argv;
  started.helper_pid = ::getpid();
  events.emit(session::make_event(started));

  ChildWatch watch;
  watch.child = runtime;
  if (o.timeout_secs) watch.deadline = t0 + std::chrono::seconds(*o.timeout_secs);
  watch.control = &control;
  watch.stop_requested = &stop_requested;
  // Asked again each second until the runtime returns: a stop can come before the container exists.
  watch.kill = [&] { runtime_command(spec, {"kill", spec.container_id, "KILL"}); };
  watch.forward_interrupts = true;
  const ChildEnd watched = watch_child(watch);
  SessionEnd end;
  end.attested = true;
  end.timed_out = watched.timed_out;
  end.stopped = watched.stopped;
  const std::optional<int>& status = watched.status;
  // The container is gone with its runtime's `run` (its init was the PID namespace's); its state
  // is removed, and a container the runtime left behind is killed on the way.
  runtime_command(spec, {"delete", "--force", spec.container_id});
  agent.stop();
  relay.stop();
  control.close_all();
  for (const std::string& problem : registry.sweep()) {
    events.emit(session::notice_event("warning", problem));
    std::fprintf(stderr, "paddock: %s\n", problem.c_str());
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  // Nothing of the container runs any more: what it left in the agents' settings is final.
  std::vector<session::ConfigChange> config_changes = configs.changes();
  announce_config_changes(&events, config_changes);

  // The pid file is written once the container's process exists: without it the runtime failed
  // before the agent could run, and said why on stderr, unless the session was stopped or ran out
  // of time while the runtime was still making the container (then it is that, not a failure).
  std::string setup_error;
  if (!watched.stopped && !watched.timed_out && !platform::read_file(pid_file).ok())
    setup_error = spec.runtime + " did not start the container (its message is above)";
  end.setup_failed = !setup_error.empty();
  end.agent_wait_status = end.setup_failed ? std::nullopt : status;
  end.init_wait_status = status.value_or(0);
  const SessionVerdict verdict = judge_session(end);
  if (end.setup_failed) std::fprintf(stderr, "paddock: %s\n", setup_error.c_str());
  session::Report r = report_of(
      o.session_id, verdict, end, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(),
      platform::utc_timestamp(), setup_error);
  r.usage = usage_of(watched.usage);  // the runtime's and, reaped by it, the container's
  r.config_changes = std::move(config_changes);
  emit_report(events, std::move(r), files);
  return verdict.exit_code;
}

}  // namespace paddock::helper
