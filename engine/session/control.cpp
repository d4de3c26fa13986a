#include "engine/session/control.h"

#include "engine/json_text.h"
#include "engine/session/event.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

constexpr std::pair<ControlCommand, const char*> kCommands[] = {
    {ControlCommand::kStop, "stop"},
    {ControlCommand::kAsks, "asks"},
    {ControlCommand::kSubscribe, "subscribe"},
    {ControlCommand::kAskReply, "ask_reply"},
    {ControlCommand::kUsage, "usage"},
};

constexpr std::pair<AskAnswer, const char*> kAnswers[] = {
    {AskAnswer::kAllowOnce, "allow_once"},
    {AskAnswer::kAllowSession, "allow_session"},
    {AskAnswer::kDeny, "deny"},
};

// A request or a reply is short; anything longer is not a Paddock peer.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;

json ask_json(const PendingAsk& a) {
  return {{"id", encode_json_text(a.id)}, {"host", encode_json_text(a.host)}, {"port", a.port}, {"ts", a.ts}};
}

bool read_ask(StrictJsonReader& r, const json& j, const std::string& path, PendingAsk& out) {
  return r.object(j, path, {"id", "host", "port", "ts"}) && r.str(j["id"], path + ".id", out.id) &&
         r.str(j["host"], path + ".host", out.host) && r.int32(j["port"], path + ".port", out.port) &&
         r.str(j["ts"], path + ".ts", out.ts);
}

}  // namespace

const char* ask_answer_name(AskAnswer a) {
  for (const auto& [v, name] : kAnswers)
    if (v == a) return name;
  return "deny";
}

std::optional<AskAnswer> parse_ask_answer(std::string_view name) {
  for (const auto& [v, n] : kAnswers)
    if (name == n) return v;
  return std::nullopt;
}

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

std::string encode_control_request(const ControlRequest& r) {
  json j;
  for (const auto& [c, name] : kCommands)
    if (c == r.cmd) j["cmd"] = name;
  if (r.cmd == ControlCommand::kAskReply) {
    j["id"] = encode_json_text(r.ask_id);
    j["decision"] = ask_answer_name(r.answer);
  }
  return dump_record(j);
}

Result<ControlRequest> decode_control_request(std::string_view line) {
  auto j = parse_record(line, "control request", kMaxLine);
  if (!j.ok()) return j.error();
  StrictJsonReader r("control request");
  std::string cmd;
  if (!j->contains("cmd") || !r.str((*j)["cmd"], ".cmd", cmd))
    return bad_input(r.error().empty() ? "control request: no \"cmd\"" : r.error());
  ControlRequest out;
  bool known = false;
  for (const auto& [c, name] : kCommands)
    if (cmd == name) out.cmd = c, known = true;
  if (!known) return bad_input("unknown command '" + cmd + "'; expected stop, asks, subscribe, ask_reply or usage");
  if (out.cmd != ControlCommand::kAskReply) {
    if (!r.object(*j, "", {"cmd"})) return bad_input(r.error());
    return out;
  }
  std::string decision;
  if (!r.object(*j, "", {"cmd", "id", "decision"}) || !r.str((*j)["id"], ".id", out.ask_id) ||
      !r.str((*j)["decision"], ".decision", decision))
    return bad_input(r.error());
  auto a = parse_ask_answer(decision);
  if (!a) return bad_input("decision must be allow_once, allow_session or deny, not '" + decision + "'");
  out.answer = *a;
  return out;
}

json ask_event(const PendingAsk& a) { return event_json(EventType::kAsk, ask_json(a)); }

std::string encode_control_reply(const ControlReply& r) {
  json j = {{"ok", r.ok}};
  if (!r.ok) j["error"] = r.error;
  if (!r.asks.empty()) {
    j["asks"] = json::array();
    for (const auto& a : r.asks) j["asks"].push_back(ask_json(a));
  }
  return dump_record(j);
}

Result<ControlReply> decode_control_reply(std::string_view line, const std::string& what) {
  auto j = parse_record(line, what + ": control reply", kMaxLine);
  if (!j.ok()) return j.error();
  StrictJsonReader r(what + ": control reply");
  ControlReply out;
  std::vector<std::string_view> keys{"ok"};
  if (j->contains("error")) keys.push_back("error");
  if (j->contains("asks")) keys.push_back("asks");
  if (!r.object(*j, "", keys) || !r.boolean((*j)["ok"], ".ok", out.ok)) return internal_error(r.error());
  if (j->contains("error") && !r.str((*j)["error"], ".error", out.error)) return internal_error(r.error());
  if (j->contains("asks")) {
    const json& asks = (*j)["asks"];
    if (!asks.is_array()) return internal_error(what + ": control reply.asks: expected an array");
    for (std::size_t i = 0; i < asks.size(); ++i) {
      PendingAsk a;
      if (!read_ask(r, asks[i], ".asks[" + std::to_string(i) + "]", a)) return internal_error(r.error());
      out.asks.push_back(std::move(a));
    }
  }
  if (!out.ok && out.error.empty()) return internal_error(what + ": control reply: refused without a reason");
  return out;
}

}  // namespace paddock::session
