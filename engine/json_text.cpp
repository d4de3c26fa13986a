#include "engine/json_text.h"

#include <nlohmann/json.hpp>

namespace paddock {
namespace {

// Length of the well-formed UTF-8 sequence that starts at s[i] (Unicode table 3-7), or 0.
std::size_t sequence_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const std::size_t left = s.size() - i;
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  const auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    return k < left && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lowercase is not the canonical form
}

}  // namespace

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string encode_json_text(std::string_view s) {
  if (json_text_is_plain(s)) return std::string(s);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out(kJsonBytesPrefix);
  out.reserve(out.size() + s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_at(s, i);
    if (n == 0 || s[i] == '%') {
      const auto c = static_cast<unsigned char>(s[i]);
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::optional<std::string> decode_json_text(std::string_view text) {
  if (text.substr(0, kJsonBytesPrefix.size()) != kJsonBytesPrefix) {
    if (!is_utf8(text)) return std::nullopt;
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = kJsonBytesPrefix.size(); i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int hi = hex_digit(text[i + 1]), lo = hex_digit(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  // One encoding per byte string: anything else (a %XX for a byte that needs none, a raw byte
  // that needed one, a plain string behind the marker) is not something Paddock wrote.
  if (encode_json_text(out) != text) return std::nullopt;
  return out;
}

nlohmann::json json_text_value(std::string_view s) { return nlohmann::json(encode_json_text(s)); }

}  // namespace paddock
