// Internal: the state every connection of one broker shares. Not part of the library's API.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <asio.hpp>

#include "helpers/broker/broker.h"
#include "helpers/broker/egress_policy.h"
#include "helpers/broker/quota_ledger.h"

namespace paddock::broker {

class Connection;

// Ask replies may arrive from any thread at any time, even after stop(): they check this first.
struct Liveness {
  std::mutex mu;
  bool alive = true;
};

class BrokerCore {
 public:
  BrokerCore(BrokerOptions options, EgressPolicy policy);
  ~BrokerCore();

  Status serve(platform::UniqueFd listen_fd);
  void stop();

  void emit(nlohmann::json event) const;
  void notice(const std::string& kind, const std::string& message) const;

  const BrokerOptions& options() const { return options_; }
  const EgressPolicy& policy() const { return policy_; }
  QuotaLedger& ledger() { return ledger_; }
  asio::io_context& io() { return *io_; }
  asio::thread_pool& lookups() { return *lookups_; }
  std::chrono::milliseconds ask_timeout() const;
  const std::shared_ptr<Liveness>& liveness() const { return liveness_; }

  bool session_allowed(const std::string& host) const;
  void allow_for_session(const std::string& host);
  std::string next_ask_id();

  void register_connection(const std::shared_ptr<Connection>& c);
  void connection_closed();  // from ~Connection
  std::size_t live() const { return live_.load(); }

 private:
  void accept_next();

  BrokerOptions options_;
  EgressPolicy policy_;
  QuotaLedger ledger_;
  std::shared_ptr<Liveness> liveness_ = std::make_shared<Liveness>();
  mutable std::mutex mu_;
  std::set<std::string> session_allows_;
  std::set<std::weak_ptr<Connection>, std::owner_less<std::weak_ptr<Connection>>> connections_;
  std::atomic<std::size_t> live_{0};
  // Connections closed at the cap since the last connection_limit notice, and when that was
  // (accept handlers run one at a time on the acceptor's strand).
  std::size_t refused_at_cap_ = 0;
  std::atomic<bool> foreign_noticed_{false};
  std::optional<std::chrono::steady_clock::time_point> last_cap_notice_;
  std::atomic<std::uint64_t> ask_counter_{0};
  std::atomic<bool> stopped_{false};
  bool serving_ = false;
  // Declared last and reset explicitly in ~BrokerCore: destroying the io_context destroys the
  // pending handlers, which own the connections, whose destructors still use the members above.
  std::optional<asio::io_context> io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<asio::thread_pool> lookups_;
  std::optional<asio::ip::tcp::acceptor> acceptor_;
  std::optional<asio::steady_timer> accept_retry_;
  std::vector<std::thread> threads_;
};

}  // namespace paddock::broker
