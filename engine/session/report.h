// report.json: how a session ended, written once by whoever ends it (the helper, or `paddock run`
// when the helper could not be started) and read by `paddock sessions`, `paddock verify`'s
// callers and the app. Its fields, less session_id, are also the session_ended event's.
//
// status words (docs/cli.md): exited (the agent ran and exited by itself, its code is exit_code),
// failed (refused or setup failed; nothing ran, or the agent could not be executed), timeout
// (the wall-time limit ended it: 124), stopped (ended by `paddock stop`, the app's Stop or a
// signal to the helper).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/config_watch.h"
#include "engine/status.h"

namespace paddock::session {

enum class ReportStatus { kExited, kFailed, kTimeout, kStopped };

const char* to_string(ReportStatus s);
std::optional<ReportStatus> parse_report_status(std::string_view word);

struct Usage {
  std::int64_t cpu_ms = 0;
  std::int64_t max_rss = 0;  // bytes
  std::int64_t pids = 0;     // processes and threads the session started
};

// One brokered credential's use in a session (docs/credentials.md): what its endpoint relayed,
// summed over the session; never its value.
struct CredentialUsage {
  std::string name;
  std::string upstream;       // "host:port"
  std::int64_t requests = 0;  // relayed to the upstream
  std::int64_t refused = 0;   // answered by the broker itself (no placeholder, budget, bounds)
  std::int64_t bytes_tx = 0;  // agent -> upstream, headers and bodies
  std::int64_t bytes_rx = 0;  // upstream -> agent
  std::string last_used;      // UTC time of the last relayed request, "" = none
};

struct Report {
  std::string session_id;
  ReportStatus status = ReportStatus::kFailed;
  int exit_code = 0;
  std::optional<int> signal;  // the signal that ended the agent
  std::int64_t duration_ms = 0;
  bool attested = false;      // the helper stored the attestation before the agent ran
  std::vector<std::string> limits_hit;
  Usage usage;
  std::string ended;          // UTC, "2026-01-02T03:04:05.678Z"
  std::optional<std::string> error;
  // Events counted but not written once events.jsonl reached its cap (docs/cli.md).
  std::int64_t events_dropped = 0;
  // Keys of the agent's configuration that name host commands and changed during the session
  // (config_watch.h): what the agent's CLI may run outside Paddock next time.
  std::vector<ConfigChange> config_changes;
  std::vector<CredentialUsage> credentials;  // one per brokered credential, by name
};

// The report as JSON; with_id = false leaves session_id out (the session_ended event's fields).
nlohmann::json report_json(const Report& r, bool with_id = true);
// report.json's bytes: indented JSON and a final newline.
std::string encode_report(const Report& r);

// From report.json's bytes. Any problem (not JSON, a missing or mistyped field, an unknown
// status word) is an error naming report.json and the field; it never throws.
Result<Report> decode_report(std::string_view bytes);
// From a parsed object (the session_ended event has no session_id: require_id = false).
Result<Report> report_from_json(const nlohmann::json& j, const std::string& what, bool require_id);

}  // namespace paddock::session
