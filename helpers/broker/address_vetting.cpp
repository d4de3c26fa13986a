#include "helpers/broker/address_vetting.h"

#include <cstdint>

namespace paddock::broker {
namespace {

struct V4Range {
  std::uint32_t base;
  int len;
  const char* reason;
};

constexpr std::uint32_t ip4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// First match wins, so the most specific (and most telling) reasons come first.
constexpr V4Range kV4[] = {
    {ip4(169, 254, 169, 254), 32, "a cloud metadata endpoint"},
    {ip4(100, 100, 100, 200), 32, "a cloud metadata endpoint"},
    {ip4(255, 255, 255, 255), 32, "the broadcast address"},
    {ip4(0, 0, 0, 0), 32, "the unspecified address"},
    {ip4(0, 0, 0, 0), 8, "in 0.0.0.0/8 (\"this network\", RFC 791)"},
    {ip4(10, 0, 0, 0), 8, "private (RFC 1918)"},
    {ip4(100, 64, 0, 0), 10, "carrier-grade NAT (RFC 6598)"},
    {ip4(127, 0, 0, 0), 8, "loopback"},
    {ip4(169, 254, 0, 0), 16, "link-local (RFC 3927)"},
    {ip4(172, 16, 0, 0), 12, "private (RFC 1918)"},
    {ip4(192, 0, 0, 0), 24, "IETF protocol assignments (RFC 6890)"},
    {ip4(192, 0, 2, 0), 24, "documentation (TEST-NET-1)"},
    {ip4(192, 88, 99, 0), 24, "the deprecated 6to4 relay anycast range (RFC 7526)"},
    {ip4(192, 168, 0, 0), 16, "private (RFC 1918)"},
    {ip4(198, 18, 0, 0), 15, "benchmarking (RFC 2544)"},
    {ip4(198, 51, 100, 0), 24, "documentation (TEST-NET-2)"},
    {ip4(203, 0, 113, 0), 24, "documentation (TEST-NET-3)"},
    {ip4(224, 0, 0, 0), 4, "multicast"},
    {ip4(240, 0, 0, 0), 4, "reserved (240.0.0.0/4)"},
};

std::optional<std::string> v4_reason(std::uint32_t v) {
  for (const auto& r : kV4) {
    std::uint32_t mask = r.len == 0 ? 0 : ~std::uint32_t{0} << (32 - r.len);
    if ((v & mask) == r.base) return std::string(r.reason);
  }
  return std::nullopt;
}

// True when the first `bits` bits of `a` equal those of `bytes` (missing bytes count as zero).
bool prefix_is(const IpAddress& a, std::initializer_list<std::uint8_t> bytes, int bits) {
  const std::uint8_t* p = bytes.begin();
  for (int i = 0; i * 8 < bits; ++i) {
    std::uint8_t want = static_cast<size_t>(i) < bytes.size() ? p[i] : 0;
    int take = bits - i * 8;
    std::uint8_t mask = take >= 8 ? 0xff : static_cast<std::uint8_t>(0xff << (8 - take));
    if ((a.bytes[static_cast<size_t>(i)] & mask) != (want & mask)) return false;
  }
  return true;
}

std::uint32_t embedded_v4(const IpAddress& a, size_t offset) {
  return (std::uint32_t{a.bytes[offset]} << 24) | (std::uint32_t{a.bytes[offset + 1]} << 16) |
         (std::uint32_t{a.bytes[offset + 2]} << 8) | std::uint32_t{a.bytes[offset + 3]};
}

std::string v4_text(std::uint32_t v) {
  return IpAddress::v4(static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
                       static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v))
      .to_string();
}

std::optional<std::string> v6_reason(const IpAddress& a) {
  static const IpAddress kMetadata6 = *IpAddress::parse("fd00:ec2::254");
  if (a == kMetadata6) return "a cloud metadata endpoint";
  bool zero_high = true;
  for (size_t i = 0; i < 10; ++i) zero_high = zero_high && a.bytes[i] == 0;
  if (zero_high && a.bytes[10] == 0xff && a.bytes[11] == 0xff) {
    // A resolver has no business answering AAAA with an IPv4-mapped address; refuse them all,
    // naming the embedded address's own class when it has one.
    auto inner = v4_reason(embedded_v4(a, 12));
    return "IPv4-mapped (::ffff:0:0/96)" + (inner ? ", embedding " + *inner : std::string());
  }
  if (zero_high && a.bytes[10] == 0 && a.bytes[11] == 0) {
    bool rest_zero = a.bytes[12] == 0 && a.bytes[13] == 0 && a.bytes[14] == 0;
    if (rest_zero && a.bytes[15] == 0) return "the unspecified address";
    if (rest_zero && a.bytes[15] == 1) return "loopback";
    return "IPv4-compatible (::/96, deprecated)";
  }
  if (prefix_is(a, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48))
    return "local-use NAT64 (64:ff9b:1::/48, RFC 8215)";
  if (prefix_is(a, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) {
    if (auto inner = v4_reason(embedded_v4(a, 12)))
      return "NAT64 (64:ff9b::/96) embedding " + v4_text(embedded_v4(a, 12)) + ", " + *inner;
    return std::nullopt;  // well-known NAT64 prefix in front of a public IPv4 address
  }
  if (prefix_is(a, {0x20, 0x02}, 16)) {
    if (auto inner = v4_reason(embedded_v4(a, 2)))
      return "6to4 (2002::/16) embedding " + v4_text(embedded_v4(a, 2)) + ", " + *inner;
    return std::nullopt;
  }
  if (prefix_is(a, {0x20, 0x01, 0x00, 0x00}, 32)) return "Teredo (2001::/32)";
  if (prefix_is(a, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00}, 48)) return "benchmarking (2001:2::/48)";
  if (prefix_is(a, {0x20, 0x01, 0x00}, 23)) return "IETF protocol assignments (2001::/23)";
  if (prefix_is(a, {0x20, 0x01, 0x0d, 0xb8}, 32)) return "documentation (2001:db8::/32)";
  if (prefix_is(a, {0x3f, 0xff}, 20)) return "documentation (3fff::/20)";
  if (prefix_is(a, {0xfc}, 7)) return "unique local (fc00::/7)";
  if (prefix_is(a, {0xfe, 0x80}, 10)) return "link-local (fe80::/10)";
  if (prefix_is(a, {0xfe, 0xc0}, 10)) return "site-local (fec0::/10, deprecated)";
  if (prefix_is(a, {0xff}, 8)) return "multicast (ff00::/8)";
  if (prefix_is(a, {0x01, 0x00, 0, 0, 0, 0, 0, 0}, 64)) return "discard-only (100::/64)";
  // Everything outside global unicast is reserved; allow-by-exception would fail open.
  if (!prefix_is(a, {0x20}, 3)) return "reserved (outside 2000::/3 global unicast)";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> forbidden_reason(const IpAddress& a) {
  return a.v6 ? v6_reason(a) : v4_reason(a.v4_value());
}

AnswerVerdict vet_answer_set(const std::vector<IpAddress>& answers, const VettingOptions& options,
                             const std::string& host) {
  const bool loopback_ok = options.unsafe_allow_loopback || options.loopback_hosts.count(host) > 0;
  AnswerVerdict v;
  if (answers.empty()) {
    v.reason = "vetting: the lookup returned no address";
    return v;
  }
  for (const auto& a : answers) {
    if (loopback_ok) {
      static const IpAddress kLoop6 = *IpAddress::parse("::1");
      if ((!a.v6 && a.bytes[0] == 127) || a == kLoop6) continue;
    }
    if (auto why = forbidden_reason(a)) {
      v.reason = "vetting: " + a.to_string() + " is " + *why;
      return v;
    }
  }
  v.ok = true;
  return v;
}

}  // namespace paddock::broker
