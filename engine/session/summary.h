// One line of `paddock sessions` and one row of the app's session list, from what a session
// directory holds: both front ends read the files and call summarize(), so they show the same
// state in the same words (docs/cli.md):
//
//   running     no report.json yet, and the session's control socket accepts connections
//   exited | failed | timeout | stopped     report.json's status
//   abandoned   no report.json and nobody answers on the control socket: the helper is gone
//               (killed, or the machine went down) without writing how the session ended
//   unreadable  report.json, or the first line of events.jsonl, does not parse or has the wrong
//               types; `problem` names the file and why
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/report.h"

namespace paddock::session {

enum class SessionState { kRunning, kExited, kFailed, kTimeout, kStopped, kAbandoned, kUnreadable };

const char* to_string(SessionState s);

// What a front end read from a session directory.
struct SessionFiles {
  std::optional<std::string> report;       // report.json's bytes; nullopt = no such file
  std::optional<std::string> events_head;  // the start of events.jsonl (its first line at least)
  std::string read_error;  // a file that exists but could not be read, e.g. "report.json: Permission denied"
  bool live = false;       // its control socket accepts connections
};

struct SessionSummary {
  std::string id;
  SessionState state = SessionState::kAbandoned;
  std::optional<int> exit_code;
  std::string started;  // ts of session_started ("" = unknown)
  std::vector<std::string> command;
  std::string ir_hash;
  std::string problem;  // with kUnreadable: which file, and what is wrong with it
  std::optional<Report> report;
};

SessionSummary summarize(const std::string& id, const SessionFiles& files);

// `paddock sessions --json`: {id, status, exit_code, started, command, ir_hash[, problem]
// [, config_changes]}.
nlohmann::json summary_json(const SessionSummary& s);

}  // namespace paddock::session
