// Test support for the broker: a loopback echo server, a scripted resolver, an event log and a
// blocking client with timeouts. Everything stays on 127.0.0.1; no real name is ever resolved.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <asio.hpp>
#include <nlohmann/json.hpp>

#include "helpers/broker/broker.h"
#include "helpers/broker/resolver.h"
#include "platform/unique_fd.h"

namespace paddock::broker::test {

// Echoes every byte back until the client half-closes, then closes. Runs its own thread.
class EchoServer {
 public:
  EchoServer();
  ~EchoServer();
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  void accept_next();
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> accepted_{0};
};

// Answers each lookup of a host with the next scripted answer set (the last one repeats).
class ScriptedResolver : public Resolver {
 public:
  void script(const std::string& host, std::vector<std::vector<std::string>> answers);
  Result<std::vector<IpAddress>> resolve(const std::string& host) override;
  int calls(const std::string& host);

 private:
  std::mutex mu_;
  std::map<std::string, std::deque<std::vector<IpAddress>>> answers_;
  std::map<std::string, int> calls_;
};

class EventLog {
 public:
  EventSink sink();
  std::vector<nlohmann::json> all();
  std::vector<nlohmann::json> of(const std::string& type);
  // Waits (bounded) until at least `n` events of `type` arrived.
  bool wait_for(const std::string& type, std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<nlohmann::json> events_;
};

// A bound 127.0.0.1 socket with an ephemeral port, for Broker::serve.
platform::UniqueFd loopback_listener(int* port);

// Blocking client with a receive timeout, so a broken broker fails the test instead of hanging it.
class Client {
 public:
  bool connect(int port);
  bool send(const std::string& bytes);
  // Reads until `marker` is seen (returns everything read), EOF, or timeout.
  std::string read_until(const std::string& marker, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  std::string read_exactly(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  std::string read_to_eof(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool eof_seen() const { return eof_; }
  void half_close();
  void close() { fd_.reset(); }
  int fd() const { return fd_.get(); }

 private:
  bool read_some(std::string* out, std::chrono::steady_clock::time_point deadline);
  platform::UniqueFd fd_;
  bool eof_ = false;
};

// A running broker over a ScriptedResolver and an EventLog, with loopback targets allowed (the
// "public" answers of the tests are mapped to the echo server on 127.0.0.1).
struct BrokerHarness {
  std::shared_ptr<ScriptedResolver> resolver = std::make_shared<ScriptedResolver>();
  EventLog events;
  std::unique_ptr<Broker> broker;
  int port = 0;
  std::string error;
  bool start(IrEgress egress, AskHandler ask = {}, std::chrono::milliseconds ask_timeout = std::chrono::milliseconds(0),
             std::chrono::milliseconds header_timeout = std::chrono::seconds(10));
  bool wait_idle(std::chrono::milliseconds timeout = std::chrono::seconds(10));
};

std::string connect_request(const std::string& authority);
std::string socks5_connect_domain(const std::string& host, int port);
int count_open_fds();

}  // namespace paddock::broker::test
