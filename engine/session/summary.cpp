#include "engine/session/summary.h"

#include "engine/session/event.h"

namespace paddock::session {
namespace {

using nlohmann::json;

constexpr std::pair<SessionState, const char*> kStateWords[] = {
    {SessionState::kRunning, "running"},     {SessionState::kExited, "exited"},
    {SessionState::kFailed, "failed"},       {SessionState::kTimeout, "timeout"},
    {SessionState::kStopped, "stopped"},     {SessionState::kAbandoned, "abandoned"},
    {SessionState::kUnreadable, "unreadable"},
};

SessionState from_report(ReportStatus s) {
  switch (s) {
    case ReportStatus::kExited: return SessionState::kExited;
    case ReportStatus::kFailed: return SessionState::kFailed;
    case ReportStatus::kTimeout: return SessionState::kTimeout;
    case ReportStatus::kStopped: return SessionState::kStopped;
  }
  return SessionState::kFailed;
}

}  // namespace

const char* to_string(SessionState s) {
  for (const auto& [state, word] : kStateWords)
    if (state == s) return word;
  return "unreadable";
}

SessionSummary summarize(const std::string& id, const SessionFiles& files) {
  SessionSummary s;
  s.id = id;
  auto unreadable = [&](std::string why) {
    if (s.problem.empty()) s.problem = std::move(why);
    s.state = SessionState::kUnreadable;
  };
  // The first line of events.jsonl is session_started (a session refused before it started has
  // none). A line without its newline may still be being written: it is not judged yet.
  if (files.events_head) {
    const std::string& head = *files.events_head;
    if (const auto nl = head.find('\n'); nl != std::string::npos) {
      auto first = decode_event(std::string_view(head).substr(0, nl), "events.jsonl line 1");
      if (!first.ok()) {
        unreadable(first.error().message);
      } else if (first->type == EventType::kSessionStarted) {
        auto started = payload_of<SessionStarted>(*first);
        if (!started.ok()) {
          unreadable("events.jsonl line 1: " + started.error().message);
        } else {
          s.started = first->ts;
          s.command = std::move(started->command);
          s.ir_hash = std::move(started->ir_hash);
        }
      }
    }
  }
  if (!files.read_error.empty()) unreadable(files.read_error);
  if (files.report) {
    auto r = decode_report(*files.report);
    if (!r.ok()) {
      unreadable(r.error().message);
      s.problem = r.error().message;  // the report decides the state: its problem comes first
    } else if (s.state != SessionState::kUnreadable) {
      s.state = from_report(r->status);
      s.exit_code = r->exit_code;
      s.report = std::move(*r);
    }
    return s;
  }
  if (s.state != SessionState::kUnreadable) s.state = files.live ? SessionState::kRunning : SessionState::kAbandoned;
  return s;
}

json summary_json(const SessionSummary& s) {
  json j = {{"id", s.id},
            {"status", to_string(s.state)},
            {"exit_code", s.exit_code ? json(*s.exit_code) : json(nullptr)},
            {"started", s.started.empty() ? json(nullptr) : json(s.started)},
            {"command", s.command},
            {"ir_hash", s.ir_hash.empty() ? json(nullptr) : json(s.ir_hash)}};
  if (!s.problem.empty()) j["problem"] = s.problem;
  if (s.report && !s.report->config_changes.empty()) j["config_changes"] = report_json(*s.report)["config_changes"];
  return j;
}

}  // namespace paddock::session
