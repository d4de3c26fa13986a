// Host names as the broker accepts them: normalised once, IP literals refused in every spelling.
// Pure functions over strings (no OS headers) so the unit tests and the fuzzer call them directly.
#pragma once

#include <string>
#include <string_view>

namespace paddock::broker {

struct HostCheck {
  bool ok = false;
  std::string host;    // normalised (lowercase, one trailing dot stripped) when ok
  std::string reason;  // why refused, e.g. "2130706433 is an IP literal" (when !ok)
};

// Lowercases, strips ONE trailing dot, then requires an LDH name (letters, digits, hyphens;
// labels of 1..63 not starting or ending with '-', total <= 253). IDNA is out of scope: a
// non-ASCII or otherwise non-LDH name is refused, never guessed at. IP literals are refused:
// dotted quads, IPv6 (anything with ':' or brackets), and the inet_aton/WHATWG integer forms
// (2130706433, 0x7f.1, 0177.0.0.1), i.e. any name whose last label reads as a number.
HostCheck normalize_host(std::string_view raw);

// True when `raw` (already lowercase or not) is an IP literal in any of the spellings above.
bool looks_like_ip_literal(std::string_view raw);

}  // namespace paddock::broker
