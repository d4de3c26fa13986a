#include "helpers/linux/sandbox_child.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "engine/credentials.h"
#include "engine/session/init_message.h"
#include "helpers/linux/agent_exec.h"
#include "helpers/linux/host_ports.h"
#include "helpers/linux/landlock_apply.h"
#include "helpers/linux/mount_view.h"
#include "helpers/linux/seccomp_apply.h"
#include "helpers/linux/session_end.h"
#include "helpers/linux/sys_error.h"
#include "platform/fd_passing.h"
#include "platform/read_file.h"

namespace paddock::helper {
namespace {

using session::InitMessage;

void send_msg(int fd, const InitMessage& msg, int pass_fd = -1) {
  (void)platform::send_message(fd, session::encode_init_message(msg), pass_fd);
}

[[noreturn]] void die_setup(int report_fd, const Error& e) {
  send_msg(report_fd, InitMessage::setup_failed(e.message));
  _exit(exit_code(ErrorCode::kRefused));
}

// The sandbox's network namespace, made on a second thread of init while init's main thread
// builds the mount view. Making one is kernel work (the loopback device, sysctl tables, netfilter)
// that otherwise sat on the path to the agent's start (docs/cli.md, "run: start-up"). unshare of a
// network namespace moves only the calling thread; the thread hands the namespace over as a file
// descriptor taken from a socket inside it (SIOCGSKNS: no path, as the main thread is pivoting
// the root meanwhile), and the main thread enters it with setns before anything in the sandbox
// exists. Both need only init's capabilities in its own user namespace.
class NetworkNamespace {
 public:
  NetworkNamespace() = default;
  NetworkNamespace(const NetworkNamespace&) = delete;
  NetworkNamespace& operator=(const NetworkNamespace&) = delete;
  ~NetworkNamespace() {
    if (thread_.joinable()) thread_.join();
  }

  bool started() const { return started_; }

  Status start() {
    started_ = true;
    try {
      thread_ = std::thread([this] { made_ = make(); });
    } catch (const std::system_error& e) {
      return refused(std::string("cannot start a thread for the network namespace: ") + e.what());
    }
    return Status::Ok();
  }

  // Waits for the thread and moves the calling thread into the namespace it made.
  Status enter() {
    thread_.join();
    if (!made_) return made_.error();
    const int fd = *made_;
    const bool ok = ::setns(fd, CLONE_NEWNET) == 0;
    Error e = ok ? Error{} : sys_error("enter network namespace");
    ::close(fd);
    if (!ok) return e;
    return Status::Ok();
  }

 private:
  static Result<int> make() {
    if (::unshare(CLONE_NEWNET) != 0) return sys_error("new network namespace");
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return sys_error("socket for loopback");
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (::ioctl(s, SIOCGIFFLAGS, &ifr) != 0 ||
        (ifr.ifr_flags |= IFF_UP, ::ioctl(s, SIOCSIFFLAGS, &ifr) != 0)) {
      Error e = sys_error("bring up loopback", "lo");
      ::close(s);
      return e;
    }
    int ns = ::ioctl(s, SIOCGSKNS);
    Error e = ns < 0 ? sys_error("network namespace of the loopback socket") : Error{};
    ::close(s);
    if (ns < 0) return e;
    return ns;
  }

  std::thread thread_;
  bool started_ = false;
  Result<int> made_ = Error{};
};

// The relay's and the credential endpoints' listening sockets live in the sandbox's network
// namespace; the helper (outside) accepts on them, so no relay process ever runs inside the
// sandbox.
Result<int> proxy_listen_socket(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return sys_error("proxy socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 128) != 0) {
    Error e = sys_error("proxy listen on 127.0.0.1:" + std::to_string(port));
    ::close(s);
    return e;
  }
  return s;
}

// The network namespace this thread is in, as a descriptor for the helper's forwarder of
// published ports, which makes its sockets to the agent's servers there (port_forward.h).
Result<int> network_namespace_fd() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return sys_error("socket for the network namespace");
  int ns = ::ioctl(s, SIOCGSKNS);
  Error e = ns < 0 ? sys_error("network namespace of a socket") : Error{};
  ::close(s);
  if (ns < 0) return e;
  return ns;
}

// When the plan carries the memory limit as RLIMIT_DATA, it is the only mechanism, and a kernel
// booted with ignore_rlimit_data accepts the limit and then only logs. The probe said it holds;
// prove it here, where it must: with the soft limit at one page, a one-page private writable
// mapping has to be refused. Then the soft limit goes back up to the hard one.
Status prove_rlimit_data(rlim_t limit) {
  const rlim_t page = static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
  rlimit tiny{std::min(page, limit), limit};
  if (::setrlimit(RLIMIT_DATA, &tiny) != 0) return sys_error("setrlimit data (check)");
  void* p = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool held = p == MAP_FAILED && errno == ENOMEM;
  if (p != MAP_FAILED) ::munmap(p, page);
  rlimit back{limit, limit};
  if (::setrlimit(RLIMIT_DATA, &back) != 0) return sys_error("setrlimit data");
  if (!held)
    return refused("RLIMIT_DATA is not enforced by this kernel (booted with ignore_rlimit_data?), "
                   "so the memory limit would hold nothing; nothing was run");
  return Status::Ok();
}

}  // namespace

// The agent's last steps before exec, shared with the landlock tier (agent_exec.h).
// Runs in the agent, inside the sandbox's user namespace: RLIMIT_NPROC set here counts the
// sandbox's own tasks (Linux >= 5.14). Set in the helper before clone it would instead cap the
// namespace at the user's host-wide count.
Status apply_rlimits(const std::vector<linux_backend::Rlimit>& limits) {
  for (const auto& l : limits) {
    using linux_backend::RlimitResource;
    int res = RLIMIT_CORE;
    switch (l.resource) {
      case RlimitResource::kCpu: res = RLIMIT_CPU; break;
      case RlimitResource::kData: res = RLIMIT_DATA; break;
      case RlimitResource::kNproc: res = RLIMIT_NPROC; break;
      case RlimitResource::kNofile: res = RLIMIT_NOFILE; break;
      case RlimitResource::kFsize: res = RLIMIT_FSIZE; break;
      case RlimitResource::kCore: res = RLIMIT_CORE; break;
    }
    const std::string name = linux_backend::to_string(l.resource);
    rlimit cur{};
    if (::getrlimit(res, &cur) != 0) return sys_error("getrlimit " + name);
    // Never raise: a hard limit already lower than the plan's stays (stricter wins).
    rlim_t v = std::min<rlim_t>(static_cast<rlim_t>(l.value), cur.rlim_max);
    rlimit want{v, v};
    if (::setrlimit(res, &want) != 0) return sys_error("setrlimit " + name);
    if (res == RLIMIT_DATA)
      if (auto s = prove_rlimit_data(v); !s) return s;
  }
  return Status::Ok();
}

// No capability survives exec, even for a uid that is 0 inside the namespace (root callers).
Status lock_out_capabilities() {
  if (::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
              0, 0, 0) != 0)
    return sys_error("set securebits");
  // Capabilities are numbered without gaps; EINVAL marks the first one this kernel does not have
  // (CAP_LAST_CAP + 1), and every number above it is unknown too.
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;
      return sys_error("drop bounding capability " + std::to_string(cap));
    }
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return sys_error("clear ambient capabilities");
  return Status::Ok();
}

Status clear_capabilities() {
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &hdr, data) != 0) return sys_error("capset");
  return Status::Ok();
}

namespace {

std::vector<std::string> build_env(const SandboxSpec& spec) {
  std::map<std::string, std::string> env;
  for (const auto& name : spec.plan.env.pass)
    if (auto it = spec.launch_env.find(name); it != spec.launch_env.end()) env[name] = it->second;
  for (const auto& [k, v] : spec.plan.env.set) env[k] = v;
  for (const auto& c : spec.plan.credentials.endpoints) {
    auto p = spec.credential_placeholders.find(c.name);
    const std::string placeholder = p == spec.credential_placeholders.end() ? std::string() : p->second;
    for (const auto& [k, v] : c.env) env[k] = expand_credential_template(v, "", placeholder);
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

// execvpe with the agent's own PATH (not the helper's); returns the errno that decides 126/127.
int exec_agent(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : env) {
    envp.push_back(const_cast<char*>(e.c_str()));
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  envp.push_back(nullptr);
  if (argv[0].find('/') != std::string::npos) {
    ::execve(args[0], args.data(), envp.data());
    return errno;
  }
  int best = ENOENT;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string full = (dir.empty() ? "." : dir) + "/" + argv[0];
    ::execve(full.c_str(), args.data(), envp.data());
    if (errno == EACCES) best = EACCES;  // keep looking; report "not executable" if nothing runs
    start = end + 1;
  }
  return best;
}

namespace {

// The filter the helper compiled for this plan (see sandbox_child.h for the framing).
Result<std::vector<sock_filter>> receive_filter(int fd) {
  auto read_all = [fd](void* buf, std::size_t n) {
    char* p = static_cast<char*>(buf);
    while (n > 0) {
      ssize_t got = ::read(fd, p, n);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      p += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  };
  std::uint32_t bytes = 0;
  if (!read_all(&bytes, sizeof bytes)) return refused("seccomp filter not received from the helper");
  if (bytes == 0 || bytes % sizeof(sock_filter) != 0 || bytes > BPF_MAXINSNS * sizeof(sock_filter))
    return refused("the helper could not build the seccomp filter");
  std::vector<sock_filter> program(bytes / sizeof(sock_filter));
  if (!read_all(program.data(), bytes)) return refused("seccomp filter not received whole from the helper");
  return program;
}

[[noreturn]] void agent_main(const SandboxSpec& spec, int report_fd, const std::vector<sock_filter>& filter,
                             bool own_session) {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
  // Input that is not the terminal means the terminal is not the agent's to use: in a session of
  // its own it has no controlling terminal, so /dev/tty fails (ENXIO) instead of reading what you
  // type into your shell, and it cannot change the terminal's modes or job control through it.
  if (own_session && ::setsid() < 0) die_setup(report_fd, sys_error("setsid"));
  const auto& plan = spec.plan;
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0 && ::chdir("/") != 0)
    die_setup(report_fd, sys_error("chdir", spec.cwd));
  if (spec.agent_nofile_soft) {
    rlimit l{};
    if (::getrlimit(RLIMIT_NOFILE, &l) != 0) die_setup(report_fd, sys_error("getrlimit nofile"));
    l.rlim_cur = std::min<rlim_t>(static_cast<rlim_t>(*spec.agent_nofile_soft), l.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &l) != 0) die_setup(report_fd, sys_error("setrlimit nofile"));
  }
  if (auto s = apply_rlimits(plan.rlimits); !s) die_setup(report_fd, s.error());
  if (auto s = lock_out_capabilities(); !s) die_setup(report_fd, s.error());
  // no_new_privs is always set: Landlock and an unprivileged seccomp filter need it, and it is
  // what makes setuid binaries inside the view powerless.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die_setup(report_fd, sys_error("no_new_privs"));
  if (auto s = apply_landlock(plan.landlock); !s) die_setup(report_fd, s.error());
  if (auto s = load_seccomp_program(filter); !s) die_setup(report_fd, s.error());
  if (auto s = clear_capabilities(); !s) die_setup(report_fd, s.error());
  std::vector<std::string> env = build_env(spec);
  // Readiness: everything above is in force for this process and all it will start. Nothing of
  // the agent runs before the helper has stored the attestation: it answers one byte once
  // attestation.json is in place ('1'), or that it could not store it ('0').
  send_msg(report_fd, InitMessage::ready(spec.attestation_json));
  char stored = 0;
  ssize_t got;
  while ((got = ::read(report_fd, &stored, 1)) < 0 && errno == EINTR) {}
  // The helper reports why (or is gone).
  if (got != 1 || stored != session::kStoredAnswer) _exit(exit_code(ErrorCode::kRefused));
  int err = exec_agent(spec.argv, env);
  send_msg(report_fd, InitMessage::exec_failed(err, spec.argv[0] + ": " + std::strerror(err)));
  _exit(exec_failure_code(err));
}

// Only stdin, stdout and stderr cross into the sandbox (plus this process's own channels to the
// helper, all close-on-exec). Whatever else was open in whoever started Paddock, a terminal's or
// an IDE's descriptor included, would reach the agent already open: outside the mount view and
// Landlock, which judge a path only when it is opened.
Status close_inherited_fds(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned int next = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(next)) continue;
    if (static_cast<unsigned int>(fd) > next && ::close_range(next, static_cast<unsigned int>(fd) - 1, 0) != 0)
      return sys_error("close_range");
    next = static_cast<unsigned int>(fd) + 1;
  }
  if (::close_range(next, UINT_MAX, 0) != 0) return sys_error("close_range");
  return Status::Ok();
}

// How long after the wall-time deadline init ends the session itself, if the helper has not.
constexpr time_t kWallTimeBackstopSecs = 1;

struct AgentArgs {
  const SandboxSpec* spec;
  int report_fd;
  const std::vector<sock_filter>* filter;
  bool own_session;
};

int agent_entry(void* p) {
  const auto* a = static_cast<const AgentArgs*>(p);
  agent_main(*a->spec, a->report_fd, *a->filter, a->own_session);
}

}  // namespace

void sandbox_init_main(const SandboxSpec& spec, int report_fd, int sync_fd, int filter_fd,
                       const CgroupHandoff& cgroup, const std::vector<int>& prepared,
                       const std::vector<OverlayDirs>& overlays, long* reaped_counter) {
  // If the helper dies, so does init, and with init the kernel kills the whole PID namespace.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // Into the session's cgroup v1 leaf before anything else exists in the sandbox, so that every
  // process and thread it will ever hold starts inside. A thread that moves itself ("0" to
  // `tasks`) skips the kernel's global thread-group lock, whose first writer waits for an RCU
  // grace period (~10 ms here) when the helper moves another process in. The file was opened by
  // the helper, outside: the kernel checks the opener's credentials.
  for (int fd : cgroup.join) {
    if (::write(fd, "0", 1) != 1) die_setup(report_fd, sys_error("cgroup: join the session's leaf"));
    ::close(fd);
  }
  std::vector<int> keep = {report_fd, sync_fd, filter_fd};
  keep.insert(keep.end(), cgroup.leave.begin(), cgroup.leave.end());
  for (int fd : prepared)
    if (fd >= 0) keep.push_back(fd);
  if (auto s = close_inherited_fds(keep); !s) die_setup(report_fd, s.error());
  const auto& plan = spec.plan;
  // The host name and the network namespace need only this process's capabilities in its new
  // user namespace, which it holds from the clone on, not the id maps: they are started while the
  // helper writes the maps (~0.4 ms of /proc writes), the namespace on a thread of its own (see
  // NetworkNamespace) that runs on while the view is built. Nothing the session runs exists yet:
  // the agent is forked after the view, the namespace and the filter, and if the maps fail the
  // helper kills this process, and the namespace with it.
  if (::sethostname(plan.hostname.data(), plan.hostname.size()) != 0) die_setup(report_fd, sys_error("sethostname"));
  NetworkNamespace net;
  if (auto s = net.start(); !s) die_setup(report_fd, s.error());
  char go = 0;
  ssize_t got;
  while ((got = ::read(sync_fd, &go, 1)) < 0 && errno == EINTR) {}
  // The helper is gone (or failed to map ids): nothing may start.
  if (got != 1) _exit(exit_code(ErrorCode::kRefused));
  ::close(sync_fd);
  // Only now: the helper had to open /proc/<this pid>/uid_map, which a non-dumpable process's
  // owner (root) would have kept from an unprivileged helper.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  std::vector<Placeholder> placeholders;
  Status built = build_mount_view(plan.mounts, plan.tmpfs, prepared, overlays, placeholders, plan.idmap_read_roots);
  for (int fd : prepared)
    if (fd >= 0) ::close(fd);

  // The helper records what was made on the host, also when the view failed after making it.
  if (!placeholders.empty()) {
    send_msg(report_fd, InitMessage::placeholders_made(placeholders));
  }
  if (!built) die_setup(report_fd, built.error());
  if (auto s = net.enter(); !s) die_setup(report_fd, s.error());
  if (!plan.publish.empty()) {
    auto ns = network_namespace_fd();
    if (!ns) die_setup(report_fd, ns.error());
    send_msg(report_fd, InitMessage::network_namespace(), *ns);
    ::close(*ns);
  }
  // Host ports: init holds each port on the sandbox's loopback before the agent exists, so the
  // agent can neither take it nor be reached by anything else there.
  for (int port : plan.host_ports) {
    auto fd = listen_host_port(port);
    if (!fd) die_setup(report_fd, fd.error());
    send_msg(report_fd, InitMessage::host_port_listen(), fd->get());
  }
  if (plan.proxy.enabled) {
    auto fd = proxy_listen_socket(plan.proxy.port_in_sandbox);
    if (!fd) die_setup(report_fd, fd.error());
    send_msg(report_fd, InitMessage::proxy_listen(), *fd);
    ::close(*fd);
  }
  // Every net mode, off included: each endpoint is a bound egress of its own (docs/credentials.md).
  for (const auto& c : plan.credentials.endpoints) {
    auto fd = proxy_listen_socket(c.port_in_sandbox);
    if (!fd) die_setup(report_fd, fd.error());
    send_msg(report_fd, InitMessage::credential_listen(c.name), *fd);
    ::close(*fd);
  }

  // The helper sends the filter only once this process is in the session's cgroup: the agent is
  // forked after it arrives, so it starts inside the cgroup (a fork before a cgroup v1 migration
  // would stay outside) and with the filter compiled.
  auto filter = receive_filter(filter_fd);
  if (!filter) die_setup(report_fd, filter.error());
  ::close(filter_fd);

  // Init: block what it handles, so sigwaitinfo sees it; the agent unblocks before exec.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2})
    sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  // The agent shares init's memory until it execs (CLONE_VM | CLONE_VFORK, on a stack of its
  // own; init is suspended until the exec or the agent's _exit): a fork would copy init's address
  // space (the helper's, as init is a clone of it) only for exec to throw the copy away, and that
  // copy, its page faults and its teardown sat on the path to the agent's start. What
  // the agent sets up before exec (rlimits, capabilities, no_new_privs, Landlock, seccomp, cwd,
  // signal mask and dispositions) is per process or per task, never shared through the memory.
  constexpr std::size_t kAgentStack = 1 << 20;  // untouched pages cost nothing
  void* stack = ::mmap(nullptr, kAgentStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) die_setup(report_fd, sys_error("agent stack"));
  // stdin decides (see agent_main): a terminal there is the user at the keyboard.
  const bool own_session = ::isatty(0) == 0;
  AgentArgs agent_args{&spec, report_fd, &*filter, own_session};
  pid_t agent = ::clone(agent_entry, static_cast<char*>(stack) + kAgentStack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                        &agent_args);
  if (agent < 0) die_setup(report_fd, sys_error("start agent"));

  // The wall-time limit has a second keeper in here. The helper's timer ends the session at the
  // deadline, but the helper is outside the sandbox: without Landlock's signal scoping (ABI < 6)
  // the agent can stop it with a signal to its process group (kill(0, SIGSTOP)), and a stopped
  // helper keeps no time. Init, PID 1 of the namespace, cannot be stopped from inside; it ends
  // everything a moment after the deadline if the helper has not.
  std::optional<timespec> backstop;
  if (plan.wall_time_secs) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    backstop = timespec{now.tv_sec + static_cast<time_t>(*plan.wall_time_secs) + kWallTimeBackstopSecs, now.tv_nsec};
  }
  int agent_status = 0;
  bool timed_out = false;
  for (;;) {
    siginfo_t info{};
    int sig;
    if (backstop) {
      timespec now{};
      ::clock_gettime(CLOCK_MONOTONIC, &now);
      long left_ns = (backstop->tv_sec - now.tv_sec) * 1000000000L + (backstop->tv_nsec - now.tv_nsec);
      if (left_ns <= 0) {
        timed_out = true;
        break;
      }
      timespec wait{left_ns / 1000000000L, left_ns % 1000000000L};
      sig = ::sigtimedwait(&set, &info, &wait);
    } else {
      sig = ::sigwaitinfo(&set, &info);
    }
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      bool agent_done = false;
      int st = 0;
      pid_t pid;
      while ((pid = ::waitpid(-1, &st, WNOHANG)) > 0) {
        __atomic_add_fetch(reaped_counter, 1, __ATOMIC_SEQ_CST);
        if (pid == agent) {
          agent_status = st;
          agent_done = true;
        }
      }
      if (agent_done) break;
    } else if (sig != SIGINT && sig != SIGQUIT) {
      ::kill(agent, sig);
    } else if (own_session) {
      // Ctrl-C and Ctrl-\ at the terminal reach the terminal's foreground group, this process
      // included, but no longer the agent in its own session: passed on to the agent's group.
      ::kill(-agent, sig);
    }  // otherwise the agent shares the terminal's group and has them already
  }
  // The agent is gone (or the deadline passed). End whatever it left in the namespace and reap it
  // all here, so that the session's usage covers the whole tree and the report can say that
  // nothing of the sandbox runs any more: kill(-1) from PID 1 reaches every other process of this
  // namespace and none outside it. The helper then needs no wait for this process's own exit (the
  // kernel's teardown of the namespaces), as bwrap's outer process does not wait for its init.
  // When the deadline is what ended it, the helper hears that first, before anything dies: a
  // helper resumed after a stop (see the wall-time keeper above) must not take the end for its own.
  if (timed_out) send_msg(report_fd, InitMessage::deadline());
  ::kill(-1, SIGKILL);
  for (;;) {
    int st = 0;
    pid_t pid = ::waitpid(-1, &st, 0);
    if (pid > 0) {
      __atomic_add_fetch(reaped_counter, 1, __ATOMIC_SEQ_CST);
      if (pid == agent && !timed_out) agent_status = st;
    } else if (errno != EINTR) {
      break;  // ECHILD: the namespace holds only this process
    }
  }
  // The agent's tree only, not this process: its setup work and its memory (a copy of the
  // helper's) are Paddock's, not the session's.
  rusage tree{};
  ::getrusage(RUSAGE_CHILDREN, &tree);
  const session::Usage used = usage_of(tree);
  // Processes and threads the session started: the PID namespace's last number, less init and
  // init's network-namespace thread (numbers are never reused before pid_max wraps around). Init
  // reaped only its own children; a shell's children were the shell's.
  long started = __atomic_load_n(reaped_counter, __ATOMIC_SEQ_CST);
  if (auto last = platform::read_file("/proc/sys/kernel/ns_last_pid"); last && !last->empty())
    started = std::max(started, std::strtol(last->c_str(), nullptr, 10) - 1 - (net.started() ? 1 : 0));
  InitMessage exit_msg;
  exit_msg.type = session::InitMessageType::kExit;
  exit_msg.status = timed_out ? 128 + SIGKILL : agent_status;
  exit_msg.pids = started;
  exit_msg.cpu_ms = static_cast<long>(used.cpu_ms);
  exit_msg.max_rss = static_cast<long>(used.max_rss);
  exit_msg.timed_out = timed_out;
  // Out of the leaf again (the same fast self-move as on the way in): it is empty now, and the
  // helper can remove it at once.
  bool left = !cgroup.leave.empty();
  for (int fd : cgroup.leave) left = ::write(fd, "0", 1) == 1 && left;
  exit_msg.left_cgroup = left;
  send_msg(report_fd, exit_msg);
  _exit(timed_out ? exit_code(ErrorCode::kTimeout) : exit_code_of_wait_status(agent_status));
}

}  // namespace paddock::helper
