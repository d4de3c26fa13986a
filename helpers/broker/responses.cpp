#include "helpers/broker/responses.h"

namespace paddock::broker {
namespace {

// Header values carry only printable ASCII (the rule text can quote what the client sent).
std::string header_safe(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  return out;
}

std::string response(const std::string& status, const std::string& body, const std::string& extra) {
  return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\nProxy-Agent: paddock-broker\r\n" + extra +
         "\r\n" + body;
}

}  // namespace

std::string http_established() {
  return "HTTP/1.1 200 Connection established\r\nProxy-Agent: paddock-broker\r\n\r\n";
}

std::string http_forbidden(const std::string& host, int port, const std::string& rule,
                           const std::string& reason) {
  std::string target = header_safe(host) + ":" + std::to_string(port);
  std::string body =
      "Blocked by the Paddock sandbox's network policy: the connection to " + target +
      " was refused.\n"
      "Rule: " + header_safe(rule) + "\n"
      "Why: " + header_safe(reason) + "\n"
      "This is a deliberate policy decision of the sandbox, not a network failure. Retrying, "
      "another proxy, an IP address or another port will be refused the same way. If this host "
      "is needed, ask the user to add it to the session's egress policy.\n";
  return response("403 Forbidden", body, "X-Paddock-Rule: " + header_safe(rule) + "\r\n");
}

std::string http_not_implemented(const std::string& method) {
  std::string body =
      "The Paddock sandbox proxy only tunnels CONNECT requests (HTTPS and other TLS/TCP "
      "protocols); the plain-HTTP method " + header_safe(method) +
      " is not brokered. Use an https:// URL. This is the sandbox's policy, not a network "
      "failure.\n";
  return response("501 Not Implemented", body, "");
}

std::string http_bad_gateway(const std::string& host, int port, const std::string& why) {
  std::string body = "The Paddock sandbox broker allowed " + header_safe(host) + ":" +
                     std::to_string(port) + " but could not connect: " + header_safe(why) + "\n";
  return response("502 Bad Gateway", body, "");
}

std::string socks5_reply(std::uint8_t code) {
  return std::string{'\x05', static_cast<char>(code), '\x00', '\x01', '\0', '\0', '\0', '\0', '\0', '\0'};
}

}  // namespace paddock::broker
