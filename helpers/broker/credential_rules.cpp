#include "helpers/broker/credential_rules.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

namespace paddock::broker {
namespace {

std::string base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

std::optional<std::string> unbase64(std::string_view in) {
  if (in.empty() || in.size() % 4 != 0 || in.size() > 16384) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  std::size_t len = static_cast<std::size_t>(n);
  // EVP_DecodeBlock counts the padding's zero bytes as data.
  for (std::size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) --len;
  out.resize(len);
  return out;
}

bool starts_with_word(std::string_view v, std::string_view word) {
  return v.size() > word.size() && iequals(v.substr(0, word.size()), word) && v[word.size()] == ' ';
}

// The credential a header value carries: "Bearer X" -> X, "Basic base64(u:X)" -> X, else the value.
std::string carried(std::string_view value) {
  if (starts_with_word(value, "Bearer")) {
    std::string_view t = value.substr(7);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    return std::string(t);
  }
  if (starts_with_word(value, "Basic")) {
    std::string_view t = value.substr(6);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    if (auto d = unbase64(t)) {
      const auto colon = d->find(':');
      return colon == std::string::npos ? *d : d->substr(colon + 1);
    }
  }
  return std::string(value);
}

// Headers that carry a credential to one service or another: the agent's are never forwarded,
// whatever they hold (the upstream gets exactly one credential, the stored one).
bool credential_field(std::string_view name, const CredentialSpec& c) {
  for (std::string_view n : {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie"})
    if (iequals(name, n)) return true;
  return iequals(name, c.header);
}

// Hop-by-hop fields (RFC 9110 7.6.1) and Host: the broker's own to write.
bool hop_field(std::string_view name) {
  for (std::string_view n : {"connection", "keep-alive", "proxy-connection", "te", "upgrade", "host"})
    if (iequals(name, n)) return true;
  return false;
}

bool named_in_connection(const std::vector<HttpField>& fields, std::string_view name) {
  return lists_token(fields, "connection", name);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

// The Host an agent may name: the endpoint itself, or the upstream it stands for.
bool acceptable_host(const std::string& host, const CredentialSpec& c) {
  const std::string h = lower(host);
  const std::string port = std::to_string(c.endpoint_port);
  for (const std::string& ok : {"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, c.upstream,
                                c.upstream + ":" + std::to_string(c.upstream_port)})
    if (h == ok) return true;
  return false;
}

RequestVerdict refuse(int status, const CredentialSpec& c, const std::string& what, const std::string& reason) {
  RequestVerdict v;
  v.status = status;
  v.rule = "credentials." + c.name + ": " + what;
  v.reason = reason;
  return v;
}

std::string printable_text(const std::string& s) {
  std::string out;
  for (char ch : s.substr(0, 300)) out.push_back((ch >= 0x20 && ch < 0x7f) ? ch : '?');
  return out;
}

const char* status_text(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

}  // namespace

std::string credential_header_value(const CredentialSpec& c) {
  switch (c.scheme) {
    case CredentialScheme::kRaw: return c.value;
    case CredentialScheme::kBearer: return "Bearer " + c.value;
    case CredentialScheme::kBasic: return "Basic " + base64(c.basic_user + ":" + c.value);
  }
  return c.value;
}

RequestVerdict judge_request(const RequestHead& req, const Framing& framing, const CredentialSpec& c) {
  if (iequals(req.method, "CONNECT"))
    return refuse(405, c, "CONNECT is not brokered",
                  "this endpoint relays HTTP requests to " + c.upstream + " only; it is not a proxy");
  if (req.target.empty() || req.target.front() != '/')
    return refuse(400, c, "only origin-form requests (a path) are brokered",
                  "send the request to this endpoint with a path, as to the upstream itself; it reaches " +
                      c.upstream + " and nothing else");
  bool websocket = false;
  if (auto up = field_value(req.fields, "upgrade")) {
    // WebSocket (Codex's Responses API streams over one): the credential goes into the upgrade
    // request like any other; what follows is the socket's frames, relayed as they are.
    if (!iequals(*up, "websocket") || !iequals(req.method, "GET") || !lists_token(req.fields, "connection", "upgrade"))
      return refuse(501, c, "protocol upgrades other than WebSocket are not brokered",
                    "this endpoint relays HTTP/1.1 requests and WebSocket upgrades only");
    websocket = true;
  }
  const auto host = field_value(req.fields, "host");
  if (!host && req.minor_version >= 1) return refuse(400, c, "no Host header", "an HTTP/1.1 request names its Host");
  if (host && !acceptable_host(*host, c))
    return refuse(403, c, "bound to " + c.upstream + ", not " + printable_text(*host),
                  "this credential is sent to " + c.upstream + " only; a request for another host is refused");
  bool carries = false;
  for (const auto& f : req.fields)
    if (credential_field(f.name, c) && constant_time_equal(carried(f.value), c.placeholder)) carries = true;
  if (!carries)
    return refuse(403, c, "request without the placeholder",
                  "requests to this endpoint must carry the session's placeholder (as the agent's "
                  "environment gives it) where the key would go; the real key stays with the broker");
  if (framing.kind == BodyKind::kLength && framing.length > c.max_request_bytes)
    return refuse(413, c, "request body larger than max_request (" + std::to_string(c.max_request_bytes) + " bytes)",
                  "one request's body may be at most " + std::to_string(c.max_request_bytes) + " bytes in this session");

  std::string head = req.method + " " + req.target + " HTTP/1.1\r\nHost: " + c.upstream;
  if (c.upstream_port != 443) head += ":" + std::to_string(c.upstream_port);
  head += "\r\n";
  for (const auto& f : req.fields) {
    if (credential_field(f.name, c) || hop_field(f.name) || named_in_connection(req.fields, f.name)) continue;
    head += f.name + ": " + f.value + "\r\n";
  }
  if (websocket) head += "Connection: Upgrade\r\nUpgrade: websocket\r\n";
  head += c.header + ": " + credential_header_value(c) + "\r\n\r\n";
  RequestVerdict v;
  v.allowed = true;
  v.websocket = websocket;
  v.rule = "credentials." + c.name;
  v.upstream_head = std::move(head);
  return v;
}

std::string client_response_head(const ResponseHead& r, bool close) {
  std::string head = "HTTP/1.1 " + std::to_string(r.status) + (r.reason.empty() ? "" : " " + r.reason) + "\r\n";
  for (const auto& f : r.fields) {
    if (iequals(f.name, "connection") || iequals(f.name, "keep-alive") || iequals(f.name, "proxy-connection") ||
        named_in_connection(r.fields, f.name))
      continue;
    head += f.name + ": " + f.value + "\r\n";
  }
  if (close) head += "Connection: close\r\n";
  return head + "\r\n";
}

std::string client_upgrade_head(const ResponseHead& r) {
  std::string head = "HTTP/1.1 101 " + (r.reason.empty() ? std::string("Switching Protocols") : r.reason) + "\r\n";
  for (const auto& f : r.fields) {
    if (iequals(f.name, "connection") || iequals(f.name, "upgrade") || iequals(f.name, "keep-alive") ||
        iequals(f.name, "proxy-connection"))
      continue;
    head += f.name + ": " + f.value + "\r\n";
  }
  return head + "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n";
}

std::string broker_response(int status, const std::string& credential, const std::string& rule,
                            const std::string& reason) {
  const bool policy = status != 502 && status != 504;
  std::string message =
      policy ? "Blocked by the Paddock sandbox's credential broker (" + credential + "): " + reason +
                   ". Rule: " + rule +
                   ". This is a deliberate policy decision of the sandbox, not a network or API failure; "
                   "retrying will be refused the same way. If this is needed, ask the user to change the "
                   "session's credential policy."
             : "The Paddock sandbox's credential broker (" + credential + ") could not reach the upstream: " + reason;
  nlohmann::json body = {{"type", "error"},
                         {"error", {{"type", policy ? "permission_error" : "api_error"},
                                    {"message", message},
                                    {"code", policy ? "paddock_sandbox_policy" : "paddock_upstream_unreachable"}}}};
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(text.size()) +
         "\r\nConnection: close\r\nX-Paddock-Rule: " + printable_text(rule) + "\r\n\r\n" + text;
}

std::string path_of(const std::string& target) {
  std::string p = target.substr(0, target.find_first_of("?#"));
  if (p.size() > 512) p = p.substr(0, 512) + "...";
  return p;
}

SecretScrubber::SecretScrubber(std::vector<std::string> secrets) {
  for (auto& s : secrets)
    if (!s.empty()) secrets_.push_back(std::move(s));
}

void SecretScrubber::feed(std::string& chunk) {
  if (secrets_.empty()) return;
  if (!held_.empty()) {
    chunk.insert(0, held_);
    held_.clear();
  }
  for (const auto& s : secrets_) {
    for (std::size_t at = chunk.find(s); at != std::string::npos; at = chunk.find(s, at + s.size())) {
      std::fill(chunk.begin() + static_cast<std::ptrdiff_t>(at), chunk.begin() + static_cast<std::ptrdiff_t>(at + s.size()), '*');
      ++scrubbed_;
    }
  }
  // The longest tail that is the start of a key: held until the next bytes say whether it is.
  std::size_t hold = 0;
  for (const auto& s : secrets_) {
    const std::size_t max = std::min(s.size() - 1, chunk.size());
    for (std::size_t len = max; len > hold; --len)
      if (std::memcmp(chunk.data() + chunk.size() - len, s.data(), len) == 0) {
        hold = len;
        break;
      }
  }
  if (hold > 0) {
    held_.assign(chunk, chunk.size() - hold, hold);
    chunk.resize(chunk.size() - hold);
  }
}

std::string SecretScrubber::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace paddock::broker
