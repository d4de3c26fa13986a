#include "engine/display_text.h"

#include <cstdint>

#include "engine/json_text.h"

namespace paddock {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The code point of the well-formed UTF-8 sequence of n bytes at s[i].
std::uint32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (n) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
    case 3: return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
  }
}

bool hidden_or_control(std::uint32_t c) {
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string display_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = 1;
    while (n <= 4 && i + n <= s.size() && !is_utf8(s.substr(i, n))) ++n;
    if (n > 4 || i + n > s.size()) {
      const auto byte = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
      ++i;
      continue;
    }
    const std::uint32_t c = code_point(s, i, n);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x80 && hidden_or_control(c)) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else if (hidden_or_control(c)) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xf];
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace paddock
