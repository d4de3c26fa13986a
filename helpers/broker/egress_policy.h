// The broker's reading of IrEgress: which (host, port) pairs a mode lets through, under which
// rule, and which quota a host draws on. Immutable after create(); safe to share across threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/status.h"

namespace paddock::broker {

enum class Verdict { kAllow, kDeny, kAsk };
const char* to_string(Verdict v);

struct PolicyDecision {
  Verdict verdict = Verdict::kDeny;
  std::string rule;    // "egress.domains: *.example.com", "egress.domains: x.org not listed", "mode off"
  std::string reason;  // one sentence for people (events and the 403 body)
};

class EgressPolicy {
 public:
  // Fails (kBadInput) on a domain, strict_ports or quotas key that is neither an LDH name nor
  // "*." + an LDH name, on a port outside 1..65535 and on a negative quota.
  static Result<EgressPolicy> create(const IrEgress& egress);

  // `host` must already be normalised (normalize_host). Ports matter only in strict mode.
  PolicyDecision decide(const std::string& host, int port) const;

  // The quotas key the host draws on (exact beats the longest matching "*." suffix), if any.
  std::optional<std::string> quota_key(const std::string& host) const;

  NetMode mode() const { return egress_.mode; }
  const IrEgress& egress() const { return egress_; }

  // "*.example.com" matches a.example.com and a.b.example.com, never example.com itself.
  static bool pattern_matches(const std::string& pattern, const std::string& host);

 private:
  explicit EgressPolicy(IrEgress egress) : egress_(std::move(egress)) {}
  std::optional<std::string> best_match(const std::vector<std::string>& patterns,
                                        const std::string& host) const;
  IrEgress egress_;
  std::vector<std::string> quota_keys_;
};

}  // namespace paddock::broker
