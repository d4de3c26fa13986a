// The opaque byte pump of an established connection: splice(2) through one pipe per direction,
// so payload bytes never enter user space (zero copy), counted per direction and against the
// host's quota. Never looks at the bytes (no TLS interception, ever). The broker's connections
// use it, and so does the helper's forwarder of published ports (helpers/linux/port_forward.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <asio.hpp>
#include <nlohmann/json.hpp>

#include "platform/unique_fd.h"

namespace paddock::broker {

class QuotaLedger;

class Tunnel {
 public:
  struct Totals {
    std::int64_t tx = 0;  // client -> upstream
    std::int64_t rx = 0;  // upstream -> client
    std::string end;      // "eof", "error: ...", "quota", "closed"
  };
  using Done = std::function<void(const Totals&)>;

  // Both sockets must live on the same strand; `keepalive` is captured by every pending handler
  // (the owning connection). `quota_key` empty = no quota (`ledger` and `events` are then unused;
  // otherwise `ledger` counts the bytes and `events` gets quota_exceeded).
  Tunnel(QuotaLedger* ledger, std::function<void(nlohmann::json)> events, asio::ip::tcp::socket& client,
         asio::ip::tcp::socket& upstream, std::string quota_key, std::weak_ptr<void> keepalive, Done done);

  // Creates the pipes and starts both directions. False (and `done` not called) when pipes fail.
  bool start(std::string* error);
  void close(const std::string& why);

 private:
  struct Direction {
    asio::ip::tcp::socket* src = nullptr;
    asio::ip::tcp::socket* dst = nullptr;
    platform::UniqueFd pipe_r, pipe_w;
    std::size_t pending = 0;  // bytes in the pipe not yet written to dst
    std::size_t capacity = 65536;
    bool eof = false;
    bool finished = false;
    std::int64_t* counter = nullptr;
  };
  void step(Direction& d);
  void finish_if_both_done();
  bool quota_exceeded_now(std::size_t want);

  QuotaLedger* ledger_;
  std::function<void(nlohmann::json)> events_;
  asio::ip::tcp::socket& client_;
  asio::ip::tcp::socket& upstream_;
  std::string quota_key_;
  std::weak_ptr<void> keepalive_;  // weak: the owner holds the tunnel
  Done done_;
  Totals totals_;
  Direction up_, down_;
  bool closed_ = false;
};

}  // namespace paddock::broker
