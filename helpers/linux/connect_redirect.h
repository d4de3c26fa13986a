// The landlock tier's filtered network (docs/capabilities.md, "Linux: the landlock tier"). The
// agent has no network namespace of its own there, so a TCP socket it makes is the host's. Its
// seccomp filter stops every connect(2) (user notification) and this answers it from the helper:
// the helper makes a TCP socket of its own, connects it to the session's broker on the host's
// 127.0.0.1, puts it in the agent's descriptor table in place of the agent's socket
// (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD) and lets the call return 0. Nothing the agent wrote
// (the address, its length) is ever read, so there is nothing to race, and no connect(2) of the
// agent is ever let through to the kernel: the worst a confused answer does is hand the agent a
// connection to its own broker.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

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

class ConnectRedirect {
 public:
  // `listener`: the seccomp listener of the agent's filter. Answers on a thread of its own until
  // stop() or until no process uses the filter any more.
  static Result<std::unique_ptr<ConnectRedirect>> start(platform::UniqueFd listener, std::uint16_t broker_port,
                                                        std::shared_ptr<BrokerPeers> peers);
  ~ConnectRedirect();
  ConnectRedirect(const ConnectRedirect&) = delete;
  ConnectRedirect& operator=(const ConnectRedirect&) = delete;
  void stop();

 private:
  ConnectRedirect(platform::UniqueFd listener, platform::UniqueFd wake, std::uint16_t broker_port,
                  std::shared_ptr<BrokerPeers> peers);
  void run();

  platform::UniqueFd listener_, wake_;
  std::uint16_t broker_port_;
  std::shared_ptr<BrokerPeers> peers_;
  std::thread thread_;
};

}  // namespace paddock::helper
