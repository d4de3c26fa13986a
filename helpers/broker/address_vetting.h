// The answer-set vetting of docs/network.md (step 6): a resolved address is refused when it points
// anywhere a sandboxed agent must never reach through the broker (the host itself, the LAN, cloud
// metadata, special-purpose ranges, or an IPv6 wrapper around one of those).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "helpers/broker/ip_address.h"

namespace paddock::broker {

// Why `a` is forbidden ("private (RFC 1918)", "cloud metadata endpoint", ...), or nullopt when
// it is an ordinary global unicast address. IPv6 outside 2000::/3 is refused as a whole.
std::optional<std::string> forbidden_reason(const IpAddress& a);

struct VettingOptions {
  // Benchmarks and tests only (paddock-broker --unsafe-allow-loopback-targets): 127.0.0.0/8 and
  // ::1 pass, so that a "public" answer can be mapped to a server on loopback. Taints the run.
  bool unsafe_allow_loopback = false;
  // The session's PADDOCK_DEBUG_RESOLVE seam (tainted IR): loopback answers pass for exactly
  // these normalised names, and for no other.
  std::set<std::string> loopback_hosts;
};

struct AnswerVerdict {
  bool ok = false;
  std::string reason;  // "vetting: 10.0.0.5 is private (RFC 1918)" when refused
};

// The WHOLE set is refused when any one address is forbidden (a rebinding answer that mixes a
// public and a private address must not get through by connection order). Empty set: refused.
// `host` is the normalised name the answers are for (only consulted for options.loopback_hosts).
AnswerVerdict vet_answer_set(const std::vector<IpAddress>& answers, const VettingOptions& options = {},
                             const std::string& host = "");

}  // namespace paddock::broker
