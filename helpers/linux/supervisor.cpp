#include "helpers/linux/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string_view>
#include <tuple>

#include "engine/session/event.h"
#include "engine/session/init_message.h"
#include "engine/session/record_json.h"
#include "engine/session/report.h"
#include "helpers/common/event_log.h"
#include "helpers/linux/cgroup_leaf.h"
#include "helpers/linux/control_server.h"
#include "helpers/linux/idmapped_grants.h"
#include "helpers/linux/placeholders.h"
#include "helpers/linux/sandbox_child.h"
#include "helpers/linux/seccomp_apply.h"
#include "helpers/linux/session_relay.h"
#include "platform/atomic_file.h"
#include "platform/fd_passing.h"
#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

using nlohmann::json;
using session::EventType;
using session::InitMessageType;
using session::make_event;
using session::Report;
using session::ReportStatus;
using Clock = std::chrono::steady_clock;

constexpr auto kStopGrace = std::chrono::seconds(2);

// clone3's argument (Linux 5.7 layout, with cgroup); glibc 2.36 has no wrapper.
struct CloneArgs {
  std::uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
      set_tid_size, cgroup;
};
constexpr std::uint64_t kCloneIntoCgroup = 0x200000000ULL;

// /proc/<pid>/{uid_map,gid_map,setgroups} take exactly one write(2) each: no temp file here.
Status write_proc(const std::string& path, const std::string& value) {
  platform::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || ::write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size()))
    return refused(std::string("cannot write ") + path + ": " + std::strerror(errno));
  return Status::Ok();
}

Status write_id_maps(pid_t pid) {
  const std::string base = "/proc/" + std::to_string(pid);
  // Unprivileged callers must give up setgroups before they may write a gid map; root does too,
  // so the agent can never drop its supplementary groups to slip past a group-deny ACL.
  if (auto s = write_proc(base + "/setgroups", "deny"); !s) return s;
  if (auto s = write_proc(base + "/uid_map", std::to_string(geteuid()) + " " +
                                                             std::to_string(geteuid()) + " 1\n");
      !s)
    return s;
  return write_proc(base + "/gid_map", std::to_string(getegid()) + " " +
                                                       std::to_string(getegid()) + " 1\n");
}

// A session file staged ahead of time, while the sandbox builds its view: the platform writer
// in its two steps (platform/atomic_file.h). The temporary is created (an inode allocation, 0.1
// to several ms on a busy disk) and filled early, and can be synced early too (file()), so that
// publishing it on the path to the agent's exec or at the session's end is the rest of its bytes,
// a rename and a directory sync. A file that could not be staged is written whole when published.
class StagedFile {
 public:
  void stage(const std::string& path, const std::string& prefill = "") {
    path_ = path;
    staged_ = prefill;
    if (!file_.open(path).ok()) return;
    if (!prefill.empty() && !file_.write(prefill).ok()) file_.discard();
  }

  bool staged() const { return !path_.empty(); }
  platform::AtomicFile* file() { return &file_; }

  Status publish(const std::string& rest = "") {
    if (!file_.is_open()) return platform::write_file_atomic(path_, staged_ + rest);
    if (!rest.empty())
      if (auto s = file_.write(rest); !s.ok()) return s;
    return file_.commit();
  }

 private:
  std::string path_, staged_;
  platform::AtomicFile file_;
};

struct Outcome {
  std::string setup_error;
  std::string exec_error;
  bool attested = false;
  bool have_exit = false;
  bool init_timed_out = false;  // init's own wall-time keeper ended the session (see sandbox_child)
  int agent_status = 0;
  long pids = 0;
  // Init's account of the agent's whole tree, which it has reaped before it reports the end.
  std::optional<long> cpu_ms, max_rss;
  bool left_cgroup = false;  // init moved itself out of the (now empty) cgroup leaf
};

void report_error_line(const std::string& message) {
  const std::string line = "paddock: " + message + "\n";
  std::fputs(line.c_str(), stderr);
}

// session_ended, then report.json. The folded events still pending are written first, and the
// report counts the events the log's cap kept out of the file.
void emit_report(const SessionOptions& o, EventLog& events, Report report, StagedFile* staged = nullptr) {
  events.flush();
  report.events_dropped = events.dropped();
  events.emit(session::session_ended_event(report));
  const std::string bytes = session::encode_report(report);
  if (staged) (void)staged->publish(bytes);
  else (void)platform::write_file_atomic(o.session_dir + "/report.json", bytes);
}

long ms_since(Clock::time_point t0) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

}  // namespace

int fail_session(const SessionOptions& o, int code, const std::string& message) {
  report_error_line(message);
  if (o.session_dir.empty()) return code;
  EventLog events(o.session_dir + "/events.jsonl");
  events.emit(session::notice_event("error", message));
  Report r;
  r.session_id = o.session_id;
  r.status = ReportStatus::kFailed;
  r.exit_code = code;
  r.error = message;
  r.ended = utc_timestamp();
  emit_report(o, events, std::move(r));
  return code;
}

int run_session(const SandboxSpec& spec, const SessionOptions& o) {
  const auto t0 = Clock::now();
  EventLog events(o.session_dir + "/events.jsonl");
  const auto& plan = spec.plan;

  if (plan.proxy.enabled && !relay_available())
    return fail_session(o, 125, "egress relay not built into this helper; run with --net off");
  auto leaf = CgroupLeaf::create(plan.cgroup, o.session_id);
  if (!leaf) return fail_session(o, 125, leaf.error().message);

  // A protected path that is absent gets a placeholder on the host for the session's duration;
  // the shared lock of the registry keeps the last session out from removing one still in use.
  PlaceholderRegistry placeholders;
  const bool makes_placeholders = std::any_of(plan.mounts.begin(), plan.mounts.end(), [](const auto& m) {
    return m.op == linux_backend::MountOp::kProtectAbsentDir || m.op == linux_backend::MountOp::kProtectAbsentFile;
  });
  if (makes_placeholders) {
    auto r = PlaceholderRegistry::open(o.placeholders_dir);
    if (!r) return fail_session(o, 125, r.error().message);
    placeholders = std::move(*r);
  }

  // A root caller's read-only grants are idmapped (root's files show as nobody's), which only
  // this process, before the sandbox exists, may do.
  std::vector<platform::UniqueFd> prepared_trees;
  std::vector<int> prepared;
  if (plan.idmap_read_roots) {
    auto trees = prepare_idmapped_grants(plan.mounts);
    if (!trees) return fail_session(o, 125, trees.error().message);
    prepared_trees = std::move(*trees);
    for (const auto& t : prepared_trees) prepared.push_back(t.get());
  }

  bool stop_requested = false;
  SessionRelay relay(events);
  ControlServer control(events, {[&] { stop_requested = true; },
                                 [&](const std::string& id, const std::string& d) { return relay.answer(id, d); },
                                 [&] { return relay.pending_asks(); }});

  // The helper handles these itself: SIGTERM/SIGHUP stop the session; SIGINT from the terminal
  // reaches the agent directly (same process group) and must not kill the helper first.
  sigset_t sigs;
  sigemptyset(&sigs);
  for (int sig : {SIGTERM, SIGHUP, SIGINT, SIGQUIT}) sigaddset(&sigs, sig);
  sigset_t old_mask;
  ::sigprocmask(SIG_BLOCK, &sigs, &old_mask);
  // A sandbox that died during its setup closes its end of the release pipe: writing to it must
  // fail with EPIPE (and the session report the cause), not kill the helper unreported. The
  // agent gets SIGPIPE's default back before exec (sandbox_child).
  ::signal(SIGPIPE, SIG_IGN);
  platform::UniqueFd sigfd(::signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK));

  int sp[2], sync[2], fp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0 || ::pipe2(sync, O_CLOEXEC) != 0 ||
      ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fp) != 0)
    return fail_session(o, 125, std::string("socketpair: ") + std::strerror(errno));
  platform::UniqueFd report(sp[0]), report_child(sp[1]), sync_rd(sync[0]), sync_wr(sync[1]), filter(fp[0]),
      filter_child(fp[1]);
  void* shared = ::mmap(nullptr, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return fail_session(o, 125, std::string("mmap: ") + std::strerror(errno));
  long* reaped = static_cast<long*>(shared);
  *reaped = 0;

  unsigned long flags = SIGCHLD;
  if (plan.namespaces.user) flags |= CLONE_NEWUSER;
  if (plan.namespaces.mount) flags |= CLONE_NEWNS;
  if (plan.namespaces.pid) flags |= CLONE_NEWPID;
  if (plan.namespaces.ipc) flags |= CLONE_NEWIPC;
  if (plan.namespaces.uts) flags |= CLONE_NEWUTS;
  // No CLONE_NEWNET here: init makes its network namespace itself, on a second thread that
  // starts while this process writes the id maps and runs on while init builds the mount view,
  // because setting one up is ~0.7 ms of kernel work (the loopback device, sysctl tables,
  // netfilter) that would otherwise sit between the clone and the view. Nothing runs in the
  // sandbox before that: the agent is forked only after the view, the namespace and the filter.
  // A raw clone (fork semantics, new namespaces) so that the child is PID 1 of its namespace.
  // With a v2 leaf, clone3 starts it inside the leaf (no migration afterwards).
  bool in_leaf = false;
  pid_t pid = -1;
  if (std::string v2 = leaf->v2_dir(); !v2.empty()) {
    platform::UniqueFd cg(::open(v2.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    CloneArgs args{};
    args.flags = (flags & ~0xffUL) | kCloneIntoCgroup;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(cg.get());
    if (cg.valid()) {
      pid = static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
      in_leaf = pid >= 0;
      // Older kernels (no clone3 or no CLONE_INTO_CGROUP): plain clone, then migrate.
      if (pid < 0 && errno != ENOSYS && errno != E2BIG && errno != EINVAL)
        return fail_session(o, 125, std::string("clone3 (new namespaces): ") + std::strerror(errno));
    }
  }
  // A v1 leaf: init moves itself in, first thing (sandbox_init_main), and out at the end,
  // through the `tasks` files opened here. Where they cannot be opened, this process moves init in
  // after the clone, and waits for init's exit before it removes the leaf.
  std::vector<platform::UniqueFd> join_files, leave_files;
  CgroupHandoff handoff;
  if (leaf->active() && !in_leaf) {
    auto join = leaf->open_v1_tasks_files();
    auto leave = leaf->open_v1_tasks_files(/*of_parent=*/true);
    if (join && leave) {
      join_files = std::move(*join);
      leave_files = std::move(*leave);
      for (const auto& f : join_files) handoff.join.push_back(f.get());
      for (const auto& f : leave_files) handoff.leave.push_back(f.get());
    }
  }
  if (!in_leaf) pid = static_cast<pid_t>(::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
  if (pid < 0) return fail_session(o, 125, std::string("clone (new namespaces): ") + std::strerror(errno));
  if (pid == 0) {
    report.reset();
    sync_wr.reset();
    filter.reset();
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    sandbox_init_main(spec, report_child.get(), sync_rd.get(), filter_child.get(), handoff, prepared, reaped);
  }
  prepared_trees.clear();
  join_files.clear();
  leave_files.clear();
  report_child.reset();
  sync_rd.reset();
  filter_child.reset();
  platform::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));

  auto abort_start = [&](const std::string& message) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
    // Init makes its network namespace while the id maps are written: if that failed first, the
    // maps failed only because init was gone, and init's own message names the cause.
    char text[4096];
    ssize_t n = ::recv(report.get(), text, sizeof text, MSG_DONTWAIT);
    auto early = n > 0 ? session::decode_init_message(std::string_view(text, static_cast<std::size_t>(n)))
                       : Result<session::InitMessage>(Error{});
    if (early.ok() && early->type == InitMessageType::kSetupFailed) return fail_session(o, 125, early->message);
    return fail_session(o, 125, message);
  };
  if (!pidfd.valid()) return abort_start(std::string("pidfd_open: ") + std::strerror(errno));
  if (plan.namespaces.user)
    if (auto s = write_id_maps(pid); !s) return abort_start(s.error().message);
  char go = 1;
  if (::write(sync_wr.get(), &go, 1) != 1) return abort_start("cannot release the sandbox");
  sync_wr.reset();
  // From here until the filter arrives init builds the sandbox on the other core. The agent it
  // then starts executes only after this process has answered its readiness (the attestation is
  // stored, in the loop below): every failure until then still means the agent never started (125).
  if (!o.control_socket.empty())
    if (auto s = control.listen(o.control_socket); !s) return abort_start(s.error().message);
  // First what init waits for: move init into the cgroup leaf where neither clone3 nor init itself
  // could put it there (a migration of another process costs the kernel an RCU grace period,
  // ~10 ms on cgroup v1), then compile and send the seccomp filter. Init forks the agent only after
  // the filter arrives, which is after the migration: the agent always starts inside the leaf (a
  // filter that cannot be built: length 0, init fails setup, and the session reports this error).
  if (leaf->active() && !in_leaf && handoff.join.empty())
    if (auto s = leaf->add(pid); !s) return abort_start(s.error().message);
  std::string filter_error;
  {
    auto program = compile_seccomp(plan.seccomp, plan.socket_families_allowed);
    if (!program) filter_error = program.error().message;
    const std::uint32_t bytes = program ? static_cast<std::uint32_t>(program->size() * sizeof(sock_filter)) : 0;
    std::string frame(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    if (program) frame.append(reinterpret_cast<const char*>(program->data()), bytes);
    // Blocking is fine: the agent reads the whole frame first thing. If the sandbox died
    // already, the send fails (no SIGPIPE) and the outcome is read from the report socket.
    for (std::size_t off = 0; off < frame.size();) {
      ssize_t n = ::send(filter.get(), frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    filter.reset();
  }
  // Then the session's files, each a new inode (0.1 to several ms on this machine's disk), while
  // init finishes the view and the agent sets itself up: the session's own records where the
  // caller left them to this process (the IR it was given and the plan whose hash it checked,
  // byte for byte: sha256sum plan.json is the plan hash), the first event, and the attestation as
  // the session will store it. Init reports readiness with exactly these bytes
  // (spec.attestation_json); this process publishes its staged copy then, instead of parsing the
  // message back on the path to the agent's exec. report.json is staged once the agent runs.
  //
  // Each record is synced before it is renamed into place (a sync is a few ms on a plain disk):
  // the three syncs run at once, and the attestation's commit, before the agent is answered,
  // syncs the directory once for all three renames.
  platform::AtomicFile ir_out, plan_out;
  for (auto [file, name, bytes] : {std::tuple<platform::AtomicFile*, const char*, const std::string*>{
                                       &ir_out, "ir.json", &o.record_ir},
                                   {&plan_out, "plan.json", &o.record_plan}})
    if (!bytes->empty()) {
      Status s = file->open(o.session_dir + "/" + name);
      if (s.ok()) s = file->write(*bytes);
      if (!s.ok()) return abort_start(s.error().message);
    }
  session::SessionStarted started = o.started;
  started.session_id = o.session_id;
  started.command = spec.argv;
  started.helper_pid = getpid();
  events.emit(session::session_started_event(started));
  json attestation = json::parse(spec.attestation_json, nullptr, false);
  StagedFile attestation_out, report_out;
  attestation_out.stage(o.session_dir + "/attestation.json", session::dump_record(attestation, 2) + "\n");
  if (auto s = platform::sync_all({&ir_out, &plan_out, attestation_out.file()}); !s) return abort_start(s.error().message);
  for (platform::AtomicFile* f : {&ir_out, &plan_out})
    if (f->is_open())
      if (auto s = f->commit(platform::DirSync::kByCaller); !s) return abort_start(s.error().message);
  // What init sends once everything is applied, from the same encoder: recognised byte for byte.
  const std::string readiness = session::encode_init_message(session::InitMessage::ready(spec.attestation_json));

  Outcome out;
  std::optional<Clock::time_point> deadline, kill_deadline;
  if (o.timeout_secs) deadline = t0 + std::chrono::seconds(*o.timeout_secs);
  bool timed_out = false, stopping = false, init_done = false, init_reaped = true;
  // Room for the largest report message, left uninitialised: zero-filling 1 MiB cost 256 page
  // faults per session, and recvmsg only touches the pages a message fills.
  constexpr std::size_t kReportMax = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kReportMax]);

  std::vector<Placeholder> made;
  auto record_placeholders = [&] {
    if (made.empty()) return;
    if (auto s = placeholders.record(made); !s)
      events.emit(session::notice_event(
          "warning", std::to_string(made.size()) + " placeholders (" + made.front().path +
                         ", ...) could not be recorded for removal: " + s.error().message));
    made.clear();
  };
  auto read_reports = [&] {
    for (;;) {
      platform::UniqueFd passed_fd;
      const ssize_t n = platform::receive_message(report.get(), buf.get(), kReportMax, &passed_fd, MSG_DONTWAIT);
      if (n <= 0) return;
      auto msg = session::decode_init_message(std::string_view(buf.get(), static_cast<std::size_t>(n)), readiness);
      if (!msg.ok()) {
        // Only Paddock's own init writes here: anything else means the sandbox is not as built.
        out.setup_error = msg.error().message;
        stop_requested = true;
        continue;
      }
      switch (msg->type) {
        case InitMessageType::kSetupFailed: out.setup_error = msg->message; break;
        case InitMessageType::kProxyListen:
          if (!passed_fd.valid()) break;
          if (auto s = relay.start(std::move(passed_fd), o.egress); !s) {
            out.setup_error = s.error().message;
            stop_requested = true;
          }
          break;
        case InitMessageType::kAttestation: {
          if (out.attested) break;
          // The agent waits for this answer before its exec: attestation.json, the session's
          // record of what was applied, is in place first. The event (advisory) follows the answer.
          const Status stored = attestation_out.publish();
          if (!stored.ok())
            out.setup_error = "cannot store " + o.session_dir + "/attestation.json: " + stored.error().message +
                              "; the agent was not started";
          const char answer = stored.ok() ? session::kStoredAnswer : session::kNotStoredAnswer;
          (void)::send(report.get(), &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
          if (stored.ok()) {
            out.attested = true;
            events.emit(make_event(EventType::kAttestation, {{"attestation", std::move(attestation)}}));
          }
          // While the agent runs: the placeholders' record (it is for tidying up, not for the
          // boundary, so it need not delay the agent), the report's temporary, and the leaves
          // earlier sessions left.
          record_placeholders();
          report_out.stage(o.session_dir + "/report.json");
          leaf->sweep_stale_siblings();
          break;
        }
        case InitMessageType::kPlaceholders:
          for (const auto& p : msg->placeholders) made.push_back({p.path, p.dir, p.dev, p.ino});
          break;
        case InitMessageType::kExecFailed: out.exec_error = msg->message; break;
        case InitMessageType::kDeadline: out.init_timed_out = true; break;  // init's own wall-time keeper
        case InitMessageType::kExit:
          out.have_exit = true;
          out.init_timed_out = out.init_timed_out || msg->timed_out;
          out.agent_status = msg->status;
          out.pids = static_cast<long>(msg->pids);
          if (msg->cpu_ms && msg->max_rss) {
            out.cpu_ms = static_cast<long>(*msg->cpu_ms);
            out.max_rss = static_cast<long>(*msg->max_rss);
          }
          out.left_cgroup = msg->left_cgroup;
          break;
      }
    }
  };

  while (!init_done) {
    std::vector<pollfd> fds = {{report.get(), POLLIN, 0}, {pidfd.get(), POLLIN, 0}, {sigfd.get(), POLLIN, 0}};
    control.add_poll_fds(fds);
    int wait_ms = -1;
    // Folded events are written when their window closes; the broker's threads add them while
    // this loop may be waiting, so with a relay it wakes at least once a second.
    if (plan.proxy.enabled || events.pending()) wait_ms = 1000;
    for (const auto& d : {deadline, kill_deadline})
      if (d) {
        long ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d - Clock::now()).count();
        ms = std::max(0L, ms) + 1;
        wait_ms = wait_ms < 0 ? static_cast<int>(ms) : std::min(wait_ms, static_cast<int>(ms));
      }
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents) read_reports();
    if (fds[2].revents & POLLIN) {
      signalfd_siginfo si{};
      while (::read(sigfd.get(), &si, sizeof si) == sizeof si)
        if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) stop_requested = true;
    }
    control.handle(fds);
    events.flush_due();
    if (fds[1].revents & POLLIN) init_done = true;
    // Init reports the end only after it has killed and reaped everything else in its namespace,
    // with the tree's usage: nothing of the sandbox runs any more. What is left is the kernel's
    // teardown of init and its namespaces (0.3 to 0.6 ms here, more under load), which this
    // process need not wait for, as bwrap's outer process does not; init, no longer waited
    // for, is reaped by whoever adopts it. A cgroup leaf can only be removed once init has
    // left it: init moves itself out before it reports (v1); otherwise the helper still waits.
    if (out.have_exit && out.cpu_ms && (!leaf->active() || out.left_cgroup)) {
      init_done = true;
      init_reaped = false;
    }
    auto now = Clock::now();
    // Once init has reported the end (the agent exited, or init's own wall-time keeper fired while
    // this process was stopped), the deadline is not this process's to act on: it only waits for
    // init to be gone, and the report says who ended the session. A poll that returned without
    // the reports (interrupted as this process was stopped and resumed) must not hide that end:
    // they are read once more before the deadline is acted on.
    auto deadline_is_ours = [&] {
      return !init_done && !out.have_exit && !out.init_timed_out && deadline && now >= *deadline && !timed_out;
    };
    if (deadline_is_ours()) read_reports();
    if (deadline_is_ours()) {
      timed_out = true;
      events.emit(make_event(EventType::kLimitHit, {{"limit", "wall_time"}, {"value_secs", *o.timeout_secs}}));
      ::kill(pid, SIGKILL);  // init's death takes the whole PID namespace with it
      leaf->kill_all();
    }
    if (!init_done && stop_requested && !stopping) {
      stopping = true;
      events.emit(session::notice_event("info", "stop requested"));
      ::kill(pid, SIGTERM);  // init forwards it to the agent; SIGKILL follows after the grace
      kill_deadline = now + kStopGrace;
    }
    if (!init_done && kill_deadline && now >= *kill_deadline) {
      ::kill(pid, SIGKILL);
      leaf->kill_all();
      kill_deadline.reset();
    }
  }

  int init_status = 0;
  rusage ru{};
  if (init_reaped) {
    while (::wait4(pid, &init_status, 0, &ru) < 0 && errno == EINTR) {}
    read_reports();
  }
  if (out.init_timed_out && !timed_out) {
    timed_out = true;
    events.emit(make_event(EventType::kLimitHit, {{"limit", "wall_time"}, {"value_secs", o.timeout_secs.value_or(0)},
                                                  {"enforced_by", "sandbox init (the helper did not act in time)"}}));
  }
  long live = leaf->process_count();
  leaf->kill_all();
  relay.stop();
  control.close_all();
  if (!filter_error.empty()) out.setup_error = filter_error;  // the cause, not the agent's echo of it
  if (!out.setup_error.empty()) report_error_line(out.setup_error);
  if (!out.exec_error.empty()) report_error_line(out.exec_error);

  int code = 0, signal_no = 0;
  ReportStatus status = ReportStatus::kExited;
  if (!out.setup_error.empty()) {
    code = 125;
    status = ReportStatus::kFailed;
  } else if (timed_out) {
    code = 124;
    status = ReportStatus::kTimeout;
  } else if (out.have_exit) {
    if (WIFSIGNALED(out.agent_status)) signal_no = WTERMSIG(out.agent_status);
    code = WIFEXITED(out.agent_status) ? WEXITSTATUS(out.agent_status) : 128 + signal_no;
    if (stopping) status = ReportStatus::kStopped;
  } else {
    signal_no = WIFSIGNALED(init_status) ? WTERMSIG(init_status) : 0;
    code = WIFEXITED(init_status) ? WEXITSTATUS(init_status) : 128 + signal_no;
    status = stopping ? ReportStatus::kStopped : ReportStatus::kFailed;
  }
  if (!out.attested && status == ReportStatus::kExited) status = ReportStatus::kFailed;

  std::vector<std::string> hits = leaf->limits_hit();
  if (signal_no == SIGXCPU) hits.push_back("cpu_seconds");
  if (signal_no == SIGXFSZ) hits.push_back("file_size");
  for (const auto& h : hits) events.emit(make_event(EventType::kLimitHit, {{"limit", h}}));
  const long reaped_total = *reaped;
  ::munmap(shared, sizeof(long));

  // Init's account of the agent's tree where it gave one; else (init died early, or was killed)
  // what the kernel reports for init and everything it reaped.
  const long cpu_ms = out.cpu_ms.value_or((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000L +
                                          (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000L);
  const long max_rss = out.max_rss.value_or(static_cast<long>(ru.ru_maxrss) * 1024);
  Report r;
  r.session_id = o.session_id;
  r.status = status;
  r.exit_code = code;
  if (signal_no) r.signal = signal_no;
  r.duration_ms = ms_since(t0);
  r.attested = out.attested;
  r.limits_hit = hits;
  r.usage = {cpu_ms, max_rss, std::max(out.pids, reaped_total) + live};
  r.ended = utc_timestamp();
  if (!out.setup_error.empty()) r.error = out.setup_error;
  else if (!out.exec_error.empty()) r.error = out.exec_error;
  emit_report(o, events, std::move(r), report_out.staged() ? &report_out : nullptr);
  leaf->remove();
  record_placeholders();  // a sandbox that never reached its agent made them too
  placeholders.sweep();  // the sandbox is gone: nothing of this session holds a placeholder
  return code;
}

}  // namespace paddock::helper
