#include "engine/session/placeholder_record.h"

#include <nlohmann/json.hpp>

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {

using nlohmann::json;

std::string encode_placeholder_records(const std::vector<PlaceholderRecord>& list) {
  return dump_record(schema::to_json_value(list)) + "\n";
}

Result<std::vector<PlaceholderRecord>> decode_placeholder_records(const std::string& bytes) {
  // Bounded in size and depth like every record (record_json.h): the list is read as the one
  // member of an object.
  auto wrapped = parse_record("{\"list\":" + bytes + "\n}", "a placeholder record");
  if (!wrapped) return wrapped.error();
  const json& j = (*wrapped)["list"];
  if (!(j.is_array() || j.is_object())) return Error{ErrorCode::kBadInput, "a placeholder record is not a JSON list"};
  json entries = j.is_object() ? json::array({j}) : j;
  for (json& e : entries)
    if (e.is_object() && !e.contains("ctime_ns")) e["ctime_ns"] = 0;  // an older helper's: not recorded
  auto list = schema::from_json_value<std::vector<PlaceholderRecord>>(entries, "a placeholder record: ");
  if (!list) return list.error();
  for (const PlaceholderRecord& p : *list) {
    if (p.path.empty() || p.path[0] != '/') return Error{ErrorCode::kBadInput, "a placeholder record names no absolute path"};
    if (p.content.size() > kMaxPlaceholderContent || (p.dir && !p.content.empty()))
      return Error{ErrorCode::kBadInput, "a placeholder's content is not a short text of a file placeholder"};
  }
  return list;
}

}  // namespace paddock::session
