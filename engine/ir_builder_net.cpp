// The network half of the builder: one source for the mode, validated domains (never IP
// literals), strict ports, CIDR kept apart from domains, strictest quotas.
#include <algorithm>
#include <cctype>

#include "engine/ir_builder.h"

namespace paddock {

namespace {

// PADDOCK_DEBUG_RESOLVE=name=IP[,name=IP...]: the test seam that lets an integration test reach
// a server on 127.0.0.1 through the real broker. Names are normalised like allowed domains.
Result<std::map<std::string, std::vector<std::string>>> parse_debug_resolve(const std::string& value) {
  const std::string usage = "PADDOCK_DEBUG_RESOLVE: expected NAME=LOOPBACK_IP[,NAME=LOOPBACK_IP...] "
                            "(e.g. api.example.test=127.0.0.1)";
  std::map<std::string, std::vector<std::string>> table;
  std::size_t start = 0;
  while (start <= value.size()) {
    auto comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string entry = value.substr(start, comma - start);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) return bad_input(usage + "; got '" + entry + "'");
    auto name = normalize_domain(entry.substr(0, eq));
    if (!name.ok()) return bad_input("PADDOCK_DEBUG_RESOLVE: " + name.error().message);
    if (name->rfind("*.", 0) == 0) return bad_input("PADDOCK_DEBUG_RESOLVE: '" + *name + "': exact names only");
    const std::string ip = loopback_literal(entry.substr(eq + 1));
    if (ip.empty())
      return bad_input("PADDOCK_DEBUG_RESOLVE: '" + entry.substr(eq + 1) +
                       "' is not a loopback address (127.0.0.0/8 or ::1); the seam points names at this host only");
    table[*name].push_back(ip);
    start = comma + 1;
  }
  return table;
}

}  // namespace

Result<std::string> normalize_cidr(const std::string& c) {
  const auto slash = c.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == c.size())
    return bad_input("'" + c + "' is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)");
  const std::string addr = c.substr(0, slash), bits = c.substr(slash + 1);
  if (bits.size() > 3 || bits.find_first_not_of("0123456789") != std::string::npos)
    return bad_input("'" + c + "': prefix length must be a number");
  const int b = std::stoi(bits);
  const bool v6 = addr.find(':') != std::string::npos;
  if (b > (v6 ? 128 : 32)) return bad_input("'" + c + "': prefix length out of range");
  if (v6) {
    if (addr.find_first_not_of("0123456789abcdefABCDEF:") != std::string::npos)
      return bad_input("'" + c + "' is not an IPv6 CIDR range");
  } else {
    int parts = 0;
    std::size_t start = 0;
    while (true) {
      auto dot = addr.find('.', start);
      const std::string part = addr.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos || std::stoi(part) > 255)
        return bad_input("'" + c + "' is not an IPv4 CIDR range");
      ++parts;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (parts != 4) return bad_input("'" + c + "' is not an IPv4 CIDR range");
  }
  std::string out = c;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

Status IrBuilder::build_egress() {
  // One source for the mode (docs/network.md): cli-flags > agent default > user > system > off; any
  // other layer can only force it off.
  std::optional<std::pair<NetMode, Origin>> src;
  for (const auto* s : {&net_cli_, &net_agent_, &net_user_, &net_system_})
    if (s->has_value()) { src = *s; break; }
  if (src) {
    ir_.egress.mode = src->first;
    prov_.add(prov_key<&IrEgress::mode>(), src->second, "set", to_string(src->first));
  } else {
    prov_.add_raw(prov_key<&IrEgress::mode>(), Contribution{"default", "", "set", "no tier chose a mode: off"});
  }
  if (net_forced_off_ && ir_.egress.mode != NetMode::kOff) {
    ir_.egress.mode = NetMode::kOff;
    prov_.add(prov_key<&IrEgress::mode>(), net_forced_off_->second, "set", "off (forced)");
  }
  // Any tier may forbid loopback binds (it only tightens); none needs to allow them.
  ir_.egress.loopback_bind = !loopback_forbidden_;
  if (loopback_forbidden_) prov_.add(prov_key<&IrEgress::loopback_bind>(), *loopback_forbidden_, "set", "false");
  else prov_.add_raw(prov_key<&IrEgress::loopback_bind>(), Contribution{"default", "", "set", "the sandbox's loopback is its own: true"});
  // Published ports: any tier may publish (a repository's layer only once approved, and none
  // under the system's lockdown); the forward is inbound only, so it adds nothing the agent can
  // reach. A port the agent may not listen on would publish nothing of its.
  for (const auto& [port, at] : publish_) {
    if (loopback_forbidden_)
      return error_at(ErrorCode::kBadInput, at.pos(),
                      "port " + std::to_string(port) + " is published, but network.loopback_bind: false at " +
                          loopback_forbidden_->where() + " forbids the agent to listen on it; remove one of the two");
    ir_.egress.publish.push_back(port);
    prov_.add(prov_key<&IrEgress::publish>(std::to_string(port)), at, "added", std::to_string(port));
  }
  // Host ports: any tier may grant one (a repository's layer only once approved, none under the
  // system's lockdown); each is one service on the host's loopback the agent may reach. The same
  // port published as well would forward into the helper's own listener.
  for (const auto& [port, at] : host_ports_) {
    for (const auto& [published, pat] : publish_)
      if (published == port)
        return error_at(ErrorCode::kBadInput, at.pos(),
                        "port " + std::to_string(port) + " is both a host port (the sandbox reaches the host's) and published at " +
                            pat.where() + " (the host reaches the sandbox's); one port cannot go both ways");
    ir_.egress.host_ports.push_back(port);
    prov_.add(prov_key<&IrEgress::host_ports>(std::to_string(port)), at, "added", std::to_string(port));
  }
  for (const auto& d : domains_) {
    auto n = normalize_domain(d.text);
    if (!n.ok()) return error_at(ErrorCode::kBadInput, d.at.pos(), n.error().message);
    ir_.egress.domains.push_back(*n);
    prov_.add(prov_key<&IrEgress::domains>(*n), d.at, "added", d.text);
  }
  for (const auto& [d, ports] : ports_) {
    auto n = normalize_domain(d);
    if (!n.ok()) return error_at(ErrorCode::kBadInput, ports.front().second.pos(), n.error().message);
    for (const auto& [p, at] : ports) {
      ir_.egress.strict_ports[*n].push_back(p);
      prov_.add(prov_key<&IrEgress::strict_ports>(*n + ":" + std::to_string(p)), at, "added", d);
    }
  }
  for (const auto& c : cidrs_) {
    auto n = normalize_cidr(c.text);
    if (!n.ok()) return error_at(ErrorCode::kBadInput, c.at.pos(), n.error().message);
    ir_.egress.cidr.push_back(*n);
    prov_.add(prov_key<&IrEgress::cidr>(*n), c.at, "added", c.text);
  }
  for (const auto& [d, q] : quotas_) {
    auto n = normalize_domain(d);
    if (!n.ok()) return error_at(ErrorCode::kBadInput, q.second.pos(), n.error().message);
    auto it = ir_.egress.quotas.find(*n);
    if (it == ir_.egress.quotas.end() || q.first < it->second) ir_.egress.quotas[*n] = q.first;
    prov_.add(prov_key<&IrEgress::quotas>(*n), q.second, "set", std::to_string(q.first));
  }
  if (ir_.egress.mode == NetMode::kStrict)
    for (const auto& d : ir_.egress.domains)
      if (!ir_.egress.strict_ports.count(d))
        warn("network mode strict: " + d + " has no strict_ports entry, so no port of it is reachable (add it with --allow-domain " +
             d + ":443 or network.strict_ports)");
  ir_.egress.git_ssh = in_.git_ssh;
  if (in_.git_ssh) ir_.egress.git_ssh_connect = in_.connect_path;
  // Read here, from the launch environment the engine was given, and frozen into the IR: the
  // helper takes the table from the IR and never from its own environment.
  if (auto it = in_.environment.find("PADDOCK_DEBUG_RESOLVE"); it != in_.environment.end()) {
    auto table = parse_debug_resolve(it->second);
    if (!table.ok()) return table.error();
    ir_.egress.debug_resolve = std::move(*table);
  }
  return {};
}

}  // namespace paddock
