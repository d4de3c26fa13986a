#include "helpers/linux/landlock_tier_exec.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "engine/capability.h"
#include "engine/session/record_json.h"
#include "engine/session/report.h"
#include "helpers/common/event_log.h"
#include "helpers/linux/host_ports.h"
#include "helpers/linux/agent_config_watch.h"
#include "helpers/linux/agent_exec.h"
#include "helpers/linux/cgroup_leaf.h"
#include "helpers/linux/child_watch.h"
#include "helpers/linux/connect_redirect.h"
#include "helpers/linux/control_server.h"
#include "helpers/linux/landlock_apply.h"
#include "helpers/linux/seccomp_apply.h"
#include "helpers/linux/session_end.h"
#include "helpers/linux/session_files.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/sys_error.h"
#include "helpers/linux/tree_usage.h"
#include "platform/fd_passing.h"
#include "platform/unique_fd.h"
#include "platform/utc_time.h"

namespace paddock::helper {
namespace {

using linux_backend::LandlockFsRight;
using linux_backend::LandlockPathRule;
using Clock = std::chrono::steady_clock;

std::vector<LandlockFsRight> only(const std::vector<LandlockFsRight>& rights, std::initializer_list<LandlockFsRight> wanted) {
  std::vector<LandlockFsRight> out;
  for (const auto r : rights)
    if (std::find(wanted.begin(), wanted.end(), r) != wanted.end()) out.push_back(r);
  return out;
}

bool strictly_inside(const std::string& p, const std::string& dir) {
  return p.size() > dir.size() + 1 && p.compare(0, dir.size(), dir) == 0 && (dir == "/" || p[dir.size()] == '/');
}

struct Carver {
  const linux_backend::LandlockCarve& c;
  std::vector<LandlockPathRule>& rules;
  std::vector<int>& held;
  int& budget;
  std::vector<LandlockFsRight> list_only, read;

  Status rule(int fd, std::vector<LandlockFsRight> access) {
    if (--budget < 0)
      return refused("fs.deny: carving the denied paths out of " + c.grant + " needs more than " +
                     std::to_string(linux_backend::kCarveBudget) +
                     " Landlock rules in the landlock tier; deny fewer paths inside it, grant a smaller directory, or "
                     "use the namespace tier");
    held.push_back(fd);
    rules.push_back({"/proc/self/fd/" + std::to_string(fd), std::move(access)});
    return Status::Ok();
  }

  bool ancestor_of_target(const std::string& p) const {
    const auto below = [&](const std::string& t) { return strictly_inside(t, p); };
    return std::any_of(c.denied.begin(), c.denied.end(), below) || std::any_of(c.read_only.begin(), c.read_only.end(), below);
  }

  Status visit(int dirfd, const std::string& path) {
    platform::UniqueFd listing(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!listing.valid()) return sys_error("list (landlock tier)", path);
    DIR* d = ::fdopendir(listing.get());
    if (!d) return sys_error("list (landlock tier)", path);
    (void)listing.release();
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      const std::string p = (path == "/" ? "" : path) + "/" + n;
      if (std::binary_search(c.denied.begin(), c.denied.end(), p)) continue;
      struct stat st {};
      // Gone since the listing: nothing to grant. Any other failure refuses the session rather
      // than leave the plan's rules incomplete.
      if (::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;
        return sys_error("stat (landlock tier)", p);
      }
      if (S_ISLNK(st.st_mode)) continue;
      const int fd = ::openat(dirfd, n.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        return sys_error("open (landlock tier)", p);
      }
      if (std::binary_search(c.read_only.begin(), c.read_only.end(), p)) {
        if (auto s = rule(fd, read); !s) return s;
      } else if (S_ISDIR(st.st_mode) && ancestor_of_target(p)) {
        if (auto s = rule(fd, list_only); !s) return s;
        if (auto s = visit(fd, p); !s) return s;
      } else {
        if (auto s = rule(fd, c.access); !s) return s;
      }
    }
    return Status::Ok();
  }
};

// The children of this process, from /proc (every process whose parent it is).
std::vector<pid_t> own_children() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE* f = std::fopen(path, "re");
    if (!f) continue;
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ')' ends it.
    const char* close = std::strrchr(buf, ')');
    char state = 0;
    long ppid = 0;
    if (close && std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == self) out.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(d);
  return out;
}

// Kills every child until none is left: the agent's group first, then whatever the kernel
// reparented to this subreaper (a daemon that left the group), and what those leave behind.
// Returns how many processes it killed after the agent's group.
long sweep(pid_t group, std::optional<int>& agent_status, pid_t agent) {
  ::kill(-group, SIGKILL);
  long swept = 0;
  for (;;) {
    for (const pid_t p : own_children()) {
      const bool left_group = ::getpgid(p) != group;
      if (::kill(p, SIGKILL) == 0 && left_group) ++swept;
    }
    int st = 0;
    const pid_t w = ::waitpid(-1, &st, 0);
    if (w < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: nothing left
    }
    if (w == agent && !agent_status) agent_status = st;
  }
  return swept;
}

std::vector<std::string> agent_env(const TierSpec& spec, const std::string& tmpdir) {
  std::map<std::string, std::string> env;
  for (const auto& name : spec.plan.env.pass)
    if (auto it = spec.launch_env.find(name); it != spec.launch_env.end()) env[name] = it->second;
  for (const auto& [k, v] : spec.plan.env.set) env[k] = v;
  if (!tmpdir.empty()) env["TMPDIR"] = tmpdir;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

// In the agent's process: the last steps before exec. A failure is written to `err` (one line)
// and ends the process with 125; the agent never runs.
[[noreturn]] void agent_main(const TierSpec& spec, const linux_backend::LandlockPlan& landlock,
                             const std::vector<sock_filter>& filter, const std::vector<std::string>& env,
                             const sigset_t& old_mask, int sync_fd, int err_fd, int listener_fd) {
  const auto die = [&](const Error& e) {
    const std::string line = e.message;
    (void)!::write(err_fd, line.data(), line.size());
    ::_exit(125);
  };
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  char go = 0;
  if (::read(sync_fd, &go, 1) != 1) ::_exit(125);  // the helper died before the cgroup was set
  ::close(sync_fd);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTTOU, SIGTTIN}) ::signal(sig, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (spec.agent_nofile_soft) {
    rlimit l{};
    if (::getrlimit(RLIMIT_NOFILE, &l) == 0) {
      l.rlim_cur = std::min<rlim_t>(*spec.agent_nofile_soft, l.rlim_max);
      ::setrlimit(RLIMIT_NOFILE, &l);
    }
  }
  if (auto s = apply_rlimits(spec.plan.rlimits); !s) die(s.error());
  if (::chdir(spec.cwd.c_str()) != 0) die(sys_error("chdir", spec.cwd));
  if (::geteuid() == 0)
    if (auto s = lock_out_capabilities(); !s) die(s.error());
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die(sys_error("no_new_privs"));
  if (auto s = apply_landlock(landlock); !s) die(s.error());
  if (listener_fd < 0) {
    if (auto s = load_seccomp_program(filter); !s) die(s.error());
  } else {
    // The filter's listener goes to the helper, which answers the agent's connect(2) calls;
    // the agent keeps no copy of it (it would answer its own calls).
    auto listener = load_seccomp_program_with_listener(filter);
    if (!listener) die(listener.error());
    if (platform::send_message(listener_fd, "l", *listener) != 1) die(sys_error("pass the seccomp listener"));
    ::close(*listener);
    ::close(listener_fd);
  }
  if (auto s = clear_capabilities(); !s) die(s.error());
  const int err = exec_agent(spec.argv, env);
  const std::string line = "cannot run " + spec.argv[0] + ": " + std::strerror(err);
  std::fprintf(stderr, "paddock: %s\n", line.c_str());
  ::_exit(exec_failure_code(err));
}

}  // namespace

Status carve_grant(const linux_backend::LandlockCarve& carve, std::vector<LandlockPathRule>& rules,
                   std::vector<int>& held, int& budget) {
  Carver k{carve, rules, held, budget, only(carve.access, {LandlockFsRight::kReadDir}),
           only(carve.access, {LandlockFsRight::kExecute, LandlockFsRight::kReadFile, LandlockFsRight::kReadDir})};
  const int root = ::open(carve.grant.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (root < 0) return sys_error("open grant (landlock tier)", carve.grant);
  if (auto s = k.rule(root, k.list_only); !s) return s;
  return k.visit(root, carve.grant);
}

int run_landlock_tier(const TierSpec& spec, const SessionOptions& o) {
  const auto t0 = Clock::now();
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return fail_session(o, 125, sys_error("PR_SET_CHILD_SUBREAPER").message);
  linux_backend::LandlockPlan landlock = spec.plan.landlock;
  std::vector<int> held;
  struct Close {
    std::vector<int>& fds;
    ~Close() {
      for (int fd : fds) ::close(fd);
    }
  } close_held{held};
  int budget = spec.plan.carve_budget;
  for (const auto& c : spec.plan.carves)
    if (auto s = carve_grant(c, landlock.path_rules, held, budget); !s) return fail_session(o, s.error().exit_code(), s.error().message);
  // The private TMPDIR, in the session's directory (a directory of its own without one).
  std::string tmpdir;
  if (spec.plan.private_tmpdir) {
    if (!o.session_dir.empty()) {
      tmpdir = o.session_dir + "/tmp";
      if (::mkdir(tmpdir.c_str(), 0700) != 0 && errno != EEXIST) return fail_session(o, 125, sys_error("mkdir", tmpdir).message);
    } else {
      char templ[] = "/tmp/paddock-tmpdir-XXXXXX";
      if (!::mkdtemp(templ)) return fail_session(o, 125, sys_error("mkdtemp", templ).message);
      tmpdir = templ;
    }
    landlock.path_rules.push_back({tmpdir, landlock.handled_fs});
  }
  auto filter = compile_seccomp(spec.plan.seccomp, spec.plan.answer_connect ? std::vector<std::string>{"connect"}
                                                                            : std::vector<std::string>{});
  if (!filter) return fail_session(o, filter.error().exit_code(), filter.error().message);
  auto leaf = CgroupLeaf::create(spec.plan.cgroup, o.session_id.empty() ? "paddock-landlock-tier" : o.session_id);
  if (!leaf) return fail_session(o, leaf.error().exit_code(), leaf.error().message);
  std::optional<SessionFiles> files;
  if (!o.session_dir.empty()) {
    files.emplace(o.session_dir);
    const std::string att = session::dump_record(nlohmann::json::parse(spec.attestation_json), 2) + "\n";
    if (auto s = files->stage_records(o.record_ir, o.record_plan, att); !s) return fail_session(o, s.error().exit_code(), s.error().message);
    if (auto s = files->publish_attestation(); !s) return fail_session(o, s.error().exit_code(), s.error().message);
  }
  const std::vector<std::string> env = agent_env(spec, tmpdir);
  // The agents' host-executed settings the session could write, read before the agent exists.
  const AgentConfigWatch configs(o.watched_configs, o.home);

  // The session's log and control socket, as every session has them: `paddock sessions` shows it
  // running, and `paddock stop` and the app's Stop reach it.
  std::optional<EventLog> events;
  if (!o.session_dir.empty()) events.emplace(o.session_dir + "/events.jsonl");
  bool stop_requested = false;
  // A filtered network: the broker, on a port of the host's 127.0.0.1 that serves the connections
  // the helper makes for the agent only (connect_redirect.h). Started once the signals below are
  // blocked, so that none is delivered to its threads.
  std::optional<SessionRelay> relay;
  if (spec.plan.connect_via_broker) {
    if (!events) return fail_session(o, 125, "a filtered network in the landlock tier needs the session's directory");
    relay.emplace(*events);
  }
  std::optional<ControlServer> control;
  if (events && !o.control_socket.empty()) {
    control.emplace(*events, ControlServer::Handlers{[&] { stop_requested = true; },
                                                     [&](const std::string& id, session::AskAnswer a) -> Status {
                                                       if (!relay) return bad_input("this session's network is off: it raises no asks");
                                                       return relay->answer(id, a);
                                                     },
                                                     [&] {
                                                       return relay ? relay->pending_asks() : std::vector<session::PendingAsk>{};
                                                     },
                                                     // The helper's children: the agent and, as the
                                                     // subreaper, every orphan of its tree.
                                                     [&] {
                                                       return session::encode_usage_reply(measure_usage(
                                                           *leaf, ::getpid(), /*include_root=*/false,
                                                           spec.plan.cgroup, spec.plan.rlimits));
                                                     }});
    if (auto s = control->listen(o.control_socket); !s) return fail_session(o, s.error().exit_code(), s.error().message);
  }

  const sigset_t mask = watched_signals();
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask);
  const auto unblocked_fail = [&](const std::string& why) {
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return fail_session(o, 125, why);
  };
  // The broker's socket now; its threads only once the agent is forked (a fork copies the
  // calling thread only, and the agent's last steps must not find a lock another thread held).
  BrokerListener broker;
  platform::UniqueFd pass_parent, pass_agent;  // the seccomp listener's way out of the agent
  if (relay) {
    auto listener = listen_for_broker();
    if (!listener) return unblocked_fail(listener.error().message);
    broker = std::move(listener.value());
  }
  if (spec.plan.answer_connect) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
      return unblocked_fail(sys_error("socketpair").message);
    pass_parent.reset(pair[0]);
    pass_agent.reset(pair[1]);
  }
  int sync[2], err[2];
  if (::pipe2(sync, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    return fail_session(o, 125, sys_error("pipe").message);
  // The helper reaps the agent and, as the subreaper, every process orphaned in its tree: what
  // its children used from here on is the agent's tree's usage (the probe's forks came before).
  rusage reaped_before{};
  ::getrusage(RUSAGE_CHILDREN, &reaped_before);
  const pid_t agent = ::fork();
  if (agent < 0) return fail_session(o, 125, sys_error("fork").message);
  if (agent == 0) {
    ::close(sync[1]);
    ::close(err[0]);
    pass_parent.reset();
    ::setpgid(0, 0);
    agent_main(spec, landlock, *filter, env, old_mask, sync[0], err[1], pass_agent.valid() ? pass_agent.get() : -1);
  }
  ::close(sync[0]);
  ::close(err[1]);
  pass_agent.reset();
  ::setpgid(agent, agent);
  // The terminal's foreground group becomes the agent's, so that it reads the terminal and gets
  // its ^C; given back at the end.
  const bool foreground = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
  if (foreground) ::tcsetpgrp(STDIN_FILENO, agent);
  Status placed = leaf->active() ? leaf->add(agent) : Status::Ok();
  if (placed.ok()) (void)!::write(sync[1], "x", 1);
  ::close(sync[1]);
  std::string setup_error;
  char buf[512];
  for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    setup_error.append(buf, static_cast<std::size_t>(n));
  }
  ::close(err[0]);
  if (!placed.ok()) setup_error = placed.error().message;
  // The agent sent its filter's listener before exec: the helper answers its connect(2) calls
  // from here on (they wait until then).
  std::unique_ptr<ConnectRedirect> redirect;
  if (spec.plan.answer_connect && setup_error.empty()) {
    char tag = 0;
    platform::UniqueFd listener;
    RedirectTargets targets;
    targets.host_ports.insert(spec.plan.host_ports.begin(), spec.plan.host_ports.end());
    // One event per connection to a host port, as the namespace tier's relay says it.
    if (events)
      targets.on_host_port = [&ev = *events](std::uint16_t port) { ev.emit(host_port_event(port)); };
    if (platform::receive_message(pass_parent.get(), &tag, 1, &listener, MSG_DONTWAIT) != 1 || !listener.valid()) {
      setup_error = "the agent's seccomp listener did not reach the helper";
    } else if (auto r = start_brokered_connects(relay ? &*relay : nullptr, std::move(broker), o.egress,
                                                std::move(listener), std::move(targets));
               !r) {
      setup_error = r.error().message;
    } else {
      redirect = std::move(r.value());
    }
    // Without an answer the agent's connect(2) calls would wait: it cannot go on.
    if (!redirect) ::kill(-agent, SIGKILL);
  }
  pass_parent.reset();

  SessionEnd end;
  end.attested = files.has_value();
  end.setup_failed = !setup_error.empty();
  std::optional<int> agent_status;
  rusage agent_usage{};
  if (events) {
    session::SessionStarted started = o.started;
    started.session_id = o.session_id;
    started.command = spec.argv;
    started.helper_pid = ::getpid();
    events->emit(session::make_event(started));
  }
  if (!end.setup_failed) {
    ChildWatch watch;
    watch.child = agent;
    if (o.timeout_secs) watch.deadline = t0 + std::chrono::seconds(*o.timeout_secs);
    watch.control = control ? &*control : nullptr;
    watch.stop_requested = &stop_requested;
    watch.kill = [&] {
      ::kill(-agent, SIGKILL);
      leaf->kill_all();
    };
    const ChildEnd watched = watch_child(watch);
    agent_status = watched.status;
    agent_usage = watched.usage;
    end.timed_out = watched.timed_out;
    end.stopped = watched.stopped;
  }
  if (control) control->close_all();
  leaf->kill_all();
  const long swept = sweep(agent, agent_status, agent);
  if (redirect) redirect->stop();
  if (relay) relay->stop();
  if (foreground) {
    ::signal(SIGTTOU, SIG_IGN);
    ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (swept > 0)
    std::fprintf(stderr, "paddock: killed %ld process%s that left the agent's process group\n", swept, swept == 1 ? "" : "es");
  // Nothing of the session runs any more: what it left in the agents' settings is final.
  std::vector<session::ConfigChange> config_changes = configs.changes();
  announce_config_changes(events ? &*events : nullptr, config_changes);
  rusage reaped_after{};
  ::getrusage(RUSAGE_CHILDREN, &reaped_after);
  session::Usage tree_usage = usage_of(reaped_after);
  tree_usage.cpu_ms -= usage_of(reaped_before).cpu_ms;
  // The largest child's peak; one from before the agent (a probe's fork) is not the agent's.
  if (reaped_after.ru_maxrss <= reaped_before.ru_maxrss) tree_usage.max_rss = usage_of(agent_usage).max_rss;
  end.agent_wait_status = end.setup_failed ? std::nullopt : agent_status;
  end.init_wait_status = agent_status.value_or(0);
  const SessionVerdict verdict = judge_session(end);
  if (end.setup_failed) std::fprintf(stderr, "paddock: %s\n", setup_error.c_str());
  if (files) {
    session::Report r = report_of(
        o.session_id, verdict, end, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(),
        platform::utc_timestamp(), end.setup_failed ? setup_error : std::string());
    r.usage = tree_usage;
    r.config_changes = std::move(config_changes);
    if (events) emit_report(*events, std::move(r), *files);
    else (void)files->publish_report(session::encode_report(r));
  }
  if (tmpdir.rfind("/tmp/paddock-tmpdir-", 0) == 0) std::filesystem::remove_all(tmpdir);
  return verdict.exit_code;
}

}  // namespace paddock::helper
