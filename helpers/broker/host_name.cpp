#include "helpers/broker/host_name.h"

#include <cstddef>

namespace paddock::broker {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// A label that inet_aton() or the WHATWG URL parser would read as a number: decimal, 0x-hex
// (including a bare "0x"), or octal with a leading 0.
bool numeric_label(std::string_view l) {
  if (l.empty()) return false;
  if (l.size() >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
    for (size_t i = 2; i < l.size(); ++i)
      if (!is_hex(l[i])) return false;
    return true;
  }
  for (char c : l)
    if (!is_digit(c)) return false;
  return true;
}

}  // namespace

bool looks_like_ip_literal(std::string_view raw) {
  if (raw.empty()) return false;
  if (raw.find(':') != std::string_view::npos || raw.front() == '[') return true;
  std::string_view s = raw;
  if (s.back() == '.') s.remove_suffix(1);
  // Whatever the other labels are, a name ending in a numeric label is parsed as an IPv4
  // address by WHATWG URL parsers (and is never a valid host name: TLDs are not numeric).
  size_t dot = s.rfind('.');
  std::string_view last = dot == std::string_view::npos ? s : s.substr(dot + 1);
  return numeric_label(last);
}

HostCheck normalize_host(std::string_view raw) {
  HostCheck r;
  std::string h;
  h.reserve(raw.size());
  for (char c : raw) h.push_back(lower(c));
  if (!h.empty() && h.back() == '.') h.pop_back();
  auto quoted = [&] {
    std::string q;
    for (char c : raw.substr(0, 80)) q.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
    return q;
  };
  if (h.empty()) {
    r.reason = "empty host name";
    return r;
  }
  if (looks_like_ip_literal(h)) {
    r.reason = quoted() + " is an IP literal; only host names are brokered";
    return r;
  }
  if (h.size() > 253) {
    r.reason = "host name longer than 253 characters";
    return r;
  }
  size_t label_start = 0;
  for (size_t i = 0; i <= h.size(); ++i) {
    if (i == h.size() || h[i] == '.') {
      size_t len = i - label_start;
      if (len == 0 || len > 63) {
        r.reason = quoted() + " has an empty or over-long label";
        return r;
      }
      if (h[label_start] == '-' || h[i - 1] == '-') {
        r.reason = quoted() + " has a label starting or ending with '-'";
        return r;
      }
      label_start = i + 1;
      continue;
    }
    char c = h[i];
    if (!(is_digit(c) || (c >= 'a' && c <= 'z') || c == '-')) {
      r.reason = quoted() + " is not a letters-digits-hyphens host name (IDNA is not supported)";
      return r;
    }
  }
  r.ok = true;
  r.host = std::move(h);
  return r;
}

}  // namespace paddock::broker
