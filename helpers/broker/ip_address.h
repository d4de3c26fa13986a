// An IPv4 or IPv6 address as raw bytes: what the resolver returns and the vetting reads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sockaddr;

namespace paddock::broker {

struct IpAddress {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses bytes[0..3]

  // Strict numeric parse (inet_pton: dotted quad or RFC 4291 text); nullopt otherwise.
  static std::optional<IpAddress> parse(std::string_view text);
  static IpAddress v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);
  std::string to_string() const;
  std::uint32_t v4_value() const;  // host order; only meaningful when !v6
  bool operator==(const IpAddress&) const = default;
};

}  // namespace paddock::broker
