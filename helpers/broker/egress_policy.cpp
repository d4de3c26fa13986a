#include "helpers/broker/egress_policy.h"

#include <algorithm>

#include "helpers/broker/host_name.h"

namespace paddock::broker {
namespace {

Status check_pattern(const std::string& where, const std::string& p) {
  std::string bare = p.rfind("*.", 0) == 0 ? p.substr(2) : p;
  HostCheck c = normalize_host(bare);
  if (!c.ok || c.host != bare)
    return bad_input(where + ": '" + p + "' is not a lowercase host name or '*.' + host name" +
                     (c.ok ? "" : " (" + c.reason + ")"));
  return {};
}

std::string default_ports_text(const std::vector<int>& ports) {
  std::string s;
  for (int p : ports) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kAllow: return "allow";
    case Verdict::kDeny: return "deny";
    case Verdict::kAsk: return "ask";
  }
  return "?";
}

Result<EgressPolicy> EgressPolicy::create(const IrEgress& egress) {
  for (const auto& d : egress.domains)
    if (Status s = check_pattern("egress.domains", d); !s) return s.error();
  for (const auto& [d, ports] : egress.strict_ports) {
    if (Status s = check_pattern("egress.strict_ports", d); !s) return s.error();
    for (int p : ports)
      if (p < 1 || p > 65535) return bad_input("egress.strict_ports: " + d + ": port " + std::to_string(p) + " outside 1-65535");
  }
  for (const auto& [d, bytes] : egress.quotas) {
    if (Status s = check_pattern("egress.quotas", d); !s) return s.error();
    if (bytes < 0) return bad_input("egress.quotas: " + d + ": negative byte count");
  }
  if (egress.ask_timeout_secs < 1) return bad_input("egress.ask_timeout_secs must be at least 1");
  EgressPolicy p(egress);
  for (const auto& [d, bytes] : egress.quotas) p.quota_keys_.push_back(d);
  return p;
}

bool EgressPolicy::pattern_matches(const std::string& pattern, const std::string& host) {
  if (pattern.rfind("*.", 0) == 0) {
    std::string_view suffix(pattern.data() + 1, pattern.size() - 1);  // ".example.com"
    return host.size() > suffix.size() &&
           std::string_view(host).substr(host.size() - suffix.size()) == suffix;
  }
  return pattern == host;
}

std::optional<std::string> EgressPolicy::best_match(const std::vector<std::string>& patterns,
                                                    const std::string& host) const {
  std::optional<std::string> best;
  for (const auto& p : patterns) {
    if (!pattern_matches(p, host)) continue;
    if (p == host) return p;  // exact always wins
    if (!best || p.size() > best->size()) best = p;
  }
  return best;
}

PolicyDecision EgressPolicy::decide(const std::string& host, int port) const {
  PolicyDecision d;
  if (egress_.mode == NetMode::kOff) {
    d.rule = "mode off";
    d.reason = "the session's network mode is off: no connection leaves the sandbox";
    return d;
  }
  auto match = best_match(egress_.domains, host);
  if (!match) {
    if (egress_.mode == NetMode::kAsk) {
      d.verdict = Verdict::kAsk;
      d.rule = "ask: " + host + " not listed";
      d.reason = "waiting for the user to allow or deny this domain";
      return d;
    }
    d.rule = "egress.domains: " + host + " not listed";
    d.reason = "the domain is not in the session's egress allowlist";
    return d;
  }
  if (egress_.mode == NetMode::kStrict) {
    // strict_ports is keyed by the same pattern as the matching domains entry; without an entry
    // only 443 is open.
    auto it = egress_.strict_ports.find(*match);
    std::vector<int> ports = it == egress_.strict_ports.end() ? std::vector<int>{443} : it->second;
    if (std::find(ports.begin(), ports.end(), port) == ports.end()) {
      d.rule = "egress.strict_ports: " + *match + " allows port(s) " + default_ports_text(ports) +
               ", not " + std::to_string(port);
      d.reason = "strict mode: the port is not listed for this domain";
      return d;
    }
    d.verdict = Verdict::kAllow;
    d.rule = "egress.strict_ports: " + *match + ":" + std::to_string(port);
    d.reason = "listed (domain and port)";
    return d;
  }
  d.verdict = Verdict::kAllow;
  d.rule = "egress.domains: " + *match;
  d.reason = "listed";
  return d;
}

std::optional<std::string> EgressPolicy::quota_key(const std::string& host) const {
  return best_match(quota_keys_, host);
}

}  // namespace paddock::broker
