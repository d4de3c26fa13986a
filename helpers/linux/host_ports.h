// Host ports (the IR's egress.host_ports, docs/network.md): the reverse of published ports. The
// sandbox's init listens on 127.0.0.1:<port> in the sandbox's own network namespace before the
// agent starts and passes the listening socket out; the helper, on the host, accepts on it and
// relays each connection to the host's 127.0.0.1:<port> with the broker's byte pump
// (helpers/broker/tunnel.h). Only the granted ports lead anywhere: the agent has no other socket
// to the host, and it can neither take the port (init holds it first) nor choose where the
// helper connects. Each connection is an event (net_request, then net_egress with its bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/status.h"
#include "helpers/broker/broker.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// Relayed connections open at once, all host ports together. Beyond it a new connection is closed
// (with a notice once a second): the agent cannot make the helper hold descriptors without bound.
inline constexpr std::size_t kMaxHostPortConnections = 64;

// The descriptors host ports may hold in the helper: each listening socket and every relayed
// connection's (broker::kFdsPerConnection). 0 without host ports.
std::uint64_t host_port_fd_budget(std::size_t ports);

// The event of one connection the agent made to a granted host port (both tiers).
nlohmann::json host_port_event(int port);

// Listens on 127.0.0.1:<port> in the calling thread's network namespace: init calls it inside the
// sandbox. An error names the port.
Result<platform::UniqueFd> listen_host_port(int port);

class HostPortRelay {
 public:
  // listeners: the sandbox's listening sockets, from init (each names its port). events: the
  // session log (thread-safe).
  static Result<std::unique_ptr<HostPortRelay>> start(std::vector<platform::UniqueFd> listeners,
                                                      broker::EventSink events);
  virtual ~HostPortRelay() = default;
  // Stops accepting, lets open connections finish delivering for up to 2 s, then closes them.
  // Idempotent.
  virtual void stop() = 0;
};

}  // namespace paddock::helper
