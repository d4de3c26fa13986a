#include "helpers/linux/connect_redirect.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <seccomp.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "helpers/linux/egress_relay.h"
#include "helpers/linux/session_relay.h"
#include "helpers/linux/sys_error.h"

namespace paddock::helper {
namespace {

// What /proc says of the agent's descriptor: whether it is a socket, and the two flags the
// helper's socket must carry in its place. /proc is read rather than the descriptor taken with
// pidfd_getfd, which a container's default seccomp profile refuses without CAP_SYS_PTRACE.
struct AgentFd {
  int error = 0;  // errno for the agent's call; 0: a socket
  bool nonblock = false, cloexec = false;
};

AgentFd inspect(pid_t tid, int fd) {
  if (fd < 0) return {EBADF};
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(tid), fd);
  char target[64];
  const ssize_t n = ::readlink(path, target, sizeof target - 1);
  // Not readable: a process that made itself non-dumpable hides its descriptors from its own uid.
  if (n < 0) return {errno == ENOENT ? EBADF : EACCES};
  target[n] = 0;
  if (std::strncmp(target, "socket:[", 8) != 0) return {ENOTSOCK};
  std::snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", static_cast<int>(tid), fd);
  FILE* f = std::fopen(path, "re");
  if (!f) return {EACCES};
  unsigned long flags = 0;
  bool found = false;
  char line[128];
  while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "flags: %lo", &flags) == 1;
  std::fclose(f);
  if (!found) return {EACCES};
  return {0, (flags & O_NONBLOCK) != 0, (flags & O_CLOEXEC) != 0};
}

// The address a connect(2) names, read once from the caller's memory; nothing when it cannot
// be read (a process that hides its memory, a bad pointer).
std::optional<sockaddr_storage> named_address(pid_t tid, std::uint64_t addr, std::uint64_t len) {
  sockaddr_storage ss{};
  if (len < sizeof(sa_family_t)) return std::nullopt;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(len, sizeof ss));
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(tid));
  platform::UniqueFd mem(::open(path, O_RDONLY | O_CLOEXEC));
  if (!mem.valid() || ::pread(mem.get(), &ss, n, static_cast<off_t>(addr)) < static_cast<ssize_t>(sizeof(sa_family_t)))
    return std::nullopt;
  return ss;
}

// The port of a TCP/IP address on the loopback (127/8, ::1, ::ffff:127/104); nothing for any
// other address or family.
std::optional<std::uint16_t> loopback_port(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) return ntohs(in->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    const in6_addr& a = in6->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127)) return ntohs(in6->sin6_port);
  }
  return std::nullopt;
}

// Whether a connect(2) goes to the broker in the kOffLoopback scope: a TCP/IP address off the
// caller's loopback, or the proxy's port on it (where the clients' proxy settings point). There
// what is read decides nothing the kernel could widen, and an address that cannot be read
// continues to the kernel, which sees what the caller wrote.
bool to_broker(const std::optional<sockaddr_storage>& ss) {
  if (!ss || (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)) return false;
  const auto port = loopback_port(*ss);
  return !port || *port == kSandboxProxyPort;
}

// A TCP socket of the helper's connected to 127.0.0.1:<port>, bound first so that `peers` (the
// broker's filter, where given) knows its local port before the broker can accept it. Returns
// 0 or the errno the agent's connect(2) answers with.
int connect_loopback(std::uint16_t port, BrokerPeers* peers, bool nonblock, platform::UniqueFd& out) {
  platform::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return errno;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return errno;
  const std::uint16_t local = ntohs(a.sin_port);
  if (peers) peers->add(local);
  // A loopback connect completes in the kernel (the listen backlog); bounded all the same, so a
  // full backlog cannot stall every other connect of the agent behind this one.
  timeval limit{5, 0};
  ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  a.sin_port = htons(port);
  if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    const int e = errno == EINPROGRESS ? ETIMEDOUT : errno;
    if (peers) peers->take(local);
    return e;
  }
  timeval none{0, 0};
  ::setsockopt(s.get(), SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
  // Loopback: small writes need not wait for acknowledgements.
  const int one = 1;
  ::setsockopt(s.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (nonblock && ::fcntl(s.get(), F_SETFL, O_NONBLOCK) != 0) return errno;
  out = std::move(s);
  return 0;
}

}  // namespace

void BrokerPeers::add(std::uint16_t port) {
  std::lock_guard lock(mu_);
  ports_.insert(port);
}

bool BrokerPeers::take(std::uint16_t port) {
  std::lock_guard lock(mu_);
  const auto it = ports_.find(port);
  if (it == ports_.end()) return false;
  ports_.erase(it);
  return true;
}

Result<BrokerListener> listen_for_broker() {
  BrokerListener l;
  l.fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!l.fd.valid()) return sys_error("the broker's socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(l.fd.get(), SOMAXCONN) != 0 ||
      ::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return sys_error("the broker's port on 127.0.0.1");
  l.port = ntohs(a.sin_port);
  return l;
}

ConnectRedirect::ConnectRedirect(platform::UniqueFd listener, platform::UniqueFd wake, RedirectTargets targets)
    : listener_(std::move(listener)), wake_(std::move(wake)), targets_(std::move(targets)) {}

Result<std::unique_ptr<ConnectRedirect>> ConnectRedirect::start(platform::UniqueFd listener, RedirectTargets targets) {
  platform::UniqueFd wake(::eventfd(0, EFD_CLOEXEC));
  if (!wake.valid()) return sys_error("eventfd");
  std::unique_ptr<ConnectRedirect> r(new ConnectRedirect(std::move(listener), std::move(wake), std::move(targets)));
  r->thread_ = std::thread([p = r.get()] { p->run(); });
  return r;
}

ConnectRedirect::~ConnectRedirect() { stop(); }

void ConnectRedirect::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof one);
  thread_.join();
}

void ConnectRedirect::run() {
  seccomp_notif* req = nullptr;
  seccomp_notif_resp* resp = nullptr;
  // Sized by the kernel: it refuses a request buffer that is not zeroed to its own size.
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0 || seccomp_notify_alloc(&req, &resp) != 0) {
    // Without a way to answer, every connect(2) would wait forever: end them all instead (the
    // filter answers ENOSYS once its listener is closed).
    listener_.reset();
    return;
  }
  const int lfd = listener_.get();
  for (;;) {
    pollfd p[2] = {{lfd, POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[1].revents) break;
    if (!(p[0].revents & POLLIN)) {
      if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) break;  // no process uses the filter any more
      continue;
    }
    std::memset(req, 0, sizes.seccomp_notif);
    if (seccomp_notify_receive(lfd, req) != 0) continue;  // the caller is gone already
    std::memset(resp, 0, sizes.seccomp_notif_resp);
    resp->id = req->id;
    const pid_t tid = static_cast<pid_t>(req->pid);
    // What the caller named, read only where it decides something: once, and never read again.
    std::optional<sockaddr_storage> named;
    if (targets_.scope == RedirectScope::kOffLoopback || !targets_.host_ports.empty())
      named = named_address(tid, req->data.args[1], req->data.args[2]);
    if (targets_.scope == RedirectScope::kOffLoopback && !to_broker(named)) {
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      (void)seccomp_notify_respond(lfd, resp);
      continue;
    }
    std::optional<std::uint16_t> host_port = named ? loopback_port(*named) : std::nullopt;
    if (host_port && !targets_.host_ports.count(*host_port)) host_port.reset();
    const AgentFd agent = inspect(tid, static_cast<int>(req->data.args[0] & 0xFFFFFFFFu));
    // The pid read in /proc must still be the caller's (a process that died and whose pid was
    // reused in between has no notification left).
    if (seccomp_notify_id_valid(lfd, req->id) != 0) continue;
    int err = agent.error;
    platform::UniqueFd mine;
    if (!err) {
      if (host_port) err = connect_loopback(*host_port, nullptr, agent.nonblock, mine);
      else if (targets_.broker_port) err = connect_loopback(targets_.broker_port, targets_.peers.get(), agent.nonblock, mine);
      else err = ECONNREFUSED;
    }
    if (!err) {
      seccomp_notif_addfd add{};
      add.id = req->id;
      add.flags = SECCOMP_ADDFD_FLAG_SETFD;
      add.srcfd = static_cast<__u32>(mine.get());
      add.newfd = static_cast<__u32>(req->data.args[0] & 0xFFFFFFFFu);
      add.newfd_flags = agent.cloexec ? O_CLOEXEC : 0;
      if (::ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0) {
        if (errno == ENOENT) continue;  // the caller is gone
        err = EACCES;
      }
    }
    if (!err && host_port && targets_.on_host_port) targets_.on_host_port(*host_port);
    resp->error = err ? -err : 0;
    resp->val = 0;
    resp->flags = 0;
    (void)seccomp_notify_respond(lfd, resp);  // ENOENT: the caller is gone meanwhile
  }
  seccomp_notify_free(req, resp);
  // Closed here, so that a connect(2) made after the helper stopped answering fails (ENOSYS)
  // instead of waiting.
  listener_.reset();
}

Result<std::unique_ptr<ConnectRedirect>> start_brokered_connects(SessionRelay* relay, BrokerListener broker,
                                                                 const IrEgress& egress,
                                                                 platform::UniqueFd seccomp_listener,
                                                                 RedirectTargets targets) {
  if (relay) {
    auto peers = std::make_shared<BrokerPeers>();
    if (auto s = relay->start(std::move(broker.fd), egress, [peers](std::uint16_t p) { return peers->take(p); }); !s)
      return s.error();
    targets.broker_port = broker.port;
    targets.peers = std::move(peers);
  }
  return ConnectRedirect::start(std::move(seccomp_listener), std::move(targets));
}

}  // namespace paddock::helper
