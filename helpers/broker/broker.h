// The egress broker: accepts on a listening socket (inside the sandbox's network namespace, or
// 127.0.0.1 for paddock-broker), speaks HTTP CONNECT and SOCKS5 CONNECT on the same port, and
// per connection: normalises the name, applies IrEgress, looks it up once on the host, vets the
// whole answer set, connects to the vetted address and pumps bytes opaquely (docs/network.md).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/status.h"
#include "helpers/broker/address_vetting.h"
#include "helpers/broker/resolver.h"
#include "platform/unique_fd.h"

namespace paddock::broker {

// Receives net_request, dns_resolved, net_egress, quota_exceeded and notice events (without
// "ts"); called from the broker's threads, so it must be thread-safe.
using EventSink = std::function<void(nlohmann::json event)>;

enum class AskDecision { kAllowOnce, kAllowSession, kDeny };
using AskReply = std::function<void(AskDecision)>;
// Mode ask, unknown domain: the connection waits until `reply` is called (once, any thread) or
// the ask timeout passes (deny). The handler must not block.
using AskHandler = std::function<void(const std::string& id, const std::string& host, int port, AskReply reply)>;

inline constexpr std::size_t kMaxConnections = 4096;
// Descriptors one connection can hold in the broker: the agent's socket, the upstream socket, and
// a splice pipe (two descriptors) for each direction.
inline constexpr std::size_t kFdsPerConnection = 6;

// The most connections a process that may open `fd_limit` descriptors can serve while keeping
// `reserved` of them for everything else it does; 0 when nothing is left for connections.
inline std::size_t connection_cap(std::uint64_t fd_limit, std::uint64_t reserved) {
  if (fd_limit <= reserved) return 0;
  return static_cast<std::size_t>(std::min<std::uint64_t>(kMaxConnections, (fd_limit - reserved) / kFdsPerConnection));
}

struct BrokerOptions {
  IrEgress egress;
  std::shared_ptr<Resolver> resolver;  // required
  EventSink events;                    // may be empty
  AskHandler ask;                      // required in mode ask
  VettingOptions vetting;
  // One I/O thread: splice moves the bytes inside the kernel, and one thread saves the
  // cross-thread hand-offs that added ~100 us per CONNECT in broker_bench (2-core box).
  int io_threads = 1;
  int lookup_threads = 2;
  // Beyond it new connections are closed with a notice. A host process sets it from its own
  // descriptor limit (connection_cap), so that the agent cannot use up the host's descriptors.
  std::size_t max_connections = kMaxConnections;
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds connect_timeout{15000};
  // 0 = egress.ask_timeout_secs; tests shorten it.
  std::chrono::milliseconds ask_timeout{0};
  // Where set, a connection from a local port it refuses is closed before anything is read: the
  // landlock tier's broker listens on the host's own loopback and serves the connections the
  // helper made for the agent only, not any other local process.
  std::function<bool(std::uint16_t peer_port)> accept_peer;
};

class BrokerCore;

class Broker {
 public:
  static Result<std::unique_ptr<Broker>> create(BrokerOptions options);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Takes a bound TCP socket (listening or not yet), starts the I/O and lookup threads and
  // returns. Call once.
  Status serve(platform::UniqueFd listen_fd);
  // Stops accepting, closes every connection, joins the threads. Idempotent.
  void stop();
  // Connections currently open (handshake, waiting or pumping).
  std::size_t live_connections() const;

 private:
  explicit Broker(std::shared_ptr<BrokerCore> core);
  std::shared_ptr<BrokerCore> core_;
};

}  // namespace paddock::broker
