#include "engine/session/control.h"

#include "engine/schema_codec.h"
#include "engine/session/event.h"
#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

using nlohmann::json;

// A request or a reply is short; anything longer is not a Paddock peer.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;

}  // namespace

const char* ask_answer_name(AskAnswer a) { return schema::enum_name(a).data(); }

std::optional<AskAnswer> parse_ask_answer(std::string_view name) { return schema::enum_from_name<AskAnswer>(name); }

ControlRequest request_of(ControlCommand cmd) {
  ControlRequest r;
  r.cmd = cmd;
  return r;
}

ControlRequest ask_reply_request(std::string ask_id, AskAnswer answer) {
  ControlRequest r;
  r.cmd = ControlCommand::kAskReply;
  r.ask_id = std::move(ask_id);
  r.answer = answer;
  return r;
}

std::string encode_control_request(const ControlRequest& r) { return dump_record(schema::tagged_to_json(r)); }

Result<ControlRequest> decode_control_request(std::string_view line) {
  auto j = parse_record(line, "control request", kMaxLine);
  if (!j.ok()) return j.error();
  // An unknown command is what a user of an older or newer peer meets: said in those words.
  if (auto cmd = j->find("cmd"); cmd != j->end() && cmd->is_string() && !schema::enum_from_name<ControlCommand>(cmd->get<std::string>()))
    return bad_input("unknown command '" + cmd->get<std::string>() + "'; expected " +
                     schema::enum_choices<ControlCommand>());
  schema::Reader r("control request: ", "");
  ControlRequest out;
  if (!r.read_tagged(*j, out)) return bad_input(r.error());
  return out;
}

json ask_event(const PendingAsk& a) {
  json j = event_json(AskRaised{a.id, a.host, a.port});
  j["ts"] = a.ts;
  return j;
}

std::string encode_control_reply(const ControlReply& r) { return dump_record(schema::to_json_value(r)); }

Result<ControlReply> decode_control_reply(std::string_view line, const std::string& what) {
  auto j = parse_record(line, what + ": control reply", kMaxLine);
  if (!j.ok()) return j.error();
  auto out = schema::from_json_value<ControlReply>(*j, what + ": control reply: ");
  if (!out.ok()) return internal_error(out.error().message);
  if (!out->ok && out->error.empty()) return internal_error(what + ": control reply: refused without a reason");
  return out;
}

}  // namespace paddock::session
