// The one DNS lookup per connection, behind an interface: the real one asks the host's resolver
// (getaddrinfo); tests and benchmarks use a fixed or scripted table and never resolve real names.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/status.h"
#include "helpers/broker/ip_address.h"

namespace paddock::broker {

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Blocking; called on the broker's lookup threads, never on the I/O threads. Must be
  // thread-safe. Returns every address of the answer (A and AAAA), or an error line.
  virtual Result<std::vector<IpAddress>> resolve(const std::string& host) = 0;
  // False for in-memory tables: the broker then answers on the I/O thread, sparing a hop.
  virtual bool may_block() const { return true; }
};

// getaddrinfo(host, AF_UNSPEC, SOCK_STREAM) on the host, with AI_ADDRCONFIG off so the vetting
// sees the whole answer set.
class SystemResolver : public Resolver {
 public:
  Result<std::vector<IpAddress>> resolve(const std::string& host) override;
};

// The --resolve HOST:IP seam: answers only from its table; an unknown name is an error (it never
// falls through to the real resolver).
class StaticResolver : public Resolver {
 public:
  void add(const std::string& host, const IpAddress& ip);
  Result<std::vector<IpAddress>> resolve(const std::string& host) override;
  bool may_block() const override { return false; }

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<IpAddress>> table_;
};

}  // namespace paddock::broker
