// Environment policy (docs/policy-layers.md): an allowlist of NAME or PREFIX* patterns; deny beats
// pass-through; built-in hard-deny prefixes, suffixes and substrings (case-insensitive) beat both,
// except the agent preset's own key variables when the user opted in.
#pragma once

#include <string>
#include <vector>

namespace paddock {

// Documented forms: "AWS_*" (prefix), "*_KEY" (suffix) and "*TOKEN*" (substring).
const std::vector<std::string>& hard_deny_patterns();
// The matching hard-deny pattern for a name, or "".
std::string hard_deny_match(const std::string& name);
// The hard-deny pattern that makes a name look like a secret (a key, token, password,
// credential), or "". AWS_REGION and DBUS_SESSION_BUS_ADDRESS are hard-denied but no secret:
// what the user is told was stripped as a secret is what this matches.
std::string secret_shaped_match(const std::string& name);
// NAME or PREFIX*, identifier characters only.
bool valid_env_pattern(const std::string& p);
bool env_pattern_matches(const std::string& pattern, const std::string& name);
// PATH without empty, ".", relative or duplicate entries; a default when nothing remains.
std::string sanitize_path_var(const std::string& path);

}  // namespace paddock
