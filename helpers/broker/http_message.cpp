#include "helpers/broker/http_message.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace paddock::broker {
namespace {

bool is_token_char(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-': case '.':
    case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

// A field value: visible characters, spaces, tabs and obs-text; never CR, LF, NUL or another
// control character.
bool valid_value(std::string_view v) {
  for (char ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The head's lines (CRLF only), after the start line; kNeedMore until the blank line.
HeadStatus split_head(std::string_view bytes, std::string_view& start, std::vector<HttpField>& fields,
                      std::size_t& size, std::string& error) {
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (bytes.size() >= kMaxHttpHeadBytes) return HeadStatus::kOversize;
    // A bare LF where a line ends would never be seen as one here: refuse it now.
    if (bytes.find('\n') != std::string_view::npos) {
      const std::size_t lf = bytes.find('\n');
      if (lf == 0 || bytes[lf - 1] != '\r') {
        error = "a line ends in a bare LF (CRLF expected)";
        return HeadStatus::kMalformed;
      }
    }
    return HeadStatus::kNeedMore;
  }
  if (end + 4 > kMaxHttpHeadBytes) return HeadStatus::kOversize;
  size = end + 4;
  std::string_view head = bytes.substr(0, end + 2);  // every line with its CRLF
  std::size_t pos = head.find("\r\n");
  start = head.substr(0, pos);
  pos += 2;
  fields.clear();
  while (pos < head.size()) {
    const std::size_t eol = head.find("\r\n", pos);
    std::string_view line = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (line.find('\n') != std::string_view::npos || line.find('\r') != std::string_view::npos) {
      error = "a bare CR or LF inside a header line";
      return HeadStatus::kMalformed;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      error = "obsolete line folding";
      return HeadStatus::kMalformed;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      error = "a header line without a name";
      return HeadStatus::kMalformed;
    }
    const std::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), is_token_char)) {
      error = "a header name with characters HTTP does not allow";
      return HeadStatus::kMalformed;
    }
    const std::string_view value = trim(line.substr(colon + 1));
    if (!valid_value(value)) {
      error = "a control character in the value of " + std::string(name);
      return HeadStatus::kMalformed;
    }
    if (fields.size() >= kMaxHttpHeaders) return HeadStatus::kOversize;
    fields.push_back({std::string(name), std::string(value)});
  }
  return HeadStatus::kOk;
}

bool parse_version(std::string_view v, int& minor) {
  if (v.size() != 8 || v.substr(0, 7) != "HTTP/1." || !std::isdigit(static_cast<unsigned char>(v[7]))) return false;
  minor = v[7] - '0';
  return minor <= 1;
}

std::optional<std::int64_t> content_length(const std::vector<HttpField>& fields, std::string& error) {
  std::optional<std::int64_t> out;
  for (const auto& f : fields) {
    if (!iequals(f.name, "content-length")) continue;
    std::int64_t v = 0;
    const std::string& s = f.value;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0 || s.front() == '+' || s.front() == '-') {
      error = "Content-Length is not a number";
      return std::nullopt;
    }
    if (out && *out != v) {
      error = "two different Content-Length values";
      return std::nullopt;
    }
    out = v;
  }
  if (!out) error.clear();
  return out;
}

// Transfer-Encoding: only "chunked", once. Returns false (with error) for anything else.
bool chunked_only(const std::vector<HttpField>& fields, bool& chunked, std::string& error) {
  chunked = false;
  for (const auto& f : fields) {
    if (!iequals(f.name, "transfer-encoding")) continue;
    if (chunked || !iequals(f.value, "chunked")) {
      error = "Transfer-Encoding other than a single chunked";
      return false;
    }
    chunked = true;
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::string> field_value(const std::vector<HttpField>& fields, std::string_view name) {
  for (const auto& f : fields)
    if (iequals(f.name, name)) return f.value;
  return std::nullopt;
}

bool lists_token(const std::vector<HttpField>& fields, std::string_view name, std::string_view token) {
  for (const auto& f : fields) {
    if (!iequals(f.name, name)) continue;
    std::string_view v = f.value;
    while (!v.empty()) {
      const std::size_t comma = v.find(',');
      if (iequals(trim(v.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  return false;
}

HeadStatus parse_request_head(std::string_view bytes, RequestHead& out, std::string& error) {
  std::string_view start;
  HeadStatus s = split_head(bytes, start, out.fields, out.size, error);
  if (s != HeadStatus::kOk) return s;
  const std::size_t sp1 = start.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : start.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || start.find(' ', sp2 + 1) != std::string_view::npos) {
    error = "the request line is not METHOD TARGET HTTP/1.x";
    return HeadStatus::kMalformed;
  }
  const std::string_view method = start.substr(0, sp1);
  const std::string_view target = start.substr(sp1 + 1, sp2 - sp1 - 1);
  if (method.empty() || !std::all_of(method.begin(), method.end(), is_token_char) || target.empty() ||
      !parse_version(start.substr(sp2 + 1), out.minor_version)) {
    error = "the request line is not METHOD TARGET HTTP/1.x";
    return HeadStatus::kMalformed;
  }
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      error = "the request target has a space or a control character";
      return HeadStatus::kMalformed;
    }
  out.method = std::string(method);
  out.target = std::string(target);
  return HeadStatus::kOk;
}

HeadStatus parse_response_head(std::string_view bytes, ResponseHead& out, std::string& error) {
  std::string_view start;
  HeadStatus s = split_head(bytes, start, out.fields, out.size, error);
  if (s != HeadStatus::kOk) return s;
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (start.size() < 12 || !parse_version(start.substr(0, 8), out.minor_version) || start[8] != ' ' ||
      !std::isdigit(static_cast<unsigned char>(start[9])) || !std::isdigit(static_cast<unsigned char>(start[10])) ||
      !std::isdigit(static_cast<unsigned char>(start[11])) || (start.size() > 12 && start[12] != ' ')) {
    error = "the status line is not HTTP/1.x NNN";
    return HeadStatus::kMalformed;
  }
  out.status = (start[9] - '0') * 100 + (start[10] - '0') * 10 + (start[11] - '0');
  if (out.status < 100) {
    error = "a status below 100";
    return HeadStatus::kMalformed;
  }
  out.reason = start.size() > 13 ? std::string(start.substr(13)) : "";
  if (!valid_value(out.reason)) {
    error = "a control character in the status line";
    return HeadStatus::kMalformed;
  }
  return HeadStatus::kOk;
}

std::optional<Framing> request_framing(const RequestHead& head, std::string& error) {
  bool chunked = false;
  if (!chunked_only(head.fields, chunked, error)) return std::nullopt;
  std::string length_error;
  const auto length = content_length(head.fields, length_error);
  if (!length_error.empty()) {
    error = length_error;
    return std::nullopt;
  }
  if (chunked && length) {
    error = "both Content-Length and Transfer-Encoding";
    return std::nullopt;
  }
  if (chunked) return Framing{BodyKind::kChunked, 0};
  if (length && *length > 0) return Framing{BodyKind::kLength, *length};
  return Framing{BodyKind::kNone, 0};
}

std::optional<Framing> response_framing(const ResponseHead& head, std::string_view request_method,
                                        std::string& error) {
  if (iequals(request_method, "HEAD") || head.status < 200 || head.status == 204 || head.status == 304)
    return Framing{BodyKind::kNone, 0};
  bool chunked = false;
  if (!chunked_only(head.fields, chunked, error)) return std::nullopt;
  std::string length_error;
  const auto length = content_length(head.fields, length_error);
  if (!length_error.empty()) {
    error = length_error;
    return std::nullopt;
  }
  if (chunked && length) {
    error = "both Content-Length and Transfer-Encoding";
    return std::nullopt;
  }
  if (chunked) return Framing{BodyKind::kChunked, 0};
  if (length) return *length > 0 ? Framing{BodyKind::kLength, *length} : Framing{BodyKind::kNone, 0};
  return Framing{BodyKind::kUntilClose, 0};
}

std::size_t ChunkedTracker::feed(const char* data, std::size_t n) {
  std::size_t i = 0;
  while (i < n && state_ != State::kDone && state_ != State::kFailed) {
    const char c = data[i];
    switch (state_) {
      case State::kSize: {
        ++i;
        if (++line_ > kMaxHttpHeadBytes) { state_ = State::kFailed; break; }
        if (c == '\r') { state_ = State::kSizeLine; break; }
        if (in_extension_) {
          if (static_cast<unsigned char>(c) < 0x20 && c != '\t') state_ = State::kFailed;
          break;
        }
        if (c == ';') { in_extension_ = true; break; }
        const int d = hex_digit(c);
        if (d < 0 || remaining_ > (std::uint64_t{1} << 56)) { state_ = State::kFailed; break; }
        remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(d);
        any_digit_ = true;
        break;
      }
      case State::kSizeLine:
        ++i;
        if (c != '\n' || !any_digit_) { state_ = State::kFailed; break; }
        line_ = 0;
        in_extension_ = false;
        any_digit_ = false;
        state_ = remaining_ == 0 ? State::kTrailer : State::kData;
        trailer_line_empty_ = true;
        break;
      case State::kData: {
        const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, n - i));
        i += take;
        remaining_ -= take;
        data_bytes_ += static_cast<std::int64_t>(take);
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kDataCr:
        ++i;
        state_ = c == '\r' ? State::kDataLf : State::kFailed;
        break;
      case State::kDataLf:
        ++i;
        state_ = c == '\n' ? State::kSize : State::kFailed;
        break;
      case State::kTrailer:
        ++i;
        if (++trailer_total_ > kMaxHttpHeadBytes) { state_ = State::kFailed; break; }
        if (c == '\r') {
          if (line_ != 0) { state_ = State::kFailed; break; }
          line_ = 1;  // a CR seen: only LF may follow
          break;
        }
        if (c == '\n') {
          if (line_ != 1) { state_ = State::kFailed; break; }
          if (trailer_line_empty_) { state_ = State::kDone; break; }
          line_ = 0;
          trailer_line_empty_ = true;
          break;
        }
        if (line_ == 1 || static_cast<unsigned char>(c) < 0x20) { state_ = State::kFailed; break; }
        trailer_line_empty_ = false;
        break;
      case State::kDone:
      case State::kFailed:
        break;
    }
  }
  return i;
}

}  // namespace paddock::broker
