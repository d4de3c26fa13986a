// Published ports (the IR's egress.publish, docs/network.md): the helper listens on the host's
// 127.0.0.1:<port> and relays every connection it accepts there to 127.0.0.1:<port> (or [::1]:<port>)
// in the sandbox's own network namespace, with the broker's byte pump (helpers/broker/tunnel.h).
//
// The sockets into the sandbox are made by a small connector process, forked from the helper, that
// joins the sandbox's user and network namespaces (init passes the network namespace out; its
// owner is the user namespace) and hands back one connected socket per request. A thread of the
// helper cannot do this for an unprivileged caller: entering a network namespace needs
// CAP_SYS_ADMIN in the caller's own user namespace, which only a single-threaded process can
// change. Nothing goes the other way: the agent has no socket to the host through a published port.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/status.h"
#include "helpers/broker/broker.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// Forwarded connections open at once, all published ports together. Beyond it a new connection is
// closed (with a notice once a second): the agent's server cannot make the helper hold
// descriptors without bound.
inline constexpr std::size_t kMaxForwardedConnections = 64;

// The descriptors published ports may hold in the helper: each listening socket, the connector's
// channel, and every forwarded connection's (broker::kFdsPerConnection). The egress relay keeps
// them out of the broker's connection cap (egress_relay.cpp). 0 without published ports.
std::uint64_t forward_fd_budget(std::size_t ports);

// Binds and listens on the host's 127.0.0.1:<port> for every port, before the sandbox exists. A port
// something else holds, or one this user may not bind, is an error naming it.
Result<std::vector<platform::UniqueFd>> listen_published(const std::vector<int>& ports);

class PortForwarder {
 public:
  // listeners: from listen_published. netns: the sandbox's network namespace, from init; with
  // join_userns, the connector joins the namespace's owning user namespace first (the sandbox has
  // one of its own). events: notices for the session log (thread-safe).
  static Result<std::unique_ptr<PortForwarder>> start(std::vector<platform::UniqueFd> listeners,
                                                      platform::UniqueFd netns, bool join_userns,
                                                      broker::EventSink events);
  virtual ~PortForwarder() = default;
  // Stops accepting, lets the open connections finish delivering for up to 2 s, then closes them
  // and ends the connector. Idempotent.
  virtual void stop() = 0;
};

}  // namespace paddock::helper
