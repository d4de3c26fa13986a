// Internal to the credential broker (credential_broker.h): the state its connections share, and
// one agent connection on a credential's endpoint, exchange after exchange:
//
//   read the request head -> judge it (credential_rules.h) and the budgets -> an upstream TLS
//   stream (kept from the last exchange, or: one lookup, vetting, connect, handshake verified
//   for the upstream's name) -> the rewritten head -> the body both ways at once, each read
//   written on as it arrives -> one credential_request event -> the next request, or close.
//
// Everything runs on the broker's one I/O thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <asio.hpp>
#include <asio/ssl.hpp>

#include "helpers/broker/credential_broker.h"
#include "helpers/broker/http_message.h"
#include "helpers/broker/upstream_tls.h"

namespace paddock::broker {

class CredentialConnection;

// One credential's counters, shared by its connections.
struct CredentialState {
  CredentialSpec spec;
  std::atomic<std::int64_t> started{0};   // exchanges let through (the request budget counts these)
  std::atomic<std::int64_t> relayed{0};   // exchanges whose request reached the upstream
  std::atomic<std::int64_t> refused{0};
  std::atomic<std::int64_t> bytes_tx{0};  // to the upstream
  std::atomic<std::int64_t> bytes_rx{0};  // to the agent
  mutable std::mutex mu;
  std::string last_used;
};

class CredentialCore {
 public:
  explicit CredentialCore(CredentialBrokerOptions options);
  ~CredentialCore();

  Status setup_tls();
  Status serve();
  void stop();
  std::vector<session::CredentialUsage> usage() const;

  void emit(nlohmann::json event) const;
  void notice(const std::string& kind, const std::string& message) const;
  void connection_closed(CredentialConnection* c);

  const CredentialBrokerOptions& options() const { return options_; }
  asio::io_context& io() { return *io_; }
  asio::thread_pool& lookups() { return lookups_; }
  asio::ssl::context& tls() { return tls_; }

 private:
  void accept_next(std::size_t index);

  CredentialBrokerOptions options_;
  std::vector<std::unique_ptr<CredentialState>> states_;
  // Reset first in ~CredentialCore: destroying the pending handlers destroys the connections,
  // whose destructors still use the members below.
  std::optional<asio::io_context> io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  asio::thread_pool lookups_{1};
  asio::ssl::context tls_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;
  std::set<std::weak_ptr<CredentialConnection>, std::owner_less<std::weak_ptr<CredentialConnection>>> connections_;
  std::atomic<std::size_t> live_{0};
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

class CredentialConnection : public std::enable_shared_from_this<CredentialConnection> {
 public:
  CredentialConnection(CredentialCore& core, CredentialState& state, asio::ip::tcp::socket client);
  ~CredentialConnection();
  CredentialConnection(const CredentialConnection&) = delete;
  CredentialConnection& operator=(const CredentialConnection&) = delete;

  void start();
  void close();

 private:
  void read_head();
  void on_head();
  void refuse(int status, const std::string& rule, const std::string& reason);
  void fail_upstream(int status, const std::string& why);
  void ensure_upstream();
  void on_resolved(std::vector<asio::ip::tcp::endpoint> endpoints, std::string error);
  void connect_next();
  void handshake();
  void send_head();
  // Client -> upstream: the request's body.
  void pump_request();
  void request_body_from_buffer();
  void write_request(std::string bytes, bool last);
  // Upstream -> client: the response's head(s) and body.
  void read_response();
  void on_response_bytes();
  void write_response(std::string bytes, bool last);
  void exchange_done();
  void emit_exchange(const char* decision, int status, const std::string& rule);
  bool budget_refusal(std::string& rule, std::string& reason);
  void arm_timer(std::chrono::milliseconds after);
  void disarm_timer();
  void wait_for_deadline();
  void continue_response();
  void maybe_done();
  void drain_then_close();
  // After a WebSocket upgrade's 101: the socket's bytes both ways, as they come.
  void start_websocket();
  void websocket_up();
  void websocket_down();
  void end_websocket(const std::string& why);
  bool upstream_reusable() const;
  std::string tls_failure(const asio::error_code& ec) const;

  CredentialCore& core_;
  CredentialState& state_;
  asio::ip::tcp::socket client_;
  // Shared with the handlers of its pending operations, which reference it until they run.
  std::shared_ptr<UpstreamTls> upstream_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  bool timer_waiting_ = false;         // timer_ has a wait pending for the deadline
  std::uint64_t timer_generation_ = 0;  // a cancelled wait's handler finds a newer number and stops
  std::array<char, 64 * 1024> client_buf_{};
  // Decrypted bytes from one read of the upstream: everything that has arrived, up to this.
  std::array<char, 256 * 1024> upstream_buf_{};
  std::string in_;         // from the agent, not yet used (a head, body bytes, a pipelined request)
  std::string resp_in_;    // from the upstream, not yet used
  bool closed_ = false;
  std::uint64_t exchange_ = 0;  // handlers of an earlier exchange find a newer number and stop

  // The exchange in progress.
  RequestHead req_;
  Framing req_framing_;
  std::string upstream_head_;
  std::chrono::steady_clock::time_point t0_;
  bool in_exchange_ = false;
  bool emitted_ = true;                  // this exchange's event is out
  bool connecting_ = false;
  bool timed_out_ = false;
  bool reused_ = false;                  // the upstream stream served an earlier exchange
  bool websocket_ = false;               // the request asked for a WebSocket upgrade
  bool upgraded_ = false;                // the upstream switched: bytes both ways until either ends
  std::string rule_;
  bool counted_ = false;                 // took one of the request budget
  bool client_close_ = false;            // the agent asked to close after this response
  bool upstream_close_ = false;          // the upstream will close (or must be dropped) after it
  std::int64_t req_left_ = 0;            // kLength: body bytes still to relay
  std::optional<ChunkedTracker> req_chunks_;
  std::int64_t req_body_ = 0;
  bool request_done_ = false;
  bool reading_client_ = false;
  ResponseHead resp_;
  bool resp_head_done_ = false;
  Framing resp_framing_;
  std::int64_t resp_left_ = 0;
  std::optional<ChunkedTracker> resp_chunks_;
  std::int64_t resp_body_ = 0;
  bool response_done_ = false;
  int status_ = 0;
  std::int64_t tx_ = 0, rx_ = 0;         // this exchange's bytes
  std::unique_ptr<SecretScrubber> scrubber_;
  // The upstream connection.
  std::vector<asio::ip::tcp::endpoint> endpoints_;
  std::size_t next_endpoint_ = 0;
  std::chrono::steady_clock::time_point upstream_idle_since_;
};

}  // namespace paddock::broker
