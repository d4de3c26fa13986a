// events.jsonl: the session's event stream, one JSON object per line with its type ("event") and
// a UTC time ("ts"). The helper writes it (its own events and the egress broker's) and sends
// each line to control-socket subscribers; `paddock sessions` and the app read it. Events are
// advisory: nothing read from them feeds enforcement.
//
// Each type's payload is one struct, declared once (engine/schema.h) at the end of this header:
// its fields are the line's other keys. Writers build the payload (make_event, event_json), and
// every reader checks a line against its type's declaration: an unknown or missing field is an
// error naming it. docs/architecture.md, "How to add an event type", is the recipe.
//
// A line may stand for several identical events (same type and fields, only their times
// differ): "count" says how many, from "ts" to "last_ts" (docs/cli.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/plan.h"
#include "engine/schema.h"
#include "engine/schema_codec.h"
#include "engine/session/report.h"
#include "engine/status.h"

namespace paddock::session {

// Every event type there is; the names are the "event" values in the file (EventNames below).
enum class EventType {
  kSessionStarted,
  kAttestation,
  kNetRequest,
  kDnsResolved,
  kNetEgress,
  kAsk,
  kQuotaExceeded,
  kLimitHit,
  kNotice,
  kConfigChanged,
  kAuditFinding,
  kAuditIncomplete,
  kCredentialRequest,
  kSessionEnded,
};

const char* event_name(EventType t);
std::optional<EventType> parse_event_type(std::string_view name);

// ---- The payloads: one struct per type ---------------------------------------------------------

// The helper started the session (always the first line).
struct SessionStarted {
  static constexpr EventType kType = EventType::kSessionStarted;
  std::string session_id;
  std::vector<std::string> command;
  std::string ir_hash, plan_hash, backend;
  bool tainted = false;
  std::int64_t helper_pid = 0;
  bool operator==(const SessionStarted&) const = default;
};

// Everything is applied; the attestation is stored (attestation.json) and the agent starts.
struct AttestationStored {
  static constexpr EventType kType = EventType::kAttestation;
  Attestation attestation;
  bool operator==(const AttestationStored&) const = default;
};

// The broker decided about a connection (a refusal of what is not a connection too).
struct NetRequest {
  static constexpr EventType kType = EventType::kNetRequest;
  std::string host;
  int port = 0;
  std::string protocol;  // connect | socks5 | http | host_port
  std::string decision;  // allow | deny
  std::string rule, reason;
  std::string ask_id;    // the ask this connection raised ("" = none)
  bool operator==(const NetRequest&) const = default;
};

// The broker resolved a name once, on the host, and vetted the answer.
struct DnsResolved {
  static constexpr EventType kType = EventType::kDnsResolved;
  std::string host;
  std::vector<std::string> ips;
  std::string verdict;  // allowed | refused | failed
  std::string reason;
  bool operator==(const DnsResolved&) const = default;
};

// A relayed connection ended: what it carried.
struct NetEgress {
  static constexpr EventType kType = EventType::kNetEgress;
  std::string host, ip;
  int port = 0;
  std::int64_t bytes_tx = 0, bytes_rx = 0;
  std::string end;  // eof | error: ... | quota | closed
  bool operator==(const NetEgress&) const = default;
};

// A connection waits for the user's answer (network mode ask); the line's ts is when it was raised.
struct AskRaised {
  static constexpr EventType kType = EventType::kAsk;
  std::string id, host;
  int port = 0;
  bool operator==(const AskRaised&) const = default;
};

struct QuotaExceeded {
  static constexpr EventType kType = EventType::kQuotaExceeded;
  std::string domain;
  std::int64_t limit_bytes = 0, used_bytes = 0;
  bool operator==(const QuotaExceeded&) const = default;
};

struct LimitHit {
  static constexpr EventType kType = EventType::kLimitHit;
  std::string limit;                       // wall_time, memory, processes, cpu, ...
  std::optional<std::int64_t> value_secs;  // wall_time: the limit
  std::string enforced_by;                 // who ended the session when not the helper ("" = the helper)
  // disk_space (review mode): what was left on the disk that holds the changes, the reserve it
  // fell below, and that directory.
  std::optional<std::int64_t> free_bytes, reserve_bytes;
  std::string path;
  bool operator==(const LimitHit&) const = default;
};

// A message about the session: the helper's own (level), or a component's (source, kind).
struct Notice {
  static constexpr EventType kType = EventType::kNotice;
  std::string level;   // info | warning | error ("" = none)
  std::string source;  // broker | publish | host_ports ("" = the helper)
  std::string kind;    // what happened, as a word a program can match ("" = none)
  std::string message;
  std::optional<std::int64_t> cap_bytes;  // event_log_capped: the log's cap
  bool operator==(const Notice&) const = default;
};

// A key of the agent's settings that names host commands changed during the session
// (engine/session/config_watch.h).
struct ConfigChanged {
  static constexpr EventType kType = EventType::kConfigChanged;
  std::string file, key, change;
  std::string severity = "high";
  bool operator==(const ConfigChanged&) const = default;
};

// Direct mode's audit at the session's end (engine/session/audit_record.h): one line per flag of
// a finding, what the session created or changed that a host tool would run. Names the agent
// chose are JSON text (encode_json_text), as audit.json holds them.
struct AuditFindingEvent {
  static constexpr EventType kType = EventType::kAuditFinding;
  std::string path;
  std::string kind;  // added | changed
  std::string type;  // file | dir | symlink | ...
  std::string rule, tool, why;
  std::int64_t inside = 0;  // a directory: the changed entries below it that it stands for
  std::string severity = "high";
  bool operator==(const AuditFindingEvent&) const = default;
};

// A part of the write roots the audit did not look at (its budget, an unreadable directory).
struct AuditIncomplete {
  static constexpr EventType kType = EventType::kAuditIncomplete;
  std::string problem;
  std::string severity = "high";
  bool operator==(const AuditIncomplete&) const = default;
};

// One exchange through the credential broker (docs/credentials.md); never the credential's value.
struct CredentialRequest {
  static constexpr EventType kType = EventType::kCredentialRequest;
  std::string credential, host, method;
  std::string path;  // without the query
  int status = 0;
  std::int64_t bytes_tx = 0, bytes_rx = 0, duration_ms = 0;
  std::string decision;  // allow | deny
  std::string rule;
  bool operator==(const CredentialRequest&) const = default;
};

// session_ended: the report (report.h) without its session_id.
template <class P>
inline constexpr EventType event_type_of = P::kType;
template <>
inline constexpr EventType event_type_of<Report> = EventType::kSessionEnded;

// Every payload, in EventType order (checked below): what walks every type walks this.
using EventPayloads = std::tuple<SessionStarted, AttestationStored, NetRequest, DnsResolved, NetEgress, AskRaised,
                                 QuotaExceeded, LimitHit, Notice, ConfigChanged, AuditFindingEvent, AuditIncomplete,
                                 CredentialRequest, Report>;

// ---- Lines -------------------------------------------------------------------------------------

struct Event {
  EventType type = EventType::kNotice;
  std::string ts;  // "" until the log stamps it
  nlohmann::json fields = nlohmann::json::object();  // the payload's fields (everything but the line's keys)
  std::int64_t count = 1;
  std::string last_ts;  // with count > 1: the time of the last event this line stands for
  // Set on every event of a session whose broker runs with a test seam (PADDOCK_DEBUG_RESOLVE,
  // --unsafe-allow-loopback-targets): says why, so a log read on its own is never taken for a
  // real session's. "" = none, and then not written.
  std::string taint;
};

// The event of a payload (fields as its declaration writes them), and the same as the object a
// sink receives ({"event": name, ...fields}, no ts: the shape the broker's event sink carries).
template <class P>
Event make_event(const P& payload);
template <class P>
nlohmann::json event_json(const P& payload);
// The payload of an event of P's type, read strictly from its fields.
template <class P>
Result<P> payload_of(const Event& e);

// One line of events.jsonl, without the newline.
std::string encode_event(const Event& e);
// A line (its newline may be there or not). Not JSON, an unknown type, a mistyped ts or count, a
// field its type does not declare or one it lacks: an error naming `what` (e.g. "events.jsonl
// line 3") and the field; never throws.
Result<Event> decode_event(std::string_view line, const std::string& what = "events.jsonl line");
// An event object as a sink receives it ({"event": name, ...}; ts optional), checked the same way.
Result<Event> event_from_json(nlohmann::json j, const std::string& what = "event");

// The notice every session's own messages use.
Event notice_event(const std::string& level, const std::string& message);

Event session_ended_event(const Report& r);
Result<Report> report_from_event(const Event& e);

}  // namespace paddock::session

// ---- The declarations --------------------------------------------------------------------------

namespace paddock::schema {

template <>
struct EnumNames<session::EventType> {
  using T = session::EventType;
  static constexpr NameTable<T, 14> values{{{T::kSessionStarted, "session_started"},
                                            {T::kAttestation, "attestation"},
                                            {T::kNetRequest, "net_request"},
                                            {T::kDnsResolved, "dns_resolved"},
                                            {T::kNetEgress, "net_egress"},
                                            {T::kAsk, "ask"},
                                            {T::kQuotaExceeded, "quota_exceeded"},
                                            {T::kLimitHit, "limit_hit"},
                                            {T::kNotice, "notice"},
                                            {T::kConfigChanged, "agent_config_changed"},
                                            {T::kAuditFinding, "audit_finding"},
                                            {T::kAuditIncomplete, "audit_incomplete"},
                                            {T::kCredentialRequest, "credential_request"},
                                            {T::kSessionEnded, "session_ended"}}};
};

template <>
struct Schema<session::SessionStarted> {
  using P = session::SessionStarted;
  static constexpr auto fields = std::make_tuple(
      field("session_id", &P::session_id), field("command", &P::command), field("ir_hash", &P::ir_hash),
      field("plan_hash", &P::plan_hash), field("backend", &P::backend), field("tainted", &P::tainted),
      field("helper_pid", &P::helper_pid, kNonNegative));
};

template <>
struct Schema<session::AttestationStored> {
  static constexpr auto fields = std::make_tuple(field("attestation", &session::AttestationStored::attestation));
};

template <>
struct Schema<session::NetRequest> {
  using P = session::NetRequest;
  static constexpr auto fields = std::make_tuple(
      field("host", &P::host), field("port", &P::port, kPort), field("protocol", &P::protocol),
      field("decision", &P::decision), field("rule", &P::rule), field("reason", &P::reason),
      field("ask_id", &P::ask_id, kOmitEmpty));
};

template <>
struct Schema<session::DnsResolved> {
  using P = session::DnsResolved;
  static constexpr auto fields = std::make_tuple(field("host", &P::host), field("ips", &P::ips),
                                                 field("verdict", &P::verdict), field("reason", &P::reason));
};

template <>
struct Schema<session::NetEgress> {
  using P = session::NetEgress;
  static constexpr auto fields = std::make_tuple(
      field("host", &P::host), field("ip", &P::ip), field("port", &P::port, kPort),
      field("bytes_tx", &P::bytes_tx, kNonNegative), field("bytes_rx", &P::bytes_rx, kNonNegative), field("end", &P::end));
};

template <>
struct Schema<session::AskRaised> {
  using P = session::AskRaised;
  static constexpr auto fields = std::make_tuple(field("id", &P::id), field("host", &P::host), field("port", &P::port, kPort));
};

template <>
struct Schema<session::QuotaExceeded> {
  using P = session::QuotaExceeded;
  static constexpr auto fields = std::make_tuple(field("domain", &P::domain), field("limit_bytes", &P::limit_bytes),
                                                 field("used_bytes", &P::used_bytes));
};

template <>
struct Schema<session::LimitHit> {
  using P = session::LimitHit;
  static constexpr auto fields = std::make_tuple(field("limit", &P::limit), field("value_secs", &P::value_secs, kOmitEmpty),
                                                 field("enforced_by", &P::enforced_by, kOmitEmpty),
                                                 field("free_bytes", &P::free_bytes, kOmitEmpty),
                                                 field("reserve_bytes", &P::reserve_bytes, kOmitEmpty),
                                                 field("path", &P::path, kOmitEmpty));
};

template <>
struct Schema<session::Notice> {
  using P = session::Notice;
  static constexpr auto fields = std::make_tuple(
      field("level", &P::level, kOmitEmpty), field("source", &P::source, kOmitEmpty), field("kind", &P::kind, kOmitEmpty),
      field("message", &P::message), field("cap_bytes", &P::cap_bytes, kOmitEmpty));
};

template <>
struct Schema<session::ConfigChanged> {
  using P = session::ConfigChanged;
  static constexpr auto fields = std::make_tuple(field("file", &P::file), field("key", &P::key),
                                                 field("change", &P::change), field("severity", &P::severity));
};

template <>
struct Schema<session::AuditFindingEvent> {
  using P = session::AuditFindingEvent;
  static constexpr auto fields = std::make_tuple(
      field("path", &P::path), field("kind", &P::kind), field("type", &P::type), field("rule", &P::rule),
      field("tool", &P::tool), field("why", &P::why), field("inside", &P::inside, kNonNegative),
      field("severity", &P::severity));
};

template <>
struct Schema<session::AuditIncomplete> {
  using P = session::AuditIncomplete;
  static constexpr auto fields = std::make_tuple(field("problem", &P::problem), field("severity", &P::severity));
};

template <>
struct Schema<session::CredentialRequest> {
  using P = session::CredentialRequest;
  static constexpr auto fields = std::make_tuple(
      field("credential", &P::credential), field("host", &P::host), field("method", &P::method),
      field("path", &P::path), field("status", &P::status), field("bytes_tx", &P::bytes_tx, kNonNegative),
      field("bytes_rx", &P::bytes_rx, kNonNegative), field("duration_ms", &P::duration_ms, kNonNegative),
      field("decision", &P::decision), field("rule", &P::rule));
};

}  // namespace paddock::schema

// ---- The payload codecs (derived) --------------------------------------------------------------

namespace paddock::session {

namespace detail {
template <std::size_t... I>
constexpr bool payloads_in_type_order(std::index_sequence<I...>) {
  return ((event_type_of<std::tuple_element_t<I, EventPayloads>> == schema::EnumNames<EventType>::values[I].first) && ...);
}
static_assert(std::tuple_size_v<EventPayloads> == schema::EnumNames<EventType>::values.size() &&
                  payloads_in_type_order(std::make_index_sequence<std::tuple_size_v<EventPayloads>>{}),
              "EventPayloads lists one payload per event type, in EventType order");
}  // namespace detail

template <class P>
Event make_event(const P& payload) {
  Event e;
  e.type = event_type_of<P>;
  e.fields = schema::to_json_value(payload);
  return e;
}

template <class P>
nlohmann::json event_json(const P& payload) {
  nlohmann::json j = schema::to_json_value(payload);
  j["event"] = event_name(event_type_of<P>);
  return j;
}

template <class P>
Result<P> payload_of(const Event& e) {
  const std::string name = schema::enum_name(event_type_of<P>).data();
  if (e.type != event_type_of<P>) return bad_input(name + ": the event is " + event_name(e.type));
  return schema::from_json_value<P>(e.fields, name + ": ");
}

}  // namespace paddock::session
