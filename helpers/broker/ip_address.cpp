#include "helpers/broker/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

namespace paddock::broker {

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  if (text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN] = {};
  std::memcpy(buf, text.data(), text.size());
  IpAddress a;
  if (inet_pton(AF_INET, buf, a.bytes.data()) == 1) return a;
  if (inet_pton(AF_INET6, buf, a.bytes.data()) == 1) {
    a.v6 = true;
    return a;
  }
  return std::nullopt;
}

IpAddress IpAddress::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress r;
  r.bytes[0] = a;
  r.bytes[1] = b;
  r.bytes[2] = c;
  r.bytes[3] = d;
  return r;
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf)) return "?";
  return buf;
}

std::uint32_t IpAddress::v4_value() const {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

}  // namespace paddock::broker
