// The seam between paddock-helper (helpers/linux, owner of namespaces and the session) and the
// egress broker (helpers/broker). The helper creates a TCP listening socket on
// 127.0.0.1:<port> INSIDE the sandbox's network namespace before exec, passes it out to the
// supervising (host-side) process with SCM_RIGHTS, and hands it to EgressRelay::start. No relay
// process runs inside the sandbox. (The landlock tier, which has no namespace, listens on the
// host's 127.0.0.1 instead and filters the peers: connect_redirect.h.) Implemented in
// egress_relay.cpp on the broker library.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/status.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// An event for events.jsonl and control-socket subscribers (net_request, dns_resolved,
// net_egress, quota_exceeded, ask, notice). The sink adds "ts"; it must be thread-safe.
using EventSink = std::function<void(nlohmann::json event)>;

enum class AskDecision { kAllowOnce, kAllowSession, kDeny };
// Called when mode is ask and a domain is unknown. The relay blocks that one connection until
// `reply` is called (any thread) or ask_timeout_secs pass (then: deny).
using AskHandler = std::function<void(const std::string& id, const std::string& host, int port,
                                      std::function<void(AskDecision)> reply)>;

// Which local ports the broker serves, where not every one (BrokerOptions::accept_peer).
using PeerFilter = std::function<bool(std::uint16_t peer_port)>;

class EgressRelay {
 public:
  virtual ~EgressRelay() = default;
  // Stops accepting, closes every connection, joins the broker's threads.
  virtual void stop() = 0;

  static Result<std::unique_ptr<EgressRelay>> start(platform::UniqueFd listen_fd, const IrEgress& egress,
                                                    EventSink events, AskHandler ask, PeerFilter accept_peer = {});
};

// Descriptors the helper keeps for itself whatever the agent does through the broker or published
// ports: the control socket and its clients, the session's files and events, the report and
// signal channels, the resolver's sockets and the broker's own threads.
inline constexpr std::uint64_t kHelperReservedFds = 128;

// The fixed in-sandbox proxy port (HTTP_PROXY=http://127.0.0.1:<port>).
inline constexpr int kSandboxProxyPort = 3128;

}  // namespace paddock::helper
