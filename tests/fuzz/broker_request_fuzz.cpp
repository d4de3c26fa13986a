// libFuzzer target for the broker's request parsers and host normaliser: arbitrary bytes from the
// sandbox must never crash them, and what they accept must satisfy their contracts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "helpers/broker/host_name.h"
#include "helpers/broker/request_parser.h"

using namespace paddock::broker;

namespace {

void require(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input that broke a contract
}

void check_host(const std::string& raw) {
  HostCheck c = normalize_host(raw);
  if (!c.ok) {
    require(!c.reason.empty());
    return;
  }
  require(!c.host.empty() && c.host.size() <= 253);
  require(!looks_like_ip_literal(c.host));
  for (char ch : c.host) require((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.');
  require(normalize_host(c.host).host == c.host);  // idempotent
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  ConnectRequest r = parse_http_connect(bytes);
  require(r.consumed <= size && r.consumed <= kMaxHeaderBytes);
  if (r.status == ParseStatus::kOk) {
    require(r.port >= 1 && r.port <= 65535 && !r.host.empty() && r.method == "CONNECT");
    check_host(r.host);
  }
  if (r.status == ParseStatus::kMalformed) require(!r.error.empty());
  // A longer input never turns a decided request back into "need more".
  if (r.status != ParseStatus::kNeedMore && size < 16384) {
    std::string more(bytes);
    more += "\r\n\r\n";
    require(parse_http_connect(more).status != ParseStatus::kNeedMore);
  }

  Socks5Greeting g = parse_socks5_greeting(bytes);
  require(g.consumed <= size);
  if (g.status == ParseStatus::kOk) {
    Socks5Request s = parse_socks5_request(bytes.substr(g.consumed));
    require(s.consumed <= size - g.consumed);
    if (s.status == ParseStatus::kOk) {
      require(s.port >= 1 && s.port <= 65535);
      check_host(s.host);
    }
  }
  check_host(std::string(bytes.substr(0, 300)));
  return 0;
}
