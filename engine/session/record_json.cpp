#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

// Deepest nesting of arrays and objects, counted outside strings; stops counting past `limit`.
std::size_t nesting_depth(std::string_view bytes, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : bytes) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Result<nlohmann::json> parse_record(std::string_view bytes, const std::string& what, std::size_t max_bytes) {
  if (bytes.size() > max_bytes)
    return bad_input(what + ": " + std::to_string(bytes.size()) + " bytes, more than a record may hold (" +
                     std::to_string(max_bytes) + ")");
  if (nesting_depth(bytes, kMaxRecordDepth) > kMaxRecordDepth)
    return bad_input(what + ": nested deeper than " + std::to_string(kMaxRecordDepth) + " levels");
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return bad_input(what + ": not JSON");
  if (!j.is_object()) return bad_input(what + ": not a JSON object");
  return j;
}

std::string dump_record(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace paddock::session
