#include "engine/session/event.h"

#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

// Keys of the line itself; every other key is one of the payload's fields.
constexpr const char* kLineKeys[] = {"event", "ts", "count", "last_ts", "taint"};

// f(default payload of type t).
template <class F>
void with_payload(EventType t, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((schema::EnumNames<EventType>::values[I].first == t ? f(std::tuple_element_t<I, EventPayloads>{}) : void()), ...);
  }(std::make_index_sequence<std::tuple_size_v<EventPayloads>>{});
}

// The fields hold what the type's declaration says, exactly: "<what>: <event>.<field>: ...".
Status check_payload(const Event& e, const std::string& what) {
  Status st;
  with_payload(e.type, [&](auto payload) {
    using P = decltype(payload);
    schema::Reader r(what + ": " + event_name(e.type) + ".", "");
    if (!r.read(e.fields, "", payload)) st = bad_input(r.error());
    if constexpr (std::is_same_v<P, Report>)
      if (st.ok() && e.fields.contains("session_id")) st = bad_input(what + ": session_ended.session_id: unknown field");
  });
  return st;
}

}  // namespace

const char* event_name(EventType t) { return schema::enum_name(t).data(); }

std::optional<EventType> parse_event_type(std::string_view name) { return schema::enum_from_name<EventType>(name); }

std::string encode_event(const Event& e) {
  json j = e.fields.is_object() ? e.fields : json::object();
  for (const char* k : kLineKeys) j.erase(k);
  j["event"] = event_name(e.type);
  j["ts"] = e.ts;
  if (e.count > 1) {
    j["count"] = e.count;
    j["last_ts"] = e.last_ts;
  }
  if (!e.taint.empty()) j["taint"] = e.taint;
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
  if (j.contains("taint") && r.str(j["taint"], "taint", e.taint) && e.taint.empty()) r.fail("taint", "must not be empty");
  if (!r.error().empty()) return bad_input(r.error());
  for (const char* k : kLineKeys) j.erase(k);
  e.fields = std::move(j);
  if (Status st = check_payload(e, what); !st.ok()) return st.error();
  return e;
}

Result<Event> decode_event(std::string_view line, const std::string& what) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  auto j = parse_record(line, what);
  if (!j.ok()) return j.error();
  return event_from_json(std::move(*j), what);
}

Event notice_event(const std::string& level, const std::string& message) {
  Notice n;
  n.level = level;
  n.message = message;
  return make_event(n);
}

Event session_ended_event(const Report& r) {
  Report fields = r;
  fields.session_id.clear();  // the session_ended event leaves it out
  return make_event(fields);
}

Result<Report> report_from_event(const Event& e) {
  if (e.type != EventType::kSessionEnded) return bad_input(std::string("session_ended: the event is ") + event_name(e.type));
  return report_from_json(e.fields, "session_ended", /*require_id=*/false);
}

}  // namespace paddock::session
