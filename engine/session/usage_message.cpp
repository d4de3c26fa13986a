#include "engine/session/usage_message.h"

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {

std::string encode_usage_reply(const LiveUsage& u) { return dump_record(schema::to_json_value(UsageReply{true, u})); }

Result<LiveUsage> decode_usage_reply(std::string_view line) {
  auto parsed = parse_record(line, "usage answer", std::size_t{64} << 10);
  if (!parsed.ok()) return parsed.error();
  const nlohmann::json& j = *parsed;
  // A refusal is an answer of another shape: its reason is the error.
  if (j.contains("ok") && j["ok"] == false) {
    const nlohmann::json e = j.value("error", nlohmann::json("no reason given"));
    return bad_input("usage answer: " + (e.is_string() ? e.get<std::string>() : e.dump()));
  }
  auto reply = schema::from_json_value<UsageReply>(j, "usage answer field ");
  if (!reply.ok()) return reply.error();
  if (!reply->ok) return bad_input("usage answer field ok: expected true");
  return reply->usage;
}

}  // namespace paddock::session
