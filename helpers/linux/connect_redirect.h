// The landlock tier's network (docs/network.md, "How a connection leaves the sandbox"), and an
// OCI container's. In the tier the agent has no network namespace of its own, so a TCP socket it
// makes is the host's. Its seccomp filter stops every connect(2) (user notification) and this
// answers it from the helper: the helper makes a TCP socket of its own, connects it to the
// session's broker on the host's 127.0.0.1 (or to a granted host port), puts it in the agent's
// descriptor table in place of the agent's socket (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD) and
// lets the call return 0. No connect(2) of the agent is ever let through to the kernel in the
// tier: the address the agent wrote is read at most once (for host ports), and the helper
// connects only what it read, so there is nothing to race; the worst a confused answer does is
// hand the agent a connection to its own broker.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "engine/ir.h"
#include "engine/status.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

// The local ports of the connections made for the agent, for the broker's peer filter: the
// broker's port is on the host's loopback, where any local process could reach it.
class BrokerPeers {
 public:
  void add(std::uint16_t port);
  // True once for each port add() was given (that connection is then served).
  bool take(std::uint16_t port);

 private:
  std::mutex mu_;
  std::multiset<std::uint16_t> ports_;
};

// The broker's listening socket for the tier: 127.0.0.1, a port the kernel picks.
struct BrokerListener {
  platform::UniqueFd fd;
  std::uint16_t port = 0;
};
Result<BrokerListener> listen_for_broker();

// Which connect(2) calls go to the broker.
enum class RedirectScope {
  // Every one (the landlock tier: the agent's sockets are the host's, and what it names is
  // never read).
  kEvery,
  // Those to an address off the caller's loopback, and to the proxy's port (3128) on it (an OCI
  // container, whose network namespace holds only loopback): the others continue to the kernel,
  // which can reach nothing but the container's own loopback and sockets, so an address changed
  // meanwhile gains nothing.
  kOffLoopback,
};

// Where the answers lead.
struct RedirectTargets {
  RedirectScope scope = RedirectScope::kEvery;
  // The broker's port on 127.0.0.1 and its peer filter; 0: no broker (a connection no host
  // port takes is refused, ECONNREFUSED).
  std::uint16_t broker_port = 0;
  std::shared_ptr<BrokerPeers> peers;
  // Host ports (network.host_ports): a connection to 127.0.0.1 or [::1] on one of them is made
  // to this machine's 127.0.0.1:<port> instead, and said through `on_host_port`. The address is
  // read once from the caller's memory and only what was read is connected.
  std::set<std::uint16_t> host_ports;
  std::function<void(std::uint16_t port)> on_host_port;
};

class ConnectRedirect {
 public:
  // `listener`: the seccomp listener of the agent's filter. Answers on a thread of its own until
  // stop() or until no process uses the filter any more.
  static Result<std::unique_ptr<ConnectRedirect>> start(platform::UniqueFd listener, RedirectTargets targets);
  ~ConnectRedirect();
  ConnectRedirect(const ConnectRedirect&) = delete;
  ConnectRedirect& operator=(const ConnectRedirect&) = delete;
  void stop();

 private:
  ConnectRedirect(platform::UniqueFd listener, platform::UniqueFd wake, RedirectTargets targets);
  void run();

  platform::UniqueFd listener_, wake_;
  RedirectTargets targets_;
  std::thread thread_;
};

class SessionRelay;

// The broker and the answers together, once the agent's seccomp listener is in hand: the relay
// (where there is one) serves `broker`'s socket for the connections made here only, and the
// answering thread starts.
Result<std::unique_ptr<ConnectRedirect>> start_brokered_connects(SessionRelay* relay, BrokerListener broker,
                                                                 const IrEgress& egress,
                                                                 platform::UniqueFd seccomp_listener,
                                                                 RedirectTargets targets);

}  // namespace paddock::helper
