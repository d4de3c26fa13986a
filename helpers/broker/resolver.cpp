#include "helpers/broker/resolver.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace paddock::broker {

Result<std::vector<IpAddress>> SystemResolver::resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0) return internal_error("lookup of " + host + " failed: " + gai_strerror(rc));
  std::vector<IpAddress> out;
  for (addrinfo* p = res; p; p = p->ai_next) {
    IpAddress a;
    if (p->ai_family == AF_INET) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(p->ai_addr);
      std::memcpy(a.bytes.data(), &sin->sin_addr, 4);
    } else if (p->ai_family == AF_INET6) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(p->ai_addr);
      a.v6 = true;
      std::memcpy(a.bytes.data(), &sin6->sin6_addr, 16);
    } else {
      continue;
    }
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  freeaddrinfo(res);
  return out;
}

void StaticResolver::add(const std::string& host, const IpAddress& ip) {
  std::lock_guard lock(mu_);
  table_[host].push_back(ip);
}

Result<std::vector<IpAddress>> StaticResolver::resolve(const std::string& host) {
  std::lock_guard lock(mu_);
  auto it = table_.find(host);
  if (it == table_.end()) return internal_error(host + " is not in the test resolver's table (--resolve or PADDOCK_DEBUG_RESOLVE); "
                                               "nothing falls through to the real resolver");
  return it->second;
}

}  // namespace paddock::broker
