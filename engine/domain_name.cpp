// Domain names as Paddock reads them in a policy (docs/network.md): lowercase LDH names, one
// trailing dot dropped, "*." + name for a pattern, never an IP literal in any spelling; and the
// loopback addresses the test seams may name. Pure, and free of the policy parser, so that the
// helper can use it too.
#include "engine/domain_name.h"

#include <algorithm>
#include <cctype>

namespace paddock {

namespace {

bool is_ip_literal(const std::string& d) {
  if (d.find(':') != std::string::npos || d.front() == '[') return true;
  // Dotted digits (also 1.2.3, 0x7f.1, 127.1): anything whose last label is numeric is an
  // address to some resolver, never a name.
  const auto dot = d.rfind('.');
  const std::string last = dot == std::string::npos ? d : d.substr(dot + 1);
  if (last.empty()) return false;
  return std::all_of(last.begin(), last.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
         (last.size() > 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X'));
}

}  // namespace

// One loopback address in its canonical spelling (127.a.b.c without leading zeros, or ::1), or
// "" when `ip` is anything else: the seam may point names at the host's loopback only.
std::string loopback_literal(const std::string& ip) {
  if (ip == "::1") return ip;
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    const auto dot = ip.find('.', start);
    const std::string part = ip.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos ||
        (part.size() > 1 && part[0] == '0') || std::stoi(part) > 255 || (parts == 0 && part != "127"))
      return "";
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts == 4 ? ip : "";
}

// Lowercases, strips one trailing dot, and checks the shape. "" + error text on failure.
Result<std::string> normalize_domain(std::string d) {
  std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!d.empty() && d.back() == '.') d.pop_back();
  if (d.empty()) return bad_input("empty domain");
  if (is_ip_literal(d)) return bad_input("'" + d + "' is an IP literal; domains only (use allow_cidr for addresses)");
  std::string rest = d;
  if (rest.rfind("*.", 0) == 0) rest = rest.substr(2);
  if (rest.find('*') != std::string::npos) return bad_input("'" + d + "': '*' is only allowed as a leading '*.' label");
  if (rest.find('.') == std::string::npos)
    return bad_input("'" + d + "' is too broad or not a fully qualified name (e.g. api.example.com, *.example.com)");
  std::size_t start = 0;
  while (start <= rest.size()) {
    auto dot = rest.find('.', start);
    if (dot == std::string::npos) dot = rest.size();
    const std::string label = rest.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-' ||
        !std::all_of(label.begin(), label.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }))
      return bad_input("'" + d + "' is not a valid domain name");
    start = dot + 1;
    if (dot == rest.size()) break;
  }
  return d;
}

}  // namespace paddock
