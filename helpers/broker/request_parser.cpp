#include "helpers/broker/request_parser.h"

#include <arpa/inet.h>

#include <cstdio>

namespace paddock::broker {
namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

// Port: 1..65535, decimal digits only (no sign, no spaces, at most 5 digits).
int parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return 0;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + (c - '0');
  }
  return v >= 1 && v <= 65535 ? v : 0;
}

ConnectRequest malformed(std::string why) {
  ConnectRequest r;
  r.status = ParseStatus::kMalformed;
  r.error = std::move(why);
  return r;
}

// Splits off one line ending in LF (CR before it removed). nullopt-like: returns false when no LF.
bool next_line(std::string_view& rest, std::string_view& line) {
  size_t lf = rest.find('\n');
  if (lf == std::string_view::npos) return false;
  line = rest.substr(0, lf);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  rest.remove_prefix(lf + 1);
  return true;
}

}  // namespace

const char* to_string(ParseStatus s) {
  switch (s) {
    case ParseStatus::kNeedMore: return "need_more";
    case ParseStatus::kOk: return "ok";
    case ParseStatus::kNotConnect: return "not_connect";
    case ParseStatus::kMalformed: return "malformed";
    case ParseStatus::kOversize: return "oversize";
  }
  return "?";
}

ConnectRequest parse_http_connect(std::string_view bytes) {
  // Reject garbage early: the method is a token, so a non-token first byte is not HTTP at all
  // (and waiting for 8 KiB of it would only hold a connection open).
  size_t method_len = 0;
  while (method_len < bytes.size() && is_tchar(bytes[method_len])) ++method_len;
  if (method_len < bytes.size() && (method_len == 0 || bytes[method_len] != ' '))
    return malformed("the request line does not start with an HTTP method");
  if (method_len > 32) return malformed("the HTTP method is longer than 32 characters");

  size_t end = std::string_view::npos, end_len = 0;
  size_t crlf = bytes.find("\r\n\r\n");
  size_t lflf = bytes.find("\n\n");
  if (crlf != std::string_view::npos && (lflf == std::string_view::npos || crlf + 2 <= lflf)) {
    end = crlf;
    end_len = 4;
  } else if (lflf != std::string_view::npos) {
    end = lflf;
    end_len = 2;
  }
  if (end == std::string_view::npos) {
    ConnectRequest r;
    r.status = bytes.size() >= kMaxHeaderBytes ? ParseStatus::kOversize : ParseStatus::kNeedMore;
    return r;
  }
  if (end + end_len > kMaxHeaderBytes) {
    ConnectRequest r;
    r.status = ParseStatus::kOversize;
    return r;
  }

  std::string_view rest = bytes.substr(0, end + end_len);
  std::string_view line;
  next_line(rest, line);
  // request-line = method SP request-target SP HTTP-version
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
      line.find(' ', sp2 + 1) != std::string_view::npos)
    return malformed("the request line is not 'METHOD TARGET HTTP/1.x'");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return malformed("unsupported HTTP version (HTTP/1.0 or HTTP/1.1 expected)");
  if (target.empty()) return malformed("empty request target");
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return malformed("control or non-ASCII byte in the request target");

  // Header fields: "name: value", name a token; values may not contain control bytes but TAB.
  while (next_line(rest, line)) {
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) return malformed("a header line has no field name");
    for (size_t i = 0; i < colon; ++i)
      if (!is_tchar(line[i])) return malformed("a header field name is not a token");
    for (size_t i = colon + 1; i < line.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(line[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) return malformed("control byte in a header value");
    }
  }

  ConnectRequest r;
  r.method = std::string(method);
  r.consumed = end + end_len;
  if (method != "CONNECT") {
    r.status = ParseStatus::kNotConnect;
    return r;
  }
  // authority-form: host:port, or [v6]:port.
  std::string_view host, port;
  if (target.front() == '[') {
    size_t close = target.find(']');
    if (close == std::string_view::npos || close + 1 >= target.size() || target[close + 1] != ':')
      return malformed("CONNECT target is not [address]:port");
    host = target.substr(0, close + 1);
    port = target.substr(close + 2);
  } else {
    size_t colon = target.rfind(':');
    if (colon == std::string_view::npos) return malformed("CONNECT target has no port (host:port expected)");
    host = target.substr(0, colon);
    port = target.substr(colon + 1);
  }
  if (host.empty()) return malformed("CONNECT target has an empty host");
  r.port = parse_port(port);
  if (r.port == 0) return malformed("CONNECT target has an invalid port (1-65535 expected)");
  r.host = std::string(host);
  r.status = ParseStatus::kOk;
  return r;
}

Socks5Greeting parse_socks5_greeting(std::string_view bytes) {
  Socks5Greeting g;
  if (bytes.empty()) return g;
  if (static_cast<unsigned char>(bytes[0]) != 0x05) {
    g.status = ParseStatus::kMalformed;
    g.error = "SOCKS version is not 5";
    return g;
  }
  if (bytes.size() < 2) return g;
  size_t n = static_cast<unsigned char>(bytes[1]);
  if (n == 0) {
    g.status = ParseStatus::kMalformed;
    g.error = "SOCKS5 greeting offers no authentication method";
    return g;
  }
  if (bytes.size() < 2 + n) return g;
  for (size_t i = 0; i < n; ++i)
    if (bytes[2 + i] == 0x00) g.offers_no_auth = true;
  g.consumed = 2 + n;
  g.status = ParseStatus::kOk;
  return g;
}

Socks5Request parse_socks5_request(std::string_view bytes) {
  Socks5Request r;
  auto bad = [&](const char* why) {
    r.status = ParseStatus::kMalformed;
    r.error = why;
    return r;
  };
  if (bytes.empty()) return r;
  if (static_cast<unsigned char>(bytes[0]) != 0x05) return bad("SOCKS version is not 5");
  if (bytes.size() < 4) return r;
  r.command = static_cast<std::uint8_t>(bytes[1]);
  if (bytes[2] != 0x00) return bad("SOCKS5 reserved byte is not zero");
  r.address_type = static_cast<std::uint8_t>(bytes[3]);
  size_t addr_len = 0, addr_off = 4;
  switch (r.address_type) {
    case 0x01: addr_len = 4; break;
    case 0x04: addr_len = 16; break;
    case 0x03:
      if (bytes.size() < 5) return r;
      addr_len = static_cast<unsigned char>(bytes[4]);
      addr_off = 5;
      if (addr_len == 0) return bad("SOCKS5 domain name is empty");
      break;
    default:
      return bad("SOCKS5 address type is not 1, 3 or 4");
  }
  size_t total = addr_off + addr_len + 2;
  if (bytes.size() < total) return r;
  std::string_view addr = bytes.substr(addr_off, addr_len);
  if (r.address_type == 0x03) {
    r.host = std::string(addr);
  } else {
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(r.address_type == 0x01 ? AF_INET : AF_INET6, addr.data(), buf, sizeof buf);
    r.host = r.address_type == 0x04 ? "[" + std::string(buf) + "]" : std::string(buf);
  }
  r.port = (static_cast<unsigned char>(bytes[total - 2]) << 8) | static_cast<unsigned char>(bytes[total - 1]);
  if (r.port == 0) return bad("SOCKS5 destination port is 0");
  r.consumed = total;
  r.status = ParseStatus::kOk;
  return r;
}

}  // namespace paddock::broker
