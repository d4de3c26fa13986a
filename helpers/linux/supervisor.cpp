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
#include <string_view>

#include "engine/json_text.h"
#include "engine/session/event.h"
#include "engine/session/init_message.h"
#include "engine/session/record_json.h"
#include "engine/session/report.h"
#include "helpers/common/event_log.h"
#include "helpers/linux/agent_config_watch.h"
#include "helpers/linux/agent_state_layers.h"
#include "helpers/linux/cgroup_leaf.h"
#include "helpers/linux/control_server.h"
#include "helpers/linux/host_ports.h"
#include "helpers/linux/idmapped_grants.h"
#include "helpers/linux/init_channel.h"
#include "helpers/linux/placeholders.h"
#include "helpers/linux/port_forward.h"
#include "helpers/linux/review_layers.h"
#include "helpers/linux/sandbox_child.h"
#include "helpers/linux/seccomp_apply.h"
#include "helpers/linux/session_audit.h"
#include "helpers/linux/session_end.h"
#include "helpers/linux/session_files.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/tree_usage.h"
#include "platform/atomic_file.h"
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
constexpr int kRefusedExit = exit_code(ErrorCode::kRefused);

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

void report_error_line(const std::string& message) {
  const std::string line = "paddock: " + message + "\n";
  std::fputs(line.c_str(), stderr);
}

long ms_since(Clock::time_point t0) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

// What this process holds on the host for the session before the sandbox exists.
struct HostSide {
  CgroupLeaf leaf;
  // A protected path that is absent gets a placeholder on the host for the session's duration;
  // the shared lock of the registry keeps the last session out from removing one still in use.
  PlaceholderRegistry placeholders;
  // A root caller's read-only grants are idmapped (root's files show as nobody's), which only
  // this process, before the sandbox exists, may do.
  std::vector<platform::UniqueFd> prepared_trees;
  // The agents' settings as they are before the agent can write them.
  AgentConfigWatch configs;
  // Review mode: the overlays' upper and work directories in the session's directory.
  ReviewLayers review;
  // The agent's own state: this session's layers and the state's locks (docs/agents.md).
  AgentStateLayers agent_state;
  // Every overlay step's directories in plan order (review roots and agent directories).
  std::vector<OverlayDirs> overlays;
};

Result<HostSide> prepare_host(const linux_backend::LinuxPlan& plan, const SessionOptions& o) {
  auto leaf = CgroupLeaf::create(plan.cgroup, o.session_id);
  if (!leaf) return leaf.error();
  HostSide host{std::move(*leaf), {}, {}, AgentConfigWatch(o.watched_configs, o.home), {}, {}, {}};
  auto review = ReviewLayers::prepare(plan.mounts, o.session_dir);
  if (!review) return review.error();
  host.review = std::move(*review);
  auto state = AgentStateLayers::prepare(o.agent_state, plan.mounts, o.session_id);
  if (!state) return state.error();
  host.agent_state = std::move(*state);
  // Init takes the overlays' directories in plan order, whichever kind each step is.
  std::size_t next_review = 0, next_state = 0;
  for (const auto& m : plan.mounts) {
    if (m.op == linux_backend::MountOp::kOverlay && next_review < host.review.dirs().size())
      host.overlays.push_back(host.review.dirs()[next_review++]);
    if (m.op == linux_backend::MountOp::kAgentState && next_state < host.agent_state.dirs().size())
      host.overlays.push_back(host.agent_state.dirs()[next_state++]);
  }
  for (const auto& p : host.agent_state.problems()) report_error_line(p);
  const bool makes_placeholders =
      std::any_of(plan.mounts.begin(), plan.mounts.end(), [](const auto& m) { return makes_placeholder(m.op); });
  if (makes_placeholders) {
    auto r = PlaceholderRegistry::open(o.placeholders_dir);
    if (!r) return r.error();
    // Before the sandbox exists: a placeholder it finds (another session's) stays while it runs.
    if (auto s = r->hold(placeholder_candidates(plan.mounts)); !s) return s.error();
    host.placeholders = std::move(*r);
  }
  if (plan.idmap_read_roots) {
    auto trees = prepare_idmapped_grants(plan.mounts);
    if (!trees) return trees.error();
    host.prepared_trees = std::move(*trees);
  }
  return host;
}

// The helper's ends of init's three channels, and init's: the report socket (messages, and the
// go-ahead back), the release pipe (id maps written) and the filter stream.
struct Channels {
  platform::UniqueFd report, report_child, sync_rd, sync_wr, filter, filter_child;
};

Result<Channels> open_channels() {
  int sp[2], sync[2], fp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0 || ::pipe2(sync, O_CLOEXEC) != 0 ||
      ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fp) != 0)
    return refused(std::string("socketpair: ") + std::strerror(errno));
  Channels c;
  c.report.reset(sp[0]);
  c.report_child.reset(sp[1]);
  c.sync_rd.reset(sync[0]);
  c.sync_wr.reset(sync[1]);
  c.filter.reset(fp[0]);
  c.filter_child.reset(fp[1]);
  return c;
}

struct StartedInit {
  pid_t pid = -1;
  bool in_leaf = false;       // clone3 started it inside the v2 leaf
  bool joins_itself = false;  // it moves itself into the v1 leaf (and out at its end)
};

// Clones the sandbox's init (new namespaces; PID 1 of its own) and starts it on
// sandbox_init_main. Init's ends of the channels are closed here once it runs.
Result<StartedInit> start_init(const SandboxSpec& spec, CgroupLeaf& leaf, Channels& ch,
                               const std::vector<int>& prepared, const std::vector<OverlayDirs>& overlays, long* reaped,
                               const sigset_t& old_mask) {
  // Every sandbox gets every namespace (backends/linux/linux_plan.h).
  const unsigned long flags = SIGCHLD | CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  // No CLONE_NEWNET here: init makes its network namespace itself, on a second thread that
  // starts while this process writes the id maps and runs on while init builds the mount view,
  // because setting one up is ~0.7 ms of kernel work (the loopback device, sysctl tables,
  // netfilter) that would otherwise sit between the clone and the view. Nothing runs in the
  // sandbox before that: the agent is forked only after the view, the namespace and the filter.
  // A raw clone (fork semantics, new namespaces) so that the child is PID 1 of its namespace.
  // With a v2 leaf, clone3 starts it inside the leaf (no migration afterwards).
  StartedInit init;
  if (std::string v2 = leaf.v2_dir(); !v2.empty()) {
    platform::UniqueFd cg(::open(v2.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    CloneArgs args{};
    args.flags = (flags & ~0xffUL) | kCloneIntoCgroup;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<std::uint64_t>(cg.get());
    if (cg.valid()) {
      init.pid = static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
      init.in_leaf = init.pid >= 0;
      // Older kernels (no clone3 or no CLONE_INTO_CGROUP): plain clone, then migrate.
      if (init.pid < 0 && errno != ENOSYS && errno != E2BIG && errno != EINVAL)
        return refused(std::string("clone3 (new namespaces): ") + std::strerror(errno));
    }
  }
  // A v1 leaf: init moves itself in, first thing (sandbox_init_main), and out at the end,
  // through the `tasks` files opened here. Where they cannot be opened, the caller moves init in
  // after the clone, and waits for init's exit before it removes the leaf.
  std::vector<platform::UniqueFd> join_files, leave_files;
  CgroupHandoff handoff;
  if (leaf.active() && !init.in_leaf) {
    auto join = leaf.open_v1_tasks_files();
    auto leave = leaf.open_v1_tasks_files(/*of_parent=*/true);
    if (join && leave) {
      join_files = std::move(*join);
      leave_files = std::move(*leave);
      for (const auto& f : join_files) handoff.join.push_back(f.get());
      for (const auto& f : leave_files) handoff.leave.push_back(f.get());
    }
  }
  init.joins_itself = !handoff.join.empty();
  if (!init.in_leaf) init.pid = static_cast<pid_t>(::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
  if (init.pid < 0) return refused(std::string("clone (new namespaces): ") + std::strerror(errno));
  if (init.pid == 0) {
    ch.report.reset();
    ch.sync_wr.reset();
    ch.filter.reset();
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    sandbox_init_main(spec, ch.report_child.get(), ch.sync_rd.get(), ch.filter_child.get(), handoff, prepared, overlays,
                      reaped);
  }
  ch.report_child.reset();
  ch.sync_rd.reset();
  ch.filter_child.reset();
  return init;
}

// The filter as init expects it on its stream (sandbox_child.h): the length in bytes, then the
// program; length 0 when it could not be built (init then fails its setup). Returns the reason
// it could not be built, "" when it was.
std::string send_filter(platform::UniqueFd filter, const linux_backend::LinuxPlan& plan) {
  std::string filter_error;
  auto program = compile_seccomp(plan.seccomp.rules);
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
  return filter_error;
}

// The session from the moment its init runs: the messages from init, the signals this process
// takes, the control socket, the wall-time deadline and the stop, until nothing of the sandbox
// runs any more; then the report.
class Supervisor {
 public:
  Supervisor(const SandboxSpec& spec, const SessionOptions& o, Clock::time_point t0, EventLog& events,
             HostSide& host, std::vector<platform::UniqueFd> published)
      : spec_(spec), o_(o), t0_(t0), events_(events), host_(host), published_(std::move(published)), relay_(events),
        credentials_(events, o.credentials),
        control_(events, {[this] { stop_requested_ = true; },
                          [this](const std::string& id, session::AskAnswer a) { return relay_.answer(id, a); },
                          [this] { return relay_.pending_asks(); },
                          [this] { return session::encode_usage_reply(measure_usage(host_.leaf, init_pid_, true, spec_.plan.cgroup, spec_.plan.rlimits)); }}),
        files_(o.session_dir) {}

  ControlServer& control() { return control_; }
  SessionFiles& files() { return files_; }
  void set_attestation(json attestation) { attestation_ = std::move(attestation); }

  // Runs the session to its end once the filter is sent; returns the exit code of docs/cli.md.
  int run(InitChannel& init, pid_t pid, int pidfd, int sigfd, const std::string& filter_error, long* reaped);

 private:
  void read_init(InitChannel& init);
  void record_placeholders();
  void loop(InitChannel& init, pid_t pid, int pidfd, int sigfd);
  void check_review_space();

  const SandboxSpec& spec_;
  const SessionOptions& o_;
  Clock::time_point t0_;
  EventLog& events_;
  HostSide& host_;
  // The host's listening sockets for published ports, until init sends the network namespace
  // their connections go to; then the forwarder's.
  std::vector<platform::UniqueFd> published_;
  std::unique_ptr<PortForwarder> forward_;
  // The sandbox's listening sockets for host ports, as init sends them; relayed from readiness on.
  std::vector<platform::UniqueFd> host_port_listeners_;
  std::unique_ptr<HostPortRelay> host_ports_;
  SessionRelay relay_;
  CredentialRelay credentials_;
  ControlServer control_;
  SessionFiles files_;
  InitOutcome out_;
  json attestation_;
  pid_t init_pid_ = -1;  // on the host, for the usage answer
  bool stop_requested_ = false, timed_out_ = false, stopping_ = false, init_done_ = false, init_reaped_ = true;
  bool disk_full_ = false;  // review mode: the session's writes reached the disk's reserve
  Clock::time_point space_checked_{};
};

void Supervisor::record_placeholders() {
  std::vector<Placeholder>& made = out_.placeholders;
  if (made.empty()) return;
  if (auto s = host_.placeholders.record(made); !s)
    events_.emit(session::notice_event(
        "warning", std::to_string(made.size()) + " placeholders (" + made.front().path +
                       ", ...) could not be recorded for removal: " + s.error().message));
  made.clear();
}

void Supervisor::read_init(InitChannel& init) {
  while (auto received = init.next()) {
    switch (absorb_init_message(out_, received->message)) {
      case InitAction::kNone: break;
      case InitAction::kStop: stop_requested_ = true; break;
      case InitAction::kStartCredential:
        if (!received->passed.valid() || !received->message.ok()) break;
        if (auto s = credentials_.add_endpoint(received->message->message, std::move(received->passed)); !s) {
          out_.setup_error = s.error().message;
          stop_requested_ = true;
        }
        break;
      case InitAction::kStartRelay:
        if (!received->passed.valid()) break;
        if (auto s = relay_.start(std::move(received->passed), o_.egress); !s) {
          out_.setup_error = s.error().message;
          stop_requested_ = true;
        }
        break;
      case InitAction::kStartForward: {
        if (!received->passed.valid() || published_.empty()) break;
        auto started = PortForwarder::start(std::move(published_), std::move(received->passed),
                                            [this](json e) { events_.emit(std::move(e)); });
        if (started) {
          forward_ = std::move(*started);
        } else {
          out_.setup_error = started.error().message;
          stop_requested_ = true;
        }
        break;
      }
      case InitAction::kAddHostPort:
        if (received->passed.valid()) host_port_listeners_.push_back(std::move(received->passed));
        break;
      case InitAction::kStoreAttestation: {
        if (!host_port_listeners_.empty() && out_.setup_error.empty()) {
          auto started = HostPortRelay::start(std::move(host_port_listeners_), [this](json e) { events_.emit(std::move(e)); });
          host_port_listeners_.clear();
          if (started) host_ports_ = std::move(*started);
          else out_.setup_error = started.error().message;
        }
        // A relay or forwarder that could not start: the agent does not start either.
        if (!out_.setup_error.empty()) {
          init.answer(false);
          break;
        }
        // The agent waits for this answer before its exec: attestation.json, the session's
        // record of what was applied, is in place first. The event (advisory) follows the answer.
        const Status stored = files_.publish_attestation();
        if (!stored.ok())
          out_.setup_error = "cannot store " + o_.session_dir + "/attestation.json: " + stored.error().message +
                             "; the agent was not started";
        init.answer(stored.ok());
        if (stored.ok()) {
          out_.attested = true;
          if (auto record = attestation_from_json(attestation_); record.ok())
            events_.emit(make_event(session::AttestationStored{std::move(*record)}));
        }
        // While the agent runs: the placeholders' record (it is for tidying up, not for the
        // boundary, so it need not delay the agent), the report's temporary, and the leaves
        // earlier sessions left.
        record_placeholders();
        files_.stage_report();
        host_.leaf.sweep_stale_siblings();
        break;
      }
    }
  }
}

// Review mode holds the agent's writes in the session's directory, on the user's own disk: the
// session ends (limit_hit disk_space) before that disk is full, and nothing of the project is
// touched either way. A file system that fills up while the session runs only ends it; what the
// agent wrote so far stays to be reviewed.
void Supervisor::check_review_space() {
  if (!host_.review.active() || disk_full_ || init_done_) return;
  const auto now = Clock::now();
  if (now - space_checked_ < std::chrono::seconds(1)) return;
  space_checked_ = now;
  const auto left = host_.review.below_reserve();
  if (!left) return;
  disk_full_ = true;
  stop_requested_ = true;
  session::LimitHit hit;
  hit.limit = "disk_space";
  hit.free_bytes = static_cast<std::int64_t>(*left);
  hit.reserve_bytes = static_cast<std::int64_t>(host_.review.reserve_bytes());
  hit.path = host_.review.dir();
  events_.emit(make_event(hit));
  report_error_line("the disk that holds the session's changes for review (" + host_.review.dir() + ") has only " +
                    std::to_string(*left >> 20) + " MiB left: the session ends; what the agent wrote so far is "
                    "kept for review, and nothing reached the project");
}

void Supervisor::loop(InitChannel& init, pid_t pid, int pidfd, int sigfd) {
  std::optional<Clock::time_point> deadline, kill_deadline;
  if (o_.timeout_secs) deadline = t0_ + std::chrono::seconds(*o_.timeout_secs);
  while (!init_done_) {
    std::vector<pollfd> fds = {{init.fd(), POLLIN, 0}, {pidfd, POLLIN, 0}, {sigfd, POLLIN, 0},
                               {credentials_.fd(), POLLIN, 0}};  // -1 (ignored by poll) without credentials
    control_.add_poll_fds(fds);
    int wait_ms = -1;
    // Folded events are written when their window closes; the broker's threads add them while
    // this loop may be waiting, so with a relay it wakes at least once a second.
    // Review mode: the free space under the agent's writes is looked at once a second.
    if (spec_.plan.proxy.enabled || events_.pending() || host_.review.active()) wait_ms = 1000;
    for (const auto& d : {deadline, kill_deadline})
      if (d) {
        long ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d - Clock::now()).count();
        ms = std::max(0L, ms) + 1;
        wait_ms = wait_ms < 0 ? static_cast<int>(ms) : std::min(wait_ms, static_cast<int>(ms));
      }
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents) read_init(init);
    if (fds[2].revents & POLLIN) {
      signalfd_siginfo si{};
      while (::read(sigfd, &si, sizeof si) == sizeof si)
        if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) stop_requested_ = true;
    }
    if (fds[3].revents) credentials_.on_readable();
    control_.handle(fds);
    events_.flush_due();
    if (fds[1].revents & POLLIN) init_done_ = true;
    // Init reports the end only after it has killed and reaped everything else in its namespace,
    // with the tree's usage: nothing of the sandbox runs any more. What is left is the kernel's
    // teardown of init and its namespaces (0.3 to 0.6 ms here, more under load), which this
    // process need not wait for, as bwrap's outer process does not; init, no longer waited
    // for, is reaped by whoever adopts it. A cgroup leaf can only be removed once init has
    // left it: init moves itself out before it reports (v1); otherwise the helper still waits.
    if (out_.have_exit && out_.cpu_ms && (!host_.leaf.active() || out_.left_cgroup)) {
      init_done_ = true;
      init_reaped_ = false;
    }
    auto now = Clock::now();
    // Once init has reported the end (the agent exited, or init's own wall-time keeper fired while
    // this process was stopped), the deadline is not this process's to act on: it only waits for
    // init to be gone, and the report says who ended the session. A poll that returned without
    // the reports (interrupted as this process was stopped and resumed) must not hide that end:
    // they are read once more before the deadline is acted on.
    auto deadline_is_ours = [&] {
      return !init_done_ && !out_.have_exit && !out_.init_timed_out && deadline && now >= *deadline && !timed_out_;
    };
    if (deadline_is_ours()) read_init(init);
    if (deadline_is_ours()) {
      timed_out_ = true;
      events_.emit(make_event(session::LimitHit{"wall_time", *o_.timeout_secs, "", std::nullopt, std::nullopt, ""}));
      ::kill(pid, SIGKILL);  // init's death takes the whole PID namespace with it
      host_.leaf.kill_all();
    }
    check_review_space();
    if (!init_done_ && stop_requested_ && !stopping_) {
      stopping_ = true;
      events_.emit(session::notice_event("info", "stop requested"));
      ::kill(pid, SIGTERM);  // init forwards it to the agent; SIGKILL follows after the grace
      kill_deadline = now + kStopGrace;
    }
    if (!init_done_ && kill_deadline && now >= *kill_deadline) {
      ::kill(pid, SIGKILL);
      host_.leaf.kill_all();
      kill_deadline.reset();
    }
  }
}

int Supervisor::run(InitChannel& init, pid_t pid, int pidfd, int sigfd, const std::string& filter_error,
                    long* reaped) {
  init_pid_ = pid;
  loop(init, pid, pidfd, sigfd);
  int init_status = 0;
  rusage ru{};
  if (init_reaped_) {
    while (::wait4(pid, &init_status, 0, &ru) < 0 && errno == EINTR) {}
    read_init(init);
  }
  if (out_.init_timed_out && !timed_out_) {
    timed_out_ = true;
    events_.emit(make_event(session::LimitHit{"wall_time", o_.timeout_secs.value_or(0),
                                              "sandbox init (the helper did not act in time)", std::nullopt,
                                              std::nullopt, ""}));
  }
  long live = host_.leaf.process_count();
  host_.leaf.kill_all();
  if (forward_) forward_->stop();
  if (host_ports_) host_ports_->stop();
  relay_.stop();
  credentials_.stop();
  // Once the control socket is gone the session looks abandoned: the audit lock says it is not.
  if (o_.audit) o_.audit->hold_lock(o_.session_dir);
  control_.close_all();
  // Nothing of the sandbox runs any more: what its agent left in the agents' settings is final.
  // Each change is said on stderr too, where `paddock run` was started.
  std::vector<session::ConfigChange> config_changes = host_.configs.changes();
  announce_config_changes(&events_, config_changes);
  // Review mode: where the agent's writes are, said where `paddock run` was started; a session
  // whose agent never started leaves no layers behind.
  if (host_.review.active() && out_.attested)
    report_error_line("the agent's changes are held for review, nothing reached the project: paddock review " +
                      o_.session_id);
  else if (host_.review.active())
    host_.review.remove_unused();
  // Direct mode: what the session left in the write roots for a tool on the host to run, once
  // nothing of the sandbox can add to it; each finding said here too.
  if (o_.audit)
    o_.audit->finish({o_.session_id, o_.session_dir, o_.resources_dir, o_.layout ? &*o_.layout : nullptr}, events_,
                     config_changes, out_.attested);
  // The agent's writes to its own directories go into its state (committed now, unless another
  // session of the agent still runs: then the last one to end commits them).
  if (const std::string e = host_.agent_state.finish(); !e.empty())
    report_error_line("the agent's writes stay in this session's layer, to be kept by its next session: " + e);
  if (!filter_error.empty()) out_.setup_error = filter_error;  // the cause, not the agent's echo of it
  if (!out_.setup_error.empty()) report_error_line(out_.setup_error);
  if (!out_.exec_error.empty()) report_error_line(out_.exec_error);

  SessionEnd end;
  end.setup_failed = !out_.setup_error.empty();
  end.timed_out = timed_out_;
  end.stopped = stopping_;
  end.attested = out_.attested;
  if (out_.have_exit) end.agent_wait_status = out_.agent_status;
  end.init_wait_status = init_status;
  const SessionVerdict verdict = judge_session(end);

  std::vector<std::string> hits = host_.leaf.limits_hit();
  for (auto& h : limits_hit_by_signal(verdict.signal)) hits.push_back(std::move(h));
  for (const auto& h : hits) events_.emit(make_event(session::LimitHit{h, std::nullopt, "", std::nullopt, std::nullopt, ""}));
  if (disk_full_) hits.push_back("disk_space");  // its event, with the numbers, was emitted when it happened
  const long reaped_total = *reaped;

  // Init's account of the agent's tree where it gave one; else (init died early, or was killed)
  // what the kernel reports for init and everything it reaped.
  const session::Usage reaped_usage = usage_of(ru);
  const long cpu_ms = out_.cpu_ms.value_or(static_cast<long>(reaped_usage.cpu_ms));
  const long max_rss = out_.max_rss.value_or(static_cast<long>(reaped_usage.max_rss));
  Report r = report_of(o_.session_id, verdict, end, ms_since(t0_), utc_timestamp(),
                       !out_.setup_error.empty() ? out_.setup_error : out_.exec_error);
  r.limits_hit = hits;
  r.usage = {cpu_ms, max_rss, std::max(out_.pids, reaped_total) + live};
  r.config_changes = std::move(config_changes);
  record_placeholders();  // a sandbox that never reached its agent made them too
  // The sandbox is gone: nothing of this session holds a placeholder. What could not be removed
  // is said in the session's record and on stderr, never left silently.
  for (const std::string& problem : host_.placeholders.sweep()) {
    events_.emit(session::notice_event("warning", problem));
    report_error_line(problem);
  }
  r.credentials = credentials_.usage();
  if (!o_.credential_use_file.empty())
    if (auto s = record_credential_use(o_.credential_use_file, r.credentials, o_.session_id); !s)
      events_.emit(session::notice_event("warning", "the credentials' last use could not be recorded: " + s.error().message));
  emit_report(events_, std::move(r), files_);
  host_.leaf.remove();
  return verdict.exit_code;
}

}  // namespace

void announce_config_changes(EventLog* events, const std::vector<session::ConfigChange>& changes) {
  for (const auto& c : changes) {
    if (events) events->emit(make_event(session::ConfigChanged{c.file, c.key, c.change, "high"}));
    report_error_line(c.file + ": " + c.key + " " + c.change +
                      " during the session; the agent's CLI runs what it names on this machine, outside "
                      "Paddock: review it before you start that agent again");
  }
}

void emit_report(EventLog& events, Report report, SessionFiles& files) {
  events.flush();
  report.events_dropped = events.dropped();
  events.emit(session::session_ended_event(report));
  (void)files.publish_report(session::encode_report(report));
}

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
  SessionFiles files(o.session_dir);
  emit_report(events, std::move(r), files);
  return code;
}

int run_session(const SandboxSpec& spec, const SessionOptions& o) {
  const auto t0 = Clock::now();
  EventLog events(o.session_dir + "/events.jsonl");
  const auto& plan = spec.plan;
  // Published ports first: a host port something else holds fails the session before anything of
  // it exists.
  auto published = listen_published(plan.publish);
  if (!published) return fail_session(o, kRefusedExit, published.error().message);
  auto host = prepare_host(plan, o);
  if (!host) return fail_session(o, kRefusedExit, host.error().message);
  std::vector<int> prepared;
  for (const auto& t : host->prepared_trees) prepared.push_back(t.get());

  Supervisor supervisor(spec, o, t0, events, *host, std::move(*published));

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

  auto channels = open_channels();
  if (!channels) return fail_session(o, kRefusedExit, channels.error().message);
  void* shared = ::mmap(nullptr, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return fail_session(o, kRefusedExit, std::string("mmap: ") + std::strerror(errno));
  long* reaped = static_cast<long*>(shared);
  *reaped = 0;
  struct Unmap {
    void* p;
    ~Unmap() { ::munmap(p, sizeof(long)); }
  } unmap{shared};

  auto init = start_init(spec, host->leaf, *channels, prepared, host->overlays, reaped, old_mask);
  if (!init) return fail_session(o, kRefusedExit, init.error().message);
  const pid_t pid = init->pid;
  host->prepared_trees.clear();
  platform::UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  // What init sends once everything is applied, from the same encoder: recognised byte for byte.
  InitChannel channel(std::move(channels->report),
                      session::encode_init_message(session::InitMessage::ready(spec.attestation_json)));

  auto abort_start = [&](const std::string& message) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
    // Init makes its network namespace while the id maps are written: if that failed first, the
    // maps failed only because init was gone, and init's own message names the cause.
    auto early = channel.next();
    if (early && early->message.ok() && early->message->type == InitMessageType::kSetupFailed)
      return fail_session(o, kRefusedExit, early->message->message);
    return fail_session(o, kRefusedExit, message);
  };
  if (!pidfd.valid()) return abort_start(std::string("pidfd_open: ") + std::strerror(errno));
  if (auto s = write_id_maps(pid); !s) return abort_start(s.error().message);
  char go = 1;
  if (::write(channels->sync_wr.get(), &go, 1) != 1) return abort_start("cannot release the sandbox");
  channels->sync_wr.reset();
  // From here until the filter arrives init builds the sandbox on the other core. The agent it
  // then starts executes only after this process has answered its readiness (the attestation is
  // stored, in the loop): every failure until then still means the agent never started (125).
  if (!o.control_socket.empty())
    if (auto s = supervisor.control().listen(o.control_socket); !s) return abort_start(s.error().message);
  // First what init waits for: move init into the cgroup leaf where neither clone3 nor init itself
  // could put it there (a migration of another process costs the kernel an RCU grace period,
  // ~10 ms on cgroup v1), then compile and send the seccomp filter. Init forks the agent only after
  // the filter arrives, which is after the migration: the agent always starts inside the leaf (a
  // filter that cannot be built: length 0, init fails setup, and the session reports this error).
  if (host->leaf.active() && !init->in_leaf && !init->joins_itself)
    if (auto s = host->leaf.add(pid); !s) return abort_start(s.error().message);
  const std::string filter_error = send_filter(std::move(channels->filter), plan);
  // Then the session's files, each a new inode (0.1 to several ms on this machine's disk), while
  // init finishes the view and the agent sets itself up: the session's own records where the
  // caller left them to this process (the IR it was given and the plan whose hash it checked,
  // byte for byte: sha256sum plan.json is the plan hash), the first event, and the attestation as
  // the session will store it. Init reports readiness with exactly these bytes
  // (spec.attestation_json); this process publishes its staged copy then, instead of parsing the
  // message back on the path to the agent's exec. report.json is staged once the agent runs.
  json attestation = json::parse(spec.attestation_json, nullptr, false);
  if (auto s = supervisor.files().stage_records(o.record_ir, o.record_plan, session::dump_record(attestation, 2) + "\n",
                                                o.audit ? o.audit->start_record() : std::string());
      !s)
    return abort_start(s.error().message);
  session::SessionStarted started = o.started;
  started.session_id = o.session_id;
  started.command = spec.argv;
  started.helper_pid = getpid();
  events.emit(session::make_event(started));
  supervisor.set_attestation(std::move(attestation));
  return supervisor.run(channel, pid, pidfd.get(), sigfd.get(), filter_error, reaped);
}

}  // namespace paddock::helper
