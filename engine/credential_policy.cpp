// The credentials half of the builder (docs/credentials.md): declarations merged by name, each
// brokered only when it is stored and only to the host it was stored for; the variables each one
// feeds, and the test seams that point upstreams at this host.
#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/credentials.h"
#include "engine/ir_builder.h"
#include "engine/tiers.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Variables a credential may not set: Paddock's own (the proxy settings, the view's HOME, PATH,
// TMPDIR, git's ssh command), which the session needs as the plan says.
bool reserved_variable(const std::string& name) {
  std::string u = name;
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static const std::set<std::string> k = {"HOME", "PATH", "TMPDIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                          "NO_PROXY", "GIT_SSH_COMMAND"};
  return k.count(u) != 0;
}

// The header a credential is written into: an HTTP token, and none of the headers the broker
// itself decides (framing, routing, the connection).
std::string header_error(const std::string& h) {
  if (h.empty() || h.size() > 64) return "expected a header name of 1 to 64 characters";
  for (char c : h)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
      return "'" + h + "' is not a header name (letters, digits, '-')";
  static const std::set<std::string> k = {"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                                          "te", "trailer", "upgrade", "expect", "proxy-connection"};
  if (k.count(h)) return "'" + h + "' is decided by the broker itself, not a credential's header";
  return "";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// PADDOCK_DEBUG_UPSTREAM=host=127.0.0.1:PORT[,host=...]: the test seam that points a credential's
// upstream at a TLS server on this host (its certificate still verified for the host's name).
Result<std::map<std::string, std::string>> parse_debug_upstreams(const std::string& value) {
  const std::string usage = "PADDOCK_DEBUG_UPSTREAM: expected HOST=LOOPBACK_IP:PORT[,HOST=LOOPBACK_IP:PORT...] "
                            "(e.g. api.anthropic.com=127.0.0.1:8443)";
  std::map<std::string, std::string> table;
  std::size_t start = 0;
  while (start <= value.size()) {
    auto comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string entry = value.substr(start, comma - start);
    start = comma + 1;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) return bad_input(usage + "; got '" + entry + "'");
    auto host = normalize_domain(entry.substr(0, eq));
    if (!host.ok() || host->rfind("*.", 0) == 0) return bad_input(usage + "; '" + entry.substr(0, eq) + "' is not a host name");
    const std::string target = entry.substr(eq + 1);
    const auto colon = target.rfind(':');
    const std::string ip = colon == std::string::npos ? "" : loopback_literal(target.substr(0, colon));
    const std::string port = colon == std::string::npos ? "" : target.substr(colon + 1);
    if (ip.empty() || ip.find(':') != std::string::npos || port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 || std::stoi(port) > 65535)
      return bad_input("PADDOCK_DEBUG_UPSTREAM: '" + target +
                       "' is not an IPv4 loopback address and port (127.0.0.1:PORT); the seam points upstreams at this host only");
    table[*host] = ip + ":" + port;
  }
  return table;
}

}  // namespace

Result<std::map<std::string, std::vector<CredentialDeclaration>>> agent_credential_declarations(
    const std::string& resources_dir) {
  std::map<std::string, std::vector<CredentialDeclaration>> out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(resources_dir) / "agents", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") files.push_back(it->path());
  if (ec) return internal_error(resources_dir + "/agents: " + ec.message() + " (broken installation)");
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto bytes = read_policy_file(f.string(), false);
    if (!bytes.ok()) return bytes.error();
    auto l = parse_layer(*bytes, kTierAgent, "builtin:agents/" + f.filename().string());
    if (!l.ok()) return l.error();
    for (const auto& c : l->credentials) {
      auto u = parse_credential_upstream(c.upstream.text);
      if (!u.ok()) return with_origin(u.error(), c.upstream.at.pos());
      out[c.name.text].push_back({f.stem().string(), u->binding()});
    }
  }
  return out;
}

// A later declaration of the same name replaces what it writes (the trusted tiers come in
// order), budgets and bounds keep the strictest; the name keeps its first place.
void IrBuilder::merge_credential(const Layer::Credential& c) {
  auto it = std::find_if(credentials_.begin(), credentials_.end(),
                         [&](const Layer::Credential& x) { return x.name.text == c.name.text; });
  if (it == credentials_.end()) {
    credentials_.push_back(c);
    return;
  }
  Layer::Credential& m = *it;
  m.name.at = c.name.at;
  m.upstream = c.upstream;
  if (c.header) m.header = c.header;
  if (c.scheme) m.scheme = c.scheme;
  if (c.basic_user) m.basic_user = c.basic_user;
  for (const auto& [var, value] : c.env) {
    auto e = std::find_if(m.env.begin(), m.env.end(), [&](const auto& p) { return p.first == var; });
    if (e == m.env.end()) m.env.emplace_back(var, value);
    else e->second = value;
  }
  auto strictest = [](std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b) {
    if (b && (!a || *b < *a)) a = b;
  };
  strictest(m.max_requests, c.max_requests);
  strictest(m.max_bytes, c.max_bytes);
  strictest(m.max_request_bytes, c.max_request_bytes);
  strictest(m.max_response_bytes, c.max_response_bytes);
  if (m.budget_at.file.empty()) m.budget_at = c.budget_at;
}

Status IrBuilder::build_credentials() {
  for (const auto& c : credentials_) {
    const std::string key = prov_key<&IrSecrets::credentials>(c.name.text);
    auto err = [&](const Origin& at, const std::string& what) {
      return error_at(ErrorCode::kBadInput, at.pos(), what);
    };
    if (!valid_credential_name(c.name.text))
      return err(c.name.at, "'" + c.name.text + "' is not a credential name (a-z, 0-9, '.', '_', '-'; at most 64)");
    auto up = parse_credential_upstream(c.upstream.text);
    if (!up.ok()) return err(c.upstream.at, up.error().message);
    BrokeredCredential b;
    b.name = c.name.text;
    b.upstream = up->host;
    b.port = up->port;
    if (c.header) {
      b.header = lower(c.header->text);
      if (auto e = header_error(b.header); !e.empty()) return err(c.header->at, e);
    }
    if (c.scheme) b.scheme = *c.scheme;
    if (b.scheme == CredentialScheme::kBasic) {
      if (!c.basic_user) return err(c.name.at, "scheme basic needs basic_user (the user name sent with the key)");
      if (c.basic_user->text.find(':') != std::string::npos) return err(c.basic_user->at, "a Basic user name has no ':'");
      b.basic_user = c.basic_user->text;
    } else if (c.basic_user) {
      return err(c.basic_user->at, "basic_user is only for scheme basic");
    }
    for (const auto& [var, value] : c.env) {
      if (!is_identifier(var) || reserved_variable(var))
        return err(value.at, "'" + var + "' is not a variable a credential may set (a name of letters, digits and _; "
                             "not HOME, PATH, TMPDIR, the proxy settings or GIT_SSH_COMMAND)");
      if (auto e = credential_template_error(value.text); !e.empty()) return err(value.at, e);
      b.env[var] = value.text;
    }
    b.max_requests = c.max_requests;
    b.max_bytes = c.max_bytes;
    if (c.max_request_bytes) b.max_request_bytes = *c.max_request_bytes;
    if (c.max_response_bytes) b.max_response_bytes = *c.max_response_bytes;

    // Brokered only when stored, and only to the host it was stored for: a layer cannot send a
    // stored key elsewhere.
    auto stored = in_.stored_credentials.find(b.name);
    if (stored == in_.stored_credentials.end()) {
      if (!is_builtin(c.name.at.tier))
        warn(c.name.at.where() + ": credential " + b.name + " is not stored, so it is not brokered; store it with "
             "'paddock credentials add " + b.name + "'");
      prov_.add(key, c.name.at, "removed", b.name + " (not stored on this machine)");
      continue;
    }
    if (stored->second != up->binding())
      return error_at(ErrorCode::kPolicyBlocked, c.upstream.at.pos(),
                      "credential " + b.name + " is stored for " + stored->second + ", but this layer sends it to " +
                          up->binding() + "; a stored key goes only to the host it was stored for (store it again "
                          "with 'paddock credentials add " + b.name + " --upstream " + up->binding() + "' if that is meant)");
    std::string clash;
    for (const auto& [var, value] : b.env) {
      if (ir_.env.set.count(var))
        return err(c.env.front().second.at, "credential " + b.name + " sets " + var + ", which Paddock or the agent preset sets already");
      if (auto other = credential_env_.find(var); other != credential_env_.end()) clash = var + " (fed by " + other->second + ")";
    }
    if (!clash.empty()) {
      // Two stored credentials for the same variables (an API key and a login token for one
      // agent): the one declared first is the session's.
      warn(c.name.at.where() + ": credential " + b.name + " is stored but not brokered: " + clash +
           " is the session's already; remove one of the two ('paddock credentials remove') to choose");
      prov_.add(key, c.name.at, "removed", b.name + " (its variables are fed by another credential)");
      continue;
    }
    for (const auto& [var, value] : b.env) credential_env_[var] = b.name;
    prov_.add(key, c.name.at, "added", b.name + " -> " + up->binding());
    ir_.secrets.credentials.push_back(std::move(b));
  }
  // The test seams, read from the launch environment the engine was given and frozen into the
  // IR (which they taint): the helper takes them from the IR, never from its own environment.
  if (auto it = in_.environment.find("PADDOCK_DEBUG_UPSTREAM"); it != in_.environment.end()) {
    auto table = parse_debug_upstreams(it->second);
    if (!table.ok()) return table.error();
    ir_.secrets.debug_upstreams = std::move(*table);
  }
  if (auto it = in_.environment.find("PADDOCK_DEBUG_UPSTREAM_CA"); it != in_.environment.end()) {
    if (it->second.empty() || it->second[0] != '/')
      return bad_input("PADDOCK_DEBUG_UPSTREAM_CA: expected the absolute path of a PEM file of CA certificates");
    ir_.secrets.debug_upstream_ca = it->second;
  }
  return {};
}

}  // namespace paddock
