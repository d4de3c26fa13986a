#include "helpers/linux/port_forward.h"

#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include <asio.hpp>

#include "engine/session/event.h"
#include "helpers/broker/tunnel.h"
#include "helpers/linux/egress_relay.h"
#include "helpers/linux/sys_error.h"
#include "platform/fd_passing.h"

namespace paddock::helper {
namespace {

using asio::ip::tcp;

// A server in the sandbox whose accept queue is full answers no SYN: the connector gives up on it
// after this long instead of holding up the other forwarded connections.
constexpr long kConnectTimeoutMs = 1000;

// Tries 127.0.0.1 first and [::1] when nothing listens there (a dev server bound to "localhost"
// may have chosen either). Returns the connected socket, or -1 with *err set.
int connect_inside(std::uint16_t port, int* err) {
  *err = ECONNREFUSED;
  for (int family : {AF_INET, AF_INET6}) {
    const int s = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
      *err = errno;
      return -1;
    }
    timeval tv{kConnectTimeoutMs / 1000, (kConnectTimeoutMs % 1000) * 1000};
    ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // bounds connect(2) too
    sockaddr_storage ss{};
    socklen_t len = 0;
    if (family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&ss);
      a->sin_family = AF_INET;
      a->sin_port = htons(port);
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
      a->sin6_family = AF_INET6;
      a->sin6_port = htons(port);
      a->sin6_addr = in6addr_loopback;
      len = sizeof *a;
    }
    if (::connect(s, reinterpret_cast<sockaddr*>(&ss), len) == 0) return s;
    const int e = errno;
    ::close(s);
    if (family == AF_INET) {
      *err = e;
      if (e != ECONNREFUSED) return -1;
    }
  }
  return -1;
}

// The connector, in the process forked from the helper. The helper may have threads, so from the
// fork on only system calls run here: nothing that allocates or takes a lock.
[[noreturn]] void connector_main(int channel, int userns, int netns) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // Nothing of the helper's stays open here: its listening sockets, the session's files, the
  // control socket. Only the channel and the two namespaces.
  int keep[3] = {channel, userns, netns};
  std::sort(keep, keep + 3);
  unsigned int next = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(next)) continue;
    if (static_cast<unsigned int>(fd) > next) ::close_range(next, static_cast<unsigned int>(fd) - 1, 0);
    next = static_cast<unsigned int>(fd) + 1;
  }
  ::close_range(next, UINT_MAX, 0);
  int ready = 0;
  if (userns >= 0 && ::setns(userns, CLONE_NEWUSER) != 0) ready = errno;
  if (ready == 0 && ::setns(netns, CLONE_NEWNET) != 0) ready = errno;
  if (userns >= 0) ::close(userns);
  ::close(netns);
  // Sockets and connects on loopback need no capability: every one the namespace gave is dropped.
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (ready == 0 && ::syscall(SYS_capset, &hdr, data) != 0) ready = errno;
  if (ready == 0 && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ready = errno;
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  (void)platform::send_message(channel, std::string_view(reinterpret_cast<const char*>(&ready), sizeof ready));
  if (ready != 0) _exit(1);
  for (;;) {
    std::uint16_t port = 0;
    const ssize_t n = ::recv(channel, &port, sizeof port, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof port)) _exit(0);  // the helper closed the channel
    int err = 0;
    const int s = connect_inside(port, &err);
    if (s >= 0) err = 0;
    (void)platform::send_message(channel, std::string_view(reinterpret_cast<const char*>(&err), sizeof err), s);
    if (s >= 0) ::close(s);
  }
}

// The helper's end of the connector: one request at a time, from the forwarder's I/O thread.
class Connector {
 public:
  Connector() = default;
  Connector(const Connector&) = delete;
  Connector& operator=(const Connector&) = delete;
  ~Connector() { stop(); }

  Status start(int netns) {
    platform::UniqueFd userns(::ioctl(netns, NS_GET_USERNS));
    if (!userns.valid()) return sys_error("publish: the sandbox network namespace's user namespace");
    int sp[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0) return sys_error("publish: socketpair");
    platform::UniqueFd mine(sp[0]), theirs(sp[1]);
    pid_ = ::fork();
    if (pid_ < 0) return sys_error("publish: start the connector");
    if (pid_ == 0) connector_main(theirs.get(), userns.get(), netns);
    theirs.reset();
    channel_ = std::move(mine);
    int ready = -1;
    const ssize_t n = ::recv(channel_.get(), &ready, sizeof ready, 0);
    if (n != static_cast<ssize_t>(sizeof ready) || ready != 0) {
      const std::string why = n == static_cast<ssize_t>(sizeof ready) ? std::strerror(ready) : "it exited";
      stop();
      return refused("publish: cannot open connections into the sandbox's network namespace (" + why + ")");
    }
    return Status::Ok();
  }

  // A socket connected to the agent's server on `port`, or the errno that refused it; EPIPE when
  // the connector is gone.
  Result<platform::UniqueFd> connect(int port, int* err) {
    const std::uint16_t p = static_cast<std::uint16_t>(port);
    if (!channel_.valid() || ::send(channel_.get(), &p, sizeof p, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof p)) {
      *err = EPIPE;
      return refused("publish: the connector is gone");
    }
    int reply = 0;
    platform::UniqueFd fd;
    const ssize_t n = platform::receive_message(channel_.get(), reinterpret_cast<char*>(&reply), sizeof reply, &fd);
    if (n != static_cast<ssize_t>(sizeof reply)) {
      *err = EPIPE;
      channel_.reset();
      return refused("publish: the connector is gone");
    }
    *err = reply;
    if (reply != 0 || !fd.valid()) return refused(std::string("publish: ") + std::strerror(reply ? reply : EBADF));
    return fd;
  }

  void stop() {
    channel_.reset();  // the connector reads EOF and exits; SIGKILL in case it is in a connect
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
  platform::UniqueFd channel_;
};

class Forwarder;

// One forwarded connection: the host client's socket and the one into the sandbox, pumped by a
// Tunnel (no quota: the bytes stay on this machine).
class Forward : public std::enable_shared_from_this<Forward> {
 public:
  Forward(std::atomic<std::size_t>& live, tcp::socket client, tcp::socket inside)
      : live_(live), client_(std::move(client)), inside_(std::move(inside)) {}
  ~Forward() { --live_; }

  bool start(std::string* error) {
    tunnel_.emplace(nullptr, nullptr, client_, inside_, "", weak_from_this(), [](const broker::Tunnel::Totals&) {});
    return tunnel_->start(error);
  }
  void close() {
    if (tunnel_) tunnel_->close("closed");
  }

 private:
  std::atomic<std::size_t>& live_;
  tcp::socket client_, inside_;
  std::optional<broker::Tunnel> tunnel_;
};

class Forwarder final : public PortForwarder {
 public:
  explicit Forwarder(broker::EventSink events) : events_(std::move(events)) {}
  ~Forwarder() override {
    stop();
    // Pending handlers own forwarded connections, whose destructors use live_: they go first.
    acceptors_.clear();
    io_.reset();
  }

  Status start(std::vector<platform::UniqueFd> listeners, int netns) {
    if (auto s = connector_.start(netns); !s) return s;
    io_.emplace(1);
    for (auto& l : listeners) {
      sockaddr_in a{};
      socklen_t len = sizeof a;
      if (::getsockname(l.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return sys_error("publish: getsockname");
      auto acc = std::make_unique<tcp::acceptor>(*io_);
      asio::error_code ec;
      acc->assign(tcp::v4(), l.get(), ec);
      if (ec) return refused("publish: cannot adopt the listening socket: " + ec.message());
      l.release();
      ports_.push_back(ntohs(a.sin_port));
      acceptors_.push_back(std::move(acc));
    }
    for (std::size_t i = 0; i < acceptors_.size(); ++i) accept_next(i);
    thread_ = std::thread([this] {
      // Splicing into a socket whose peer is gone raises SIGPIPE: blocked on this thread only, so
      // the call fails with EPIPE (as on the broker's threads).
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &set, nullptr);
      io_->run();
    });
    return Status::Ok();
  }

  void stop() override {
    if (stopped_.exchange(true) || !io_) {
      connector_.stop();
      return;
    }
    asio::post(*io_, [this] {
      asio::error_code ignored;
      for (auto& a : acceptors_) a->close(ignored);
    });
    // The session is over, but what its server wrote last may still be on its way to the host's
    // client: a connection whose ends both closed finishes by itself once that is delivered. Give
    // them a bounded moment (as the broker does its tunnels), then close what is left.
    for (int i = 0; i < 200 && live_.load() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    asio::post(*io_, [this] {
      for (const auto& w : forwards_)
        if (auto f = w.lock()) f->close();
      forwards_.clear();
    });
    // With the listeners and every connection closed, nothing is left for the thread to run.
    if (thread_.joinable()) thread_.join();
    connector_.stop();
  }

 private:
  void notice(const std::string& kind, const std::string& message) {
    if (!events_) return;
    try {
      events_(session::event_json(session::EventType::kNotice,
                                  {{"source", "publish"}, {"kind", kind}, {"message", message}}));
    } catch (...) {
      // Events are advisory: a failing sink never ends the forwarding.
    }
  }

  void accept_next(std::size_t i) {
    acceptors_[i]->async_accept(*io_, [this, i](const asio::error_code& ec, tcp::socket s) {
      if (stopped_ || !acceptors_[i]->is_open()) return;
      if (ec) {
        // EMFILE and friends: report, and accept again after a moment instead of spinning.
        notice("accept_failed", "127.0.0.1:" + std::to_string(ports_[i]) + ": accept: " + ec.message());
        auto timer = std::make_shared<asio::steady_timer>(*io_, std::chrono::milliseconds(100));
        timer->async_wait([this, i, timer](const asio::error_code& e) {
          if (!e && !stopped_) accept_next(i);
        });
        return;
      }
      forward(i, std::move(s));
      accept_next(i);
    });
  }

  void forward(std::size_t i, tcp::socket client) {
    asio::error_code ignored;
    if (live_.load() >= kMaxForwardedConnections) {
      ++refused_at_cap_;
      const auto now = std::chrono::steady_clock::now();
      if (!last_cap_notice_ || now - *last_cap_notice_ >= std::chrono::seconds(1)) {
        notice("connection_limit", std::to_string(kMaxForwardedConnections) +
                                       " forwarded connections open, the most a session holds; closed " +
                                       std::to_string(refused_at_cap_) + " new one(s)");
        refused_at_cap_ = 0;
        last_cap_notice_ = now;
      }
      client.close(ignored);
      return;
    }
    int err = 0;
    auto inside = connector_.connect(ports_[i], &err);
    if (!inside) {
      // Nothing listens on the port in the sandbox (yet): the host's client sees its connection
      // closed, as if refused. A connector that died is worth one line in the log.
      if (err == EPIPE && !connector_lost_) {
        connector_lost_ = true;
        notice("connector_lost", "published ports can no longer reach the sandbox: " + inside.error().message);
      }
      client.close(ignored);
      return;
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(inside->get(), reinterpret_cast<sockaddr*>(&ss), &len);
    tcp::socket in(*io_);
    in.assign(ss.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), inside->get(), ignored);
    if (ignored) {
      client.close(ignored);
      return;
    }
    inside->release();
    ++live_;
    auto f = std::make_shared<Forward>(live_, std::move(client), std::move(in));
    std::string error;
    if (!f->start(&error)) {
      notice("tunnel_failed", "127.0.0.1:" + std::to_string(ports_[i]) + ": " + error);
      return;
    }
    if (forwards_.size() > 2 * live_.load() + 16)
      for (auto it = forwards_.begin(); it != forwards_.end();) it = it->expired() ? forwards_.erase(it) : std::next(it);
    forwards_.insert(f);
  }

  broker::EventSink events_;
  Connector connector_;
  std::vector<int> ports_;
  std::atomic<std::size_t> live_{0};
  std::atomic<bool> stopped_{false};
  bool connector_lost_ = false;
  std::size_t refused_at_cap_ = 0;
  std::optional<std::chrono::steady_clock::time_point> last_cap_notice_;
  std::set<std::weak_ptr<Forward>, std::owner_less<std::weak_ptr<Forward>>> forwards_;  // I/O thread only
  std::thread thread_;
  // Declared last, reset explicitly first (see the destructor).
  std::optional<asio::io_context> io_;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors_;
};

}  // namespace

std::uint64_t forward_fd_budget(std::size_t ports) {
  if (ports == 0) return 0;
  return ports + 1 + kMaxForwardedConnections * broker::kFdsPerConnection;
}

namespace {

// "[::1]:<port>" when a socket on this host holds that port on the IPv6 loopback or wildcard
// (a bind there fails with EADDRINUSE), "" otherwise.
std::string held_on_ipv6_loopback(int port) {
  platform::UniqueFd probe(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe.valid()) return "";
  const int one = 1;
  ::setsockopt(probe.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(probe.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(static_cast<std::uint16_t>(port));
  a.sin6_addr = in6addr_loopback;
  if (::bind(probe.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno == EADDRINUSE)
    return "[::1]:" + std::to_string(port);
  return "";
}

}  // namespace

Result<std::vector<platform::UniqueFd>> listen_published(const std::vector<int>& ports) {
  std::vector<platform::UniqueFd> out;
  for (int port : ports) {
    const std::string where = "127.0.0.1:" + std::to_string(port);
    platform::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.valid()) return sys_error("publish: socket for " + where);
    // A port left in TIME_WAIT by the previous session is free to take; one that something
    // listens on is not (SO_REUSEADDR never lets two sockets listen on one port on Linux).
    const int one = 1;
    ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s.get(), 128) != 0) {
      const int e = errno;
      std::string why = std::strerror(e);
      if (e == EADDRINUSE) why = "something on this host already holds port " + std::to_string(port) + "; stop it or publish another port";
      else if (e == EACCES) why = "this user may not bind it (a privileged port); publish a higher port";
      return refused("network.publish: cannot listen on the host's " + where + ": " + why);
    }
    // The port must be free on the other loopback family too: a host service on [::1]:<port>
    // (or the IPv6 wildcard) is what `localhost:<port>` reaches for many clients, and the user
    // would talk to the agent's server believing it theirs. A probe bind tells (with
    // SO_REUSEADDR, as above, only a socket that holds the port conflicts); a host without IPv6
    // on its loopback has nothing there to confuse.
    if (auto held = held_on_ipv6_loopback(port); !held.empty())
      return refused("network.publish: cannot publish port " + std::to_string(port) + ": something on this host already holds " +
                     held + "; stop it or publish another port");
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::unique_ptr<PortForwarder>> PortForwarder::start(std::vector<platform::UniqueFd> listeners,
                                                            platform::UniqueFd netns,
                                                            broker::EventSink events) {
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0) return sys_error("publish: read the open-file limit");
  const std::uint64_t needed = kHelperReservedFds + forward_fd_budget(listeners.size());
  if (nofile.rlim_cur < needed)
    return refused("publish: the open-file limit " + std::to_string(nofile.rlim_cur) + " leaves no room for " +
                   std::to_string(kMaxForwardedConnections) + " forwarded connections (" + std::to_string(needed) +
                   " descriptors); raise the hard limit (ulimit -Hn)");
  auto f = std::make_unique<Forwarder>(std::move(events));
  if (auto s = f->start(std::move(listeners), netns.get()); !s) return s.error();
  return std::unique_ptr<PortForwarder>(std::move(f));
}

}  // namespace paddock::helper
