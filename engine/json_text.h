// Strings at the JSON boundary. Inside Paddock a path or a name is the raw bytes the OS gave
// (std::string); JSON text must be UTF-8. Every string Paddock writes into JSON (the IR, the
// plan, the attestation, provenance) goes through encode_json_text and every string it reads
// back through decode_json_text, so a file name that is not UTF-8 survives the round trip byte
// for byte and valid UTF-8 is written exactly as it is (docs/architecture.md, "Bytes that are
// not UTF-8").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace paddock {

// The marker of an encoded string. IR paths are absolute ("/..." on Linux and macOS, "C:\..."
// or "\\..." on Windows), so no path ever starts with it.
inline constexpr std::string_view kJsonBytesPrefix = "bytes:";

// Well-formed UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing above
// U+10FFFF (exactly what nlohmann::json refuses to dump).
bool is_utf8(std::string_view s);

// True when s is written into JSON unchanged: valid UTF-8 not starting with kJsonBytesPrefix.
inline bool json_text_is_plain(std::string_view s) {
  return is_utf8(s) && s.substr(0, kJsonBytesPrefix.size()) != kJsonBytesPrefix;
}

// s itself when json_text_is_plain(s); otherwise kJsonBytesPrefix followed by s with every '%'
// and every byte that does not start a well-formed UTF-8 sequence written as %XX (two uppercase
// hex digits). The result is always valid UTF-8.
std::string encode_json_text(std::string_view s);

// The inverse. std::nullopt for text that encode_json_text never produces (a malformed or
// needless %XX, a plain string behind the marker): each byte string has exactly one encoding,
// so reading and writing again gives the same bytes and the same hash.
std::optional<std::string> decode_json_text(std::string_view text);

// encode_json_text(s) as a JSON string value.
nlohmann::json json_text_value(std::string_view s);

}  // namespace paddock
