// How the session module reads and writes the JSON of its records and messages. Reading is for
// bytes anyone may have put in a session directory: a bounded size and nesting depth are
// checked before parsing, nothing throws, and every field is type-checked by the caller
// (StrictJsonReader, which decodes engine/json_text.h's encoding). Writing never throws either:
// the fields that carry bytes from outside (a file name in an error message, an agent's argv, a
// placeholder's path) are encoded by their writers with encode_json_text, so they read back byte
// for byte; any other string that is not valid UTF-8 is written with U+FFFD in place of the bad
// bytes instead of aborting the writer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::session {

inline constexpr std::size_t kMaxRecordDepth = 32;

// The JSON object in bytes; an error names `what` (e.g. "report.json") and the reason.
Result<nlohmann::json> parse_record(std::string_view bytes, const std::string& what,
                                    std::size_t max_bytes = std::size_t{1} << 20);

// j.dump(indent) with invalid UTF-8 replaced, never an exception.
std::string dump_record(const nlohmann::json& j, int indent = -1);

}  // namespace paddock::session
