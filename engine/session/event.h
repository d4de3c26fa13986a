// events.jsonl: the session's event stream, one JSON object per line with its type ("event") and
// a UTC time ("ts"). The helper writes it (its own events and the egress broker's) and sends
// each line to control-socket subscribers; `paddock sessions` and the app read it. Events are
// advisory: nothing read from them feeds enforcement.
//
// A line may stand for several identical events (same type and fields, only their times
// differ): "count" says how many, from "ts" to "last_ts" (docs/cli.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/report.h"
#include "engine/status.h"

namespace paddock::session {

// Every event type there is; the names are the "event" values in the file.
enum class EventType {
  kSessionStarted,  // session_started: ir_hash, plan_hash, backend, tainted, command, helper_pid
  kAttestation,     // attestation: the attestation as stored in attestation.json
  kNetRequest,      // net_request: host, port, protocol, decision, rule, reason
  kDnsResolved,     // dns_resolved: host, ips, verdict
  kNetEgress,       // net_egress: host, ip, port, bytes_tx, bytes_rx
  kAsk,             // ask: id, host, port (waiting for the user's answer)
  kQuotaExceeded,   // quota_exceeded: domain, ...
  kLimitHit,        // limit_hit: limit, ...
  kNotice,          // notice: level or source, kind, message
  kConfigChanged,   // agent_config_changed: file, key, change, severity ("high"), see config_watch.h
  // credential_request: credential, host, method, path (no query), status, bytes_tx, bytes_rx,
  // duration_ms, decision (allow | deny), rule; never the credential's value (docs/credentials.md)
  kCredentialRequest,
  kSessionEnded,    // session_ended: the report's fields (report.h) but session_id
};

const char* event_name(EventType t);
std::optional<EventType> parse_event_type(std::string_view name);

struct Event {
  EventType type = EventType::kNotice;
  std::string ts;  // "" until the log stamps it
  nlohmann::json fields = nlohmann::json::object();  // everything but event, ts, count, last_ts
  std::int64_t count = 1;
  std::string last_ts;  // with count > 1: the time of the last event this line stands for
};

Event make_event(EventType t, nlohmann::json fields = nlohmann::json::object());
// {"event": name, ...fields} without ts: the shape the broker's event sink carries.
nlohmann::json event_json(EventType t, nlohmann::json fields = nlohmann::json::object());

// One line of events.jsonl, without the newline.
std::string encode_event(const Event& e);
// A line (its newline may be there or not). Not JSON, an unknown type, a mistyped ts or count:
// an error naming `what` (e.g. "events.jsonl line 3"); never throws.
Result<Event> decode_event(std::string_view line, const std::string& what = "events.jsonl line");
// An event object as a sink receives it ({"event": name, ...}; ts optional).
Result<Event> event_from_json(nlohmann::json j, const std::string& what = "event");

// The notice every session's own messages use.
Event notice_event(const std::string& level, const std::string& message);

struct SessionStarted {
  std::string session_id;
  std::vector<std::string> command;
  std::string ir_hash, plan_hash, backend;
  bool tainted = false;
  std::int64_t helper_pid = 0;
};
Event session_started_event(const SessionStarted& s);
Result<SessionStarted> session_started_from(const Event& e);

Event session_ended_event(const Report& r);
Result<Report> report_from_event(const Event& e);

}  // namespace paddock::session
