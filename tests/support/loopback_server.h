// A TCP server on the host's 127.0.0.1, on a free port, for tests that need something on the
// other side of a sandbox's relay: each connection is handed to `serve` on the server's one
// thread, in the order they come, until the server is destroyed.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace paddock::test {

class LoopbackServer {
 public:
  // `serve` gets the connected socket and owns nothing: the server closes it after.
  explicit LoopbackServer(std::function<void(int fd)> serve);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1, port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

}  // namespace paddock::test
