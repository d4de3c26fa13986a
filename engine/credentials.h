// Brokered credentials (docs/credentials.md): the shapes every front end and the helper agree on.
// A credential is stored on the host under a name and bound to one upstream ("host:port"); policy
// layers declare how an agent reaches it (the variables that carry the endpoint and the
// placeholder); the IR names it and its upstream, never its value.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/status.h"

namespace paddock {

// [a-z0-9] then [a-z0-9._-], at most 64 characters: a name that is also a safe file and
// keyring attribute.
bool valid_credential_name(const std::string& name);

struct CredentialUpstream {
  std::string host;  // normalised LDH name (lowercase, no trailing dot), never an IP literal
  int port = 443;
  // "host:port", the form the store binds a credential to.
  std::string binding() const { return host + ":" + std::to_string(port); }
};
// "api.example.com" or "api.example.com:8443"; an error says what is wrong with it.
Result<CredentialUpstream> parse_credential_upstream(const std::string& text);

// The two words a variable's value may use: ${endpoint} (http://127.0.0.1:PORT, the credential's
// endpoint in the sandbox) and ${placeholder} (what the agent sends instead of the key).
inline constexpr const char* kEndpointToken = "${endpoint}";
inline constexpr const char* kPlaceholderToken = "${placeholder}";
// "" when the value uses only those two (or none), else what is wrong.
std::string credential_template_error(const std::string& value);
std::string expand_credential_template(const std::string& value, const std::string& endpoint,
                                       const std::string& placeholder);

// Which agent presets declare each credential, and for which upstream: the app's Credentials
// page and `paddock credentials add` (the upstream a known name is stored for) read it.
struct CredentialDeclaration {
  std::string agent;     // the preset's name
  std::string upstream;  // "host:port"
};
Result<std::map<std::string, std::vector<CredentialDeclaration>>> agent_credential_declarations(
    const std::string& resources_dir);

}  // namespace paddock
