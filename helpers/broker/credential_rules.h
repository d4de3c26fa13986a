// What the credential endpoint does to one request and one response (docs/credentials.md), as pure
// functions: accept only requests that carry the placeholder, for the bound upstream, in origin
// form; strip every credential header the agent sent; write the key into the upstream's header;
// answer refusals in words an agent reads as policy; scrub the key out of what comes back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir.h"
#include "helpers/broker/http_message.h"

namespace paddock::broker {

struct CredentialSpec {
  std::string name;
  std::string upstream;        // host name: the Host header and the TLS name
  int upstream_port = 443;
  std::string connect_to;      // "127.0.0.1:PORT" (PADDOCK_DEBUG_UPSTREAM) instead of a lookup; ""
  std::string header = "authorization";
  CredentialScheme scheme = CredentialScheme::kBearer;
  std::string basic_user;
  std::string placeholder;     // what the agent sends
  std::string value;           // the key: written only into the upstream's header
  std::optional<std::int64_t> max_requests, max_bytes;
  std::int64_t max_request_bytes = kDefaultCredentialRequestBytes;
  std::int64_t max_response_bytes = kDefaultCredentialResponseBytes;
  int endpoint_port = 0;       // 127.0.0.1:<port> in the sandbox (the Host the agent may name)
};

// The header value the upstream reads: the key, "Bearer key" or "Basic base64(user:key)".
std::string credential_header_value(const CredentialSpec& c);

struct RequestVerdict {
  bool allowed = false;
  int status = 0;        // refused: the status the broker answers with
  std::string rule;      // "credentials.NAME: ..." (events and the X-Paddock-Rule header)
  std::string reason;    // one sentence for the agent
  std::string upstream_head;  // allowed: the head to send upstream
  bool websocket = false;     // a WebSocket upgrade: after the upstream's 101, bytes both ways
};

// `framing` is the request's (request_framing). Refuses: no placeholder, another host, a target
// that is not origin form, CONNECT, upgrades other than a GET to WebSocket, a declared body over
// max_request_bytes.
RequestVerdict judge_request(const RequestHead& req, const Framing& framing, const CredentialSpec& c);

// The upstream's head as the agent gets it: hop-by-hop fields dropped, "Connection: close" when
// the broker closes the agent's connection after this response.
std::string client_response_head(const ResponseHead& r, bool close);
// The upstream's 101 to a WebSocket upgrade as the agent gets it (Connection and Upgrade kept).
std::string client_upgrade_head(const ResponseHead& r);

// A response the broker makes itself, JSON in the shape both Anthropic's and OpenAI's clients
// read their error message from ({"type":"error","error":{"type","message"}}), with
// X-Paddock-Rule and Connection: close.
std::string broker_response(int status, const std::string& credential, const std::string& rule,
                            const std::string& reason);

// The request target without its query (events never carry one: keys travel there too).
std::string path_of(const std::string& target);

// Replaces every occurrence of the key (and of its Basic form) in what passes with '*' of the
// same length, holding back only a tail that could be the start of one: an upstream that echoes
// the request's headers must not hand the key to the agent. Bytes that are not a possible match
// pass at once, so streamed events are never delayed. Not a guarantee against every echo: a
// compressed or otherwise transformed copy of the key is not recognised (docs/credentials.md).
class SecretScrubber {
 public:
  explicit SecretScrubber(std::vector<std::string> secrets);
  // `chunk` is the next part of the stream; on return it holds what may go to the agent now
  // (with what was held back before it, first), and a possible start of a key is kept back.
  void feed(std::string& chunk);
  // What is still held back: at the end of a message, or when the stream ends.
  std::string flush();
  std::int64_t scrubbed() const { return scrubbed_; }

 private:
  std::vector<std::string> secrets_;
  std::string held_;
  std::int64_t scrubbed_ = 0;
};

}  // namespace paddock::broker
