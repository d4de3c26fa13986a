#include "engine/session/event.h"

#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

constexpr std::pair<EventType, const char*> kEventNames[] = {
    {EventType::kSessionStarted, "session_started"},
    {EventType::kAttestation, "attestation"},
    {EventType::kNetRequest, "net_request"},
    {EventType::kDnsResolved, "dns_resolved"},
    {EventType::kNetEgress, "net_egress"},
    {EventType::kAsk, "ask"},
    {EventType::kQuotaExceeded, "quota_exceeded"},
    {EventType::kLimitHit, "limit_hit"},
    {EventType::kNotice, "notice"},
    {EventType::kConfigChanged, "agent_config_changed"},
    {EventType::kCredentialRequest, "credential_request"},
    {EventType::kSessionEnded, "session_ended"},
};

// Keys of the line itself; every other key is one of the event's fields.
constexpr const char* kLineKeys[] = {"event", "ts", "count", "last_ts"};

}  // namespace

const char* event_name(EventType t) {
  for (const auto& [type, name] : kEventNames)
    if (type == t) return name;
  return "notice";
}

std::optional<EventType> parse_event_type(std::string_view name) {
  for (const auto& [type, n] : kEventNames)
    if (name == n) return type;
  return std::nullopt;
}

Event make_event(EventType t, json fields) {
  Event e;
  e.type = t;
  e.fields = fields.is_object() ? std::move(fields) : json::object();
  return e;
}

json event_json(EventType t, json fields) {
  json j = fields.is_object() ? std::move(fields) : json::object();
  j["event"] = event_name(t);
  return j;
}

std::string encode_event(const Event& e) {
  json j = e.fields.is_object() ? e.fields : json::object();
  for (const char* k : kLineKeys) j.erase(k);
  j["event"] = event_name(e.type);
  j["ts"] = e.ts;
  if (e.count > 1) {
    j["count"] = e.count;
    j["last_ts"] = e.last_ts;
  }
  return dump_record(j);
}

Result<Event> event_from_json(json j, const std::string& what) {
  if (!j.is_object()) return bad_input(what + ": not a JSON object");
  StrictJsonReader r(what + ": ");
  Event e;
  std::string name;
  if (!j.contains("event")) r.fail("event", "missing field");
  else if (r.str(j["event"], "event", name)) {
    if (auto t = parse_event_type(name)) e.type = *t;
    else r.fail("event", "unknown event type '" + name + "'");
  }
  if (j.contains("ts")) r.str(j["ts"], "ts", e.ts);
  if (j.contains("count")) {
    if (r.integer(j["count"], "count", e.count) && e.count < 1) r.fail("count", "must be at least 1");
  }
  if (j.contains("last_ts")) r.str(j["last_ts"], "last_ts", e.last_ts);
  if (!r.error().empty()) return bad_input(r.error());
  for (const char* k : kLineKeys) j.erase(k);
  e.fields = std::move(j);
  return e;
}

Result<Event> decode_event(std::string_view line, const std::string& what) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  auto j = parse_record(line, what);
  if (!j.ok()) return j.error();
  return event_from_json(std::move(*j), what);
}

Event notice_event(const std::string& level, const std::string& message) {
  // A message may name a file whose name is not UTF-8 (engine/json_text.h); the reader decodes.
  return make_event(EventType::kNotice, {{"level", level}, {"message", encode_json_text(message)}});
}

namespace {

// The agent's argv is any bytes: each word encoded as the reader (StrictJsonReader) decodes it.
json encoded(const std::vector<std::string>& words) {
  json out = json::array();
  for (const auto& w : words) out.push_back(encode_json_text(w));
  return out;
}

}  // namespace

Event session_started_event(const SessionStarted& s) {
  return make_event(EventType::kSessionStarted,
                    {{"session_id", s.session_id}, {"command", encoded(s.command)}, {"ir_hash", s.ir_hash},
                     {"plan_hash", s.plan_hash}, {"backend", s.backend}, {"tainted", s.tainted},
                     {"helper_pid", s.helper_pid}});
}

Result<SessionStarted> session_started_from(const Event& e) {
  const std::string what = "session_started";
  if (e.type != EventType::kSessionStarted) return bad_input(what + ": the event is " + event_name(e.type));
  StrictJsonReader r(what + ": ");
  SessionStarted s;
  const json& f = e.fields;
  if (f.contains("session_id")) r.str(f["session_id"], "session_id", s.session_id);
  if (f.contains("command")) r.strings(f["command"], "command", s.command);
  if (f.contains("ir_hash")) r.str(f["ir_hash"], "ir_hash", s.ir_hash);
  if (f.contains("plan_hash")) r.str(f["plan_hash"], "plan_hash", s.plan_hash);
  if (f.contains("backend")) r.str(f["backend"], "backend", s.backend);
  if (f.contains("tainted")) r.boolean(f["tainted"], "tainted", s.tainted);
  if (f.contains("helper_pid")) r.integer(f["helper_pid"], "helper_pid", s.helper_pid);
  if (!r.error().empty()) return bad_input(r.error());
  return s;
}

Event session_ended_event(const Report& r) { return make_event(EventType::kSessionEnded, report_json(r, /*with_id=*/false)); }

Result<Report> report_from_event(const Event& e) {
  if (e.type != EventType::kSessionEnded) return bad_input(std::string("session_ended: the event is ") + event_name(e.type));
  return report_from_json(e.fields, "session_ended", /*require_id=*/false);
}

}  // namespace paddock::session
