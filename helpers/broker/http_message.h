// HTTP/1.1 message heads and body framing for the credential endpoint (docs/credentials.md), as
// pure functions over bytes (no I/O) so that the fuzzer and the unit tests drive them directly.
// Strict where a lenient parser would let the agent and the upstream read one message two ways:
// obsolete line folding, a Content-Length beside Transfer-Encoding, a transfer coding other than
// chunked, control characters in a field, two differing Content-Lengths are all malformed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::broker {

inline constexpr std::size_t kMaxHttpHeadBytes = 64 * 1024;
inline constexpr std::size_t kMaxHttpHeaders = 128;

enum class HeadStatus {
  kNeedMore,   // a prefix of a head that may still be valid
  kOk,
  kMalformed,  // not HTTP/1.x as this endpoint reads it: answered 400, then closed
  kOversize,   // no end of head within kMaxHttpHeadBytes (or too many fields): 431, then closed
};

struct HttpField {
  std::string name;   // as sent
  std::string value;  // leading and trailing whitespace removed
};

struct RequestHead {
  std::string method, target;
  int minor_version = 1;  // HTTP/1.<minor>
  std::vector<HttpField> fields;
  std::size_t size = 0;   // bytes of the head, the blank line included
};

struct ResponseHead {
  int status = 0;
  std::string reason;
  int minor_version = 1;
  std::vector<HttpField> fields;
  std::size_t size = 0;
};

HeadStatus parse_request_head(std::string_view bytes, RequestHead& out, std::string& error);
HeadStatus parse_response_head(std::string_view bytes, ResponseHead& out, std::string& error);

// The first value of a field (names compare case-insensitively), or nullopt.
std::optional<std::string> field_value(const std::vector<HttpField>& fields, std::string_view name);
bool iequals(std::string_view a, std::string_view b);
// Whether a comma-separated field (Connection) lists `token`, case-insensitively.
bool lists_token(const std::vector<HttpField>& fields, std::string_view name, std::string_view token);

enum class BodyKind { kNone, kLength, kChunked, kUntilClose };
struct Framing {
  BodyKind kind = BodyKind::kNone;
  std::int64_t length = 0;  // kLength
};

// A request's body framing; an error (malformed) when it is ambiguous.
std::optional<Framing> request_framing(const RequestHead& head, std::string& error);
// A response's, given the request's method (HEAD, and 1xx/204/304, have no body).
std::optional<Framing> response_framing(const ResponseHead& head, std::string_view request_method,
                                        std::string& error);

// Follows a chunked body byte by byte as it passes (the bytes themselves are relayed as they
// are), to know where the message ends: chunk sizes, extensions, data, trailers. Bounded: a
// chunk-size line or trailer section longer than kMaxHttpHeadBytes is an error.
class ChunkedTracker {
 public:
  // How many of `n` bytes belong to this message (all of them until it ends); sets done() at
  // the end and failed() on malformed framing.
  std::size_t feed(const char* data, std::size_t n);
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kFailed; }
  std::int64_t data_bytes() const { return data_bytes_; }  // chunk data seen so far

 private:
  enum class State { kSize, kSizeLine, kData, kDataCr, kDataLf, kTrailer, kDone, kFailed };
  State state_ = State::kSize;
  std::uint64_t remaining_ = 0;
  bool any_digit_ = false;
  bool in_extension_ = false;
  std::size_t line_ = 0;        // bytes of the current size line or trailer line
  std::size_t trailer_total_ = 0;
  bool trailer_line_empty_ = true;
  std::int64_t data_bytes_ = 0;
};

}  // namespace paddock::broker
