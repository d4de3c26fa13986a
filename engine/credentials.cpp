// The shapes of brokered credentials every front end and the helper agree on (credentials.h):
// pure, and free of the policy parser, so that the helper links it without YAML.
#include "engine/credentials.h"

#include <algorithm>
#include <cctype>

#include "engine/domain_name.h"

namespace paddock {

bool valid_credential_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  if (!(std::islower(static_cast<unsigned char>(name[0])) || std::isdigit(static_cast<unsigned char>(name[0])))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
           c == '_' || c == '-';
  });
}

Result<CredentialUpstream> parse_credential_upstream(const std::string& text) {
  CredentialUpstream u;
  std::string host = text;
  const auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    const std::string port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
      return bad_input("'" + text + "': expected HOST or HOST:PORT (port 1..65535)");
    u.port = std::stoi(port);
    host = text.substr(0, colon);
  }
  auto n = normalize_domain(host);
  if (!n.ok()) return n.error();
  if (n->rfind("*.", 0) == 0) return bad_input("'" + text + "': a credential is sent to one host, not a pattern");
  u.host = *n;
  return u;
}

std::string credential_template_error(const std::string& value) {
  if (value.find('\0') != std::string::npos) return "contains a NUL character";
  for (std::size_t at = value.find("${"); at != std::string::npos; at = value.find("${", at + 1)) {
    if (value.compare(at, std::char_traits<char>::length(kEndpointToken), kEndpointToken) == 0) continue;
    if (value.compare(at, std::char_traits<char>::length(kPlaceholderToken), kPlaceholderToken) == 0) continue;
    return "'" + value + "' uses an unknown ${...}: only ${endpoint} and ${placeholder} are replaced";
  }
  return "";
}

std::string expand_credential_template(const std::string& value, const std::string& endpoint,
                                       const std::string& placeholder) {
  std::string out;
  for (std::size_t i = 0; i < value.size();) {
    if (value.compare(i, std::char_traits<char>::length(kEndpointToken), kEndpointToken) == 0) {
      out += endpoint;
      i += std::char_traits<char>::length(kEndpointToken);
    } else if (value.compare(i, std::char_traits<char>::length(kPlaceholderToken), kPlaceholderToken) == 0) {
      out += placeholder;
      i += std::char_traits<char>::length(kPlaceholderToken);
    } else {
      out += value[i++];
    }
  }
  return out;
}

}  // namespace paddock
