// A TCP server on the host's 127.0.0.1 for tests that need something on the other side of a
// sandbox's relay: each connection is handed to the test's function on the server's one thread,
// in the order they come, until the server is destroyed.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace paddock::test {

class LoopbackServer {
 public:
  // On a free port; `serve` gets the connected socket and owns nothing: the server closes it
  // after. No free port is a fatal test error.
  explicit LoopbackServer(std::function<void(int fd)> serve);
  // On `port` (0: a free one), each connection with a 5 s receive timeout; what `record` returns
  // for it is kept, in order (seen()), so that a test can prove what arrived. A port that cannot
  // be had (a real sshd on 22, say) leaves error() saying so, and nothing is served.
  LoopbackServer(int port, std::function<std::string(int fd)> record);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_; }
  const std::string& error() const { return error_; }
  std::vector<std::string> seen() const;

 private:
  int fd_ = -1, port_ = 0;
  std::atomic<int> accepted_{0};
  std::string error_;
  mutable std::mutex mu_;
  std::vector<std::string> seen_;
  std::thread thread_;
};

}  // namespace paddock::test
