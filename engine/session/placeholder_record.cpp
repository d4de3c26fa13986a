#include "engine/session/placeholder_record.h"

#include <nlohmann/json.hpp>

#include "engine/json_text.h"
#include "engine/session/record_json.h"

namespace paddock::session {

using nlohmann::json;

std::string encode_placeholder_records(const std::vector<PlaceholderRecord>& list) {
  json out = json::array();
  for (const PlaceholderRecord& p : list) {
    json entry = {{"path", encode_json_text(p.path)}, {"dir", p.dir}, {"dev", p.dev}, {"ino", p.ino}, {"ctime_ns", p.ctime_ns}};
    if (!p.content.empty()) entry["content"] = encode_json_text(p.content);
    out.push_back(std::move(entry));
  }
  return dump_record(out) + "\n";
}

Result<std::vector<PlaceholderRecord>> decode_placeholder_records(const std::string& bytes) {
  // Bounded in size and depth like every record (record_json.h): the list is read as the one
  // member of an object.
  auto wrapped = parse_record("{\"list\":" + bytes + "\n}", "a placeholder record");
  if (!wrapped) return wrapped.error();
  const json& j = (*wrapped)["list"];
  if (!(j.is_array() || j.is_object())) return Error{ErrorCode::kBadInput, "a placeholder record is not a JSON list"};
  const json list = j.is_object() ? json::array({j}) : j;
  std::vector<PlaceholderRecord> out;
  for (const json& p : list) {
    if (!p.is_object() || !p.contains("path") || !p["path"].is_string() || !p.contains("dir") ||
        !p["dir"].is_boolean() || !p.contains("dev") || !p["dev"].is_number_unsigned() || !p.contains("ino") ||
        !p["ino"].is_number_unsigned())
      return Error{ErrorCode::kBadInput, "a placeholder record's entry is not {path, dir, dev, ino}"};
    auto path = decode_json_text(p["path"].get_ref<const std::string&>());
    if (!path || path->empty() || (*path)[0] != '/')
      return Error{ErrorCode::kBadInput, "a placeholder record names no absolute path"};
    std::int64_t ctime = 0;  // older helpers' records have none
    if (p.contains("ctime_ns")) {
      if (!p["ctime_ns"].is_number_integer()) return Error{ErrorCode::kBadInput, "a placeholder's ctime_ns is not an integer"};
      ctime = p["ctime_ns"].get<std::int64_t>();
    }
    std::string content;  // most placeholders hold nothing, and older helpers' records say nothing
    if (p.contains("content")) {
      auto c = p["content"].is_string() ? decode_json_text(p["content"].get_ref<const std::string&>()) : std::nullopt;
      if (!c || c->size() > kMaxPlaceholderContent || p["dir"].get<bool>())
        return Error{ErrorCode::kBadInput, "a placeholder's content is not a short text of a file placeholder"};
      content = std::move(*c);
    }
    out.push_back({std::move(*path), p["dir"].get<bool>(), p["dev"].get<std::uint64_t>(), p["ino"].get<std::uint64_t>(),
                   ctime, std::move(content)});
  }
  return out;
}

}  // namespace paddock::session
