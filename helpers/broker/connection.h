// One client connection on the proxy port, from the first byte to the end of its tunnel:
// sniff (0x05 = SOCKS5, else HTTP) -> parse -> normalise -> policy (and ask) -> one lookup ->
// vet the answer set -> connect to the vetted address -> reply -> Tunnel. Every step runs on the
// connection's strand; every step is repeated for every connection (no cache of verdicts or
// answers, so DNS rebinding between connections is caught).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <asio.hpp>

#include "helpers/broker/egress_policy.h"
#include "helpers/broker/ip_address.h"
#include "helpers/broker/tunnel.h"

namespace paddock::broker {

class BrokerCore;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(BrokerCore& core, asio::ip::tcp::socket socket);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // From Broker::stop (any thread): posts a close to the strand.
  void shutdown();

 private:
  enum class Protocol { kUnknown, kHttp, kSocks5 };

  void read_more();
  void on_bytes();
  void on_http();
  void on_socks();
  void handle_target(const std::string& raw_host, int port);
  void ask_user(const PolicyDecision& decision);
  void on_ask_reply(int decision);  // AskDecision as int, or -1 for timeout
  void allowed(const PolicyDecision& decision);
  void on_resolved(std::vector<IpAddress> answers, std::string error);
  void connect_next();
  void on_connected();
  void start_tunnel();
  void refuse(const std::string& rule, const std::string& reason, bool emit_request = true);
  void drop(const std::string& kind, const std::string& message);
  void write_then_close(std::string bytes);
  void fail_upstream(const std::string& why);
  void drain_then_close();
  void drain_read();
  void close();
  nlohmann::json request_event(const char* decision, const std::string& rule,
                               const std::string& reason) const;

  BrokerCore& core_;
  asio::ip::tcp::socket client_;
  asio::ip::tcp::socket upstream_;
  asio::steady_timer timer_;
  std::array<char, 4096> read_buf_{};
  int attempt_ = 0;  // connect attempt, so a stale timeout cannot cancel a newer attempt
  std::string buffer_;  // bytes read before the tunnel starts (bounded by kMaxHeaderBytes)
  Protocol protocol_ = Protocol::kUnknown;
  bool socks_greeted_ = false;
  std::string host_;    // normalised
  int port_ = 0;
  std::string rule_;    // the allowing rule
  std::string quota_key_;
  std::string ask_id_;
  bool ask_pending_ = false;
  std::vector<IpAddress> answers_;
  std::size_t next_answer_ = 0;
  std::string pinned_ip_;
  std::string leftover_;  // client bytes after the request, sent upstream before pumping
  std::optional<Tunnel> tunnel_;
  bool request_parsed_ = false;
  bool closed_ = false;
};

}  // namespace paddock::broker
