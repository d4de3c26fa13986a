#include "helpers/linux/host_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <asio.hpp>

#include "engine/session/event.h"
#include "helpers/broker/tunnel.h"
#include "helpers/linux/egress_relay.h"
#include "helpers/linux/sys_error.h"

namespace paddock::helper {
namespace {

using asio::ip::tcp;

// A host service whose accept queue is full answers no SYN: give up on it after this long.
constexpr auto kConnectTimeout = std::chrono::seconds(5);

// One relayed connection: the sandbox's client and the host's service, pumped by a Tunnel (no
// quota: the bytes stay on this machine).
class Relayed : public std::enable_shared_from_this<Relayed> {
 public:
  Relayed(asio::io_context& io, std::atomic<std::size_t>& live, tcp::socket client, int port, broker::EventSink events)
      : live_(live), client_(std::move(client)), host_(io), timer_(io), port_(port), events_(std::move(events)) {}
  ~Relayed() { --live_; }

  void start() {
    auto self = shared_from_this();
    timer_.expires_after(kConnectTimeout);
    timer_.async_wait([self](const asio::error_code& ec) {
      if (!ec) {
        asio::error_code ignored;
        self->host_.close(ignored);
      }
    });
    const tcp::endpoint to(asio::ip::address_v4::loopback(), static_cast<std::uint16_t>(port_));
    host_.async_connect(to, [self](const asio::error_code& ec) {
      self->timer_.cancel();
      if (ec) return self->finish(0, 0, "error: " + (ec == asio::error::operation_aborted ? "timed out" : ec.message()));
      self->pump();
    });
  }

  void close() {
    if (tunnel_) tunnel_->close("closed");
    asio::error_code ignored;
    client_.close(ignored);
    host_.close(ignored);
  }

 private:
  void pump() {
    tunnel_.emplace(nullptr, nullptr, client_, host_, "", weak_from_this(),
                    [this](const broker::Tunnel::Totals& t) { finish(t.tx, t.rx, t.end); });
    std::string error;
    if (!tunnel_->start(&error)) {
      tunnel_.reset();
      finish(0, 0, "error: " + error);
    }
  }

  void finish(std::int64_t tx, std::int64_t rx, const std::string& end) {
    if (finished_) return;
    finished_ = true;
    emit(session::event_json(session::NetEgress{"localhost", "127.0.0.1", port_, tx, rx, end}));
    asio::error_code ignored;
    client_.close(ignored);
    host_.close(ignored);
  }

  void emit(nlohmann::json e) {
    if (!events_) return;
    try {
      events_(std::move(e));
    } catch (...) {
      // Events are advisory: a failing sink never ends the relaying.
    }
  }

  std::atomic<std::size_t>& live_;
  tcp::socket client_, host_;
  asio::steady_timer timer_;
  int port_;
  broker::EventSink events_;
  std::optional<broker::Tunnel> tunnel_;
  bool finished_ = false;
};

class Relay final : public HostPortRelay {
 public:
  explicit Relay(broker::EventSink events) : events_(std::move(events)) {}
  ~Relay() override {
    stop();
    // Pending handlers own relayed connections, whose destructors use live_: they go first.
    acceptors_.clear();
    io_.reset();
  }

  Status start(std::vector<platform::UniqueFd> listeners) {
    io_.emplace(1);
    for (auto& l : listeners) {
      sockaddr_in a{};
      socklen_t len = sizeof a;
      if (::getsockname(l.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET)
        return sys_error("host ports: getsockname");
      auto acc = std::make_unique<tcp::acceptor>(*io_);
      asio::error_code ec;
      acc->assign(tcp::v4(), l.get(), ec);
      if (ec) return refused("host ports: cannot adopt the listening socket: " + ec.message());
      l.release();
      ports_.push_back(ntohs(a.sin_port));
      acceptors_.push_back(std::move(acc));
    }
    for (std::size_t i = 0; i < acceptors_.size(); ++i) accept_next(i);
    thread_ = std::thread([this] {
      // Splicing into a socket whose peer is gone raises SIGPIPE: blocked on this thread only.
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &set, nullptr);
      io_->run();
    });
    return Status::Ok();
  }

  void stop() override {
    if (stopped_.exchange(true) || !io_) return;
    asio::post(*io_, [this] {
      asio::error_code ignored;
      for (auto& a : acceptors_) a->close(ignored);
    });
    // What the host's service wrote last may still be on its way to the agent: a bounded moment.
    for (int i = 0; i < 200 && live_.load() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    asio::post(*io_, [this] {
      for (const auto& w : relayed_)
        if (auto r = w.lock()) r->close();
      relayed_.clear();
    });
    if (thread_.joinable()) thread_.join();
  }

 private:
  void emit(nlohmann::json e) {
    if (!events_) return;
    try {
      events_(std::move(e));
    } catch (...) {
    }
  }

  void notice(const std::string& kind, const std::string& message) {
    emit(session::event_json(session::Notice{"", "host_ports", kind, message, std::nullopt}));
  }

  void accept_next(std::size_t i) {
    acceptors_[i]->async_accept(*io_, [this, i](const asio::error_code& ec, tcp::socket s) {
      if (stopped_ || !acceptors_[i]->is_open()) return;
      if (ec) {
        notice("accept_failed", "127.0.0.1:" + std::to_string(ports_[i]) + ": accept: " + ec.message());
        auto timer = std::make_shared<asio::steady_timer>(*io_, std::chrono::milliseconds(100));
        timer->async_wait([this, i, timer](const asio::error_code& e) {
          if (!e && !stopped_) accept_next(i);
        });
        return;
      }
      relay(i, std::move(s));
      accept_next(i);
    });
  }

  void relay(std::size_t i, tcp::socket client) {
    asio::error_code ignored;
    if (live_.load() >= kMaxHostPortConnections) {
      ++refused_at_cap_;
      const auto now = std::chrono::steady_clock::now();
      if (!last_cap_notice_ || now - *last_cap_notice_ >= std::chrono::seconds(1)) {
        notice("connection_limit", std::to_string(kMaxHostPortConnections) +
                                       " connections to host ports open, the most a session holds; closed " +
                                       std::to_string(refused_at_cap_) + " new one(s)");
        refused_at_cap_ = 0;
        last_cap_notice_ = now;
      }
      client.close(ignored);
      return;
    }
    emit(host_port_event(ports_[i]));
    ++live_;
    auto r = std::make_shared<Relayed>(*io_, live_, std::move(client), ports_[i], events_);
    r->start();
    if (relayed_.size() > 2 * live_.load() + 16)
      for (auto it = relayed_.begin(); it != relayed_.end();) it = it->expired() ? relayed_.erase(it) : std::next(it);
    relayed_.insert(r);
  }

  broker::EventSink events_;
  std::vector<int> ports_;
  std::atomic<std::size_t> live_{0};
  std::atomic<bool> stopped_{false};
  std::size_t refused_at_cap_ = 0;
  std::optional<std::chrono::steady_clock::time_point> last_cap_notice_;
  std::set<std::weak_ptr<Relayed>, std::owner_less<std::weak_ptr<Relayed>>> relayed_;  // I/O thread only
  std::thread thread_;
  // Declared last, reset explicitly first (see the destructor).
  std::optional<asio::io_context> io_;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors_;
};

}  // namespace

std::uint64_t host_port_fd_budget(std::size_t ports) {
  if (ports == 0) return 0;
  return ports + kMaxHostPortConnections * broker::kFdsPerConnection;
}

nlohmann::json host_port_event(int port) {
  const std::string p = std::to_string(port);
  return session::event_json(
      session::NetRequest{"localhost", port, "host_port", "allow", "host_ports: " + p, "reaches this machine's 127.0.0.1:" + p, ""});
}

Result<platform::UniqueFd> listen_host_port(int port) {
  platform::UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return sys_error("host port socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s.get(), 128) != 0)
    return sys_error("listen for the host port on the sandbox's 127.0.0.1:" + std::to_string(port));
  return s;
}

Result<std::unique_ptr<HostPortRelay>> HostPortRelay::start(std::vector<platform::UniqueFd> listeners,
                                                            broker::EventSink events) {
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0) return sys_error("host ports: read the open-file limit");
  const std::uint64_t needed = kHelperReservedFds + host_port_fd_budget(listeners.size());
  if (nofile.rlim_cur < needed)
    return refused("host ports: the open-file limit " + std::to_string(nofile.rlim_cur) + " leaves no room for " +
                   std::to_string(kMaxHostPortConnections) + " relayed connections (" + std::to_string(needed) +
                   " descriptors); raise the hard limit (ulimit -Hn)");
  auto r = std::make_unique<Relay>(std::move(events));
  if (auto s = r->start(std::move(listeners)); !s) return s.error();
  return std::unique_ptr<HostPortRelay>(std::move(r));
}

}  // namespace paddock::helper
