#include "helpers/broker/broker_core.h"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "engine/session/event.h"
#include "helpers/broker/connection.h"

namespace paddock::broker {

BrokerCore::BrokerCore(BrokerOptions options, EgressPolicy policy)
    : options_(std::move(options)), policy_(std::move(policy)) {
  for (const auto& [key, bytes] : options_.egress.quotas) ledger_.set_limit(key, bytes);
  io_.emplace(options_.io_threads);
  work_.emplace(asio::make_work_guard(*io_));
  lookups_.emplace(static_cast<std::size_t>(options_.lookup_threads));
}

BrokerCore::~BrokerCore() {
  stop();
  // Order matters: pending handlers own connections; they must go while the rest is alive.
  accept_retry_.reset();
  acceptor_.reset();
  lookups_.reset();
  work_.reset();
  io_.reset();
}

std::chrono::milliseconds BrokerCore::ask_timeout() const {
  if (options_.ask_timeout.count() > 0) return options_.ask_timeout;
  return std::chrono::seconds(options_.egress.ask_timeout_secs);
}

void BrokerCore::emit(nlohmann::json event) const {
  if (!options_.events) return;
  try {
    options_.events(std::move(event));
  } catch (...) {
    // Events are advisory (docs/cli.md, "sessions"): a failing sink never takes the broker down.
  }
}

void BrokerCore::notice(const std::string& kind, const std::string& message) const {
  emit(session::event_json(session::Notice{"", "broker", kind, message, std::nullopt}));
}

bool BrokerCore::session_allowed(const std::string& host) const {
  std::lock_guard lock(mu_);
  return session_allows_.count(host) != 0;
}

void BrokerCore::allow_for_session(const std::string& host) {
  std::lock_guard lock(mu_);
  session_allows_.insert(host);
}

std::string BrokerCore::next_ask_id() { return "ask-" + std::to_string(++ask_counter_); }

void BrokerCore::register_connection(const std::shared_ptr<Connection>& c) {
  std::lock_guard lock(mu_);
  // Prune expired entries now and then so the set stays proportional to live connections.
  if (connections_.size() > 2 * live_.load() + 64) {
    for (auto it = connections_.begin(); it != connections_.end();)
      it = it->expired() ? connections_.erase(it) : std::next(it);
  }
  connections_.insert(c);
}

void BrokerCore::connection_closed() { --live_; }

Status BrokerCore::serve(platform::UniqueFd listen_fd) {
  if (serving_) return internal_error("broker: serve() called twice");
  if (!listen_fd.valid()) return internal_error("broker: no listening socket");
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(listen_fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0)
    return internal_error(std::string("broker: getsockname: ") + std::strerror(errno));
  if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
    return internal_error("broker: the listening socket is not TCP/IP");
  int listening = 0;
  socklen_t optlen = sizeof listening;
  if (getsockopt(listen_fd.get(), SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 || !listening) {
    if (::listen(listen_fd.get(), SOMAXCONN) != 0)
      return internal_error(std::string("broker: listen: ") + std::strerror(errno));
  }
  asio::error_code ec;
  acceptor_.emplace(asio::make_strand(*io_));
  acceptor_->assign(ss.ss_family == AF_INET ? asio::ip::tcp::v4() : asio::ip::tcp::v6(), listen_fd.get(), ec);
  if (ec) return internal_error("broker: cannot adopt the listening socket: " + ec.message());
  listen_fd.release();  // owned by the acceptor now
  accept_retry_.emplace(acceptor_->get_executor());
  serving_ = true;
  accept_next();
  for (int i = 0; i < std::max(1, options_.io_threads); ++i) {
    threads_.emplace_back([this] {
      // splice(2) into a socket whose peer is gone raises SIGPIPE; keep it on these threads
      // only (blocked, so the call fails with EPIPE) instead of changing the process's handler.
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &set, nullptr);
      io_->run();
    });
  }
  return {};
}

void BrokerCore::accept_next() {
  acceptor_->async_accept(asio::make_strand(*io_), [this](const asio::error_code& ec, asio::ip::tcp::socket s) {
    if (stopped_ || !acceptor_->is_open()) return;
    if (ec) {
      // EMFILE and friends: report, back off briefly instead of spinning, keep serving.
      notice("accept_failed", "accept: " + ec.message());
      accept_retry_->expires_after(std::chrono::milliseconds(100));
      accept_retry_->async_wait([this](const asio::error_code& e) {
        if (!e && !stopped_) accept_next();
      });
      return;
    }
    if (options_.accept_peer) {
      asio::error_code peer_ec;
      const auto peer = s.remote_endpoint(peer_ec);
      if (peer_ec || !options_.accept_peer(peer.port())) {
        if (!foreign_noticed_.exchange(true))
          notice("foreign_connection", "a connection to the session's broker that the sandbox did not make was "
                 "closed (from port " + std::to_string(peer_ec ? 0 : peer.port()) + "); later ones are closed silently");
        asio::error_code ignored;
        s.close(ignored);
        accept_next();
        return;
      }
    }
    if (live_.load() >= options_.max_connections) {
      // A flood of connections past the cap is one notice a second, not one line each.
      ++refused_at_cap_;
      const auto now = std::chrono::steady_clock::now();
      if (!last_cap_notice_ || now - *last_cap_notice_ >= std::chrono::seconds(1)) {
        notice("connection_limit", std::to_string(options_.max_connections) + " connections open, the most this session "
               "serves; closed " + std::to_string(refused_at_cap_) + " new one(s)");
        refused_at_cap_ = 0;
        last_cap_notice_ = now;
      }
      asio::error_code ignored;
      s.close(ignored);
    } else {
      ++live_;
      auto c = std::make_shared<Connection>(*this, std::move(s));
      register_connection(c);
      c->start();
    }
    accept_next();
  });
}

void BrokerCore::stop() {
  if (stopped_.exchange(true)) return;
  {
    std::lock_guard lock(liveness_->mu);
    liveness_->alive = false;
  }
  if (!serving_) return;
  asio::post(acceptor_->get_executor(), [this] {
    asio::error_code ignored;
    acceptor_->close(ignored);
    accept_retry_->cancel();
  });
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard lock(mu_);
    for (const auto& w : connections_)
      if (auto c = w.lock()) open.push_back(std::move(c));
  }
  for (auto& c : open) c->shutdown();
  open.clear();
  lookups_->join();  // in-flight lookups finish and post their (now ignored) results
  work_.reset();
  // Closed connections finish their handlers quickly; give them a bounded moment so their
  // net_egress events get out, then stop whatever is left.
  for (int i = 0; i < 200 && live_.load() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  io_->stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace paddock::broker
