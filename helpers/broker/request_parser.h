// The two request shapes the in-sandbox proxy port speaks, parsed as pure functions over bytes
// (no I/O, no allocation beyond the result) so that the fuzzer and the unit tests drive them
// directly. The connection code feeds them the bytes read so far.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace paddock::broker {

inline constexpr std::size_t kMaxHeaderBytes = 8192;  // larger request headers are dropped

enum class ParseStatus {
  kNeedMore,    // a prefix of a possibly valid request: read more
  kOk,          // complete; `consumed` bytes belong to the request
  kNotConnect,  // a well-formed HTTP request with another method: answer 501
  kMalformed,   // not the protocol it claims to be: drop
  kOversize,    // no end of header within kMaxHeaderBytes: drop
};

const char* to_string(ParseStatus s);

struct ConnectRequest {
  ParseStatus status = ParseStatus::kNeedMore;
  std::size_t consumed = 0;  // header length including the blank line
  std::string method;        // set for kOk and kNotConnect
  std::string host;          // raw authority host (brackets kept for IPv6 literals)
  int port = 0;
  std::string error;         // for kMalformed: what was wrong
};

// "CONNECT host:port HTTP/1.x" CRLF headers CRLF CRLF (bare LF line ends are tolerated).
ConnectRequest parse_http_connect(std::string_view bytes);

// RFC 1928 method selection: VER=5, NMETHODS, METHODS.
struct Socks5Greeting {
  ParseStatus status = ParseStatus::kNeedMore;
  std::size_t consumed = 0;
  bool offers_no_auth = false;  // method 0x00 present
  std::string error;
};
Socks5Greeting parse_socks5_greeting(std::string_view bytes);

// RFC 1928 request: VER=5 CMD RSV=0 ATYP DST.ADDR DST.PORT.
struct Socks5Request {
  ParseStatus status = ParseStatus::kNeedMore;
  std::size_t consumed = 0;
  std::uint8_t command = 0;      // 1 = CONNECT (the only one served)
  std::uint8_t address_type = 0; // 1 = IPv4, 3 = domain name, 4 = IPv6
  std::string host;              // the domain name, or the literal's text form
  int port = 0;
  std::string error;
};
Socks5Request parse_socks5_request(std::string_view bytes);

// SOCKS5 reply codes the broker sends.
inline constexpr std::uint8_t kSocksSucceeded = 0x00;
inline constexpr std::uint8_t kSocksGeneralFailure = 0x01;
inline constexpr std::uint8_t kSocksNotAllowed = 0x02;
inline constexpr std::uint8_t kSocksHostUnreachable = 0x04;
inline constexpr std::uint8_t kSocksCommandNotSupported = 0x07;
inline constexpr std::uint8_t kSocksAddressNotSupported = 0x08;

}  // namespace paddock::broker
