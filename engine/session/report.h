// report.json: how a session ended, written once by whoever ends it (the helper, or `paddock run`
// when the helper could not be started) and read by `paddock sessions`, `paddock verify`'s
// callers and the app. Its fields, less session_id, are also the session_ended event's. Declared
// once (engine/schema.h) at the end of this header; its JSON is derived from the declaration, and
// the reader is strict: an unknown field, or a missing one the declaration does not let be
// absent, is an error naming it.
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

#include "engine/schema.h"
#include "engine/session/config_watch.h"
#include "engine/status.h"

namespace paddock::session {

enum class ReportStatus { kExited, kFailed, kTimeout, kStopped };

const char* to_string(ReportStatus s);
std::optional<ReportStatus> parse_report_status(std::string_view word);

struct Usage {
  std::int64_t cpu_ms = 0;
  std::int64_t max_rss = 0;  // bytes
  std::int64_t pids = 0;     // processes and threads the session started; 0: not counted (docs/cli.md)
  bool operator==(const Usage&) const = default;
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
  bool operator==(const CredentialUsage&) const = default;
};

struct Report {
  std::string session_id;     // left out of the session_ended event
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
  bool operator==(const Report&) const = default;
};

// The report as JSON (session_id is left out when it is empty: the session_ended event's fields).
nlohmann::json report_json(const Report& r);
// report.json's bytes: indented JSON and a final newline.
std::string encode_report(const Report& r);

// From report.json's bytes. Any problem (not JSON, an unknown, missing or mistyped field, an
// unknown status word) is an error naming report.json and the field; it never throws.
Result<Report> decode_report(std::string_view bytes);
// From a parsed object (the session_ended event has no session_id: require_id = false).
Result<Report> report_from_json(const nlohmann::json& j, const std::string& what, bool require_id);

}  // namespace paddock::session

namespace paddock::schema {

template <>
struct EnumNames<session::ReportStatus> {
  using S = session::ReportStatus;
  static constexpr NameTable<S, 4> values{
      {{S::kExited, "exited"}, {S::kFailed, "failed"}, {S::kTimeout, "timeout"}, {S::kStopped, "stopped"}}};
};

template <>
struct Schema<session::Usage> {
  using U = session::Usage;
  static constexpr auto fields = std::make_tuple(field("cpu_ms", &U::cpu_ms, kNonNegative | kMayBeAbsent),
                                                 field("max_rss", &U::max_rss, kNonNegative | kMayBeAbsent),
                                                 field("pids", &U::pids, kNonNegative | kMayBeAbsent));
};

template <>
struct Schema<session::ConfigChange> {
  using C = session::ConfigChange;
  static constexpr auto fields =
      std::make_tuple(field("file", &C::file), field("key", &C::key), field("change", &C::change));
};

template <>
struct Schema<session::CredentialUsage> {
  using C = session::CredentialUsage;
  static constexpr auto fields = std::make_tuple(
      field("name", &C::name), field("upstream", &C::upstream), field("requests", &C::requests, kNonNegative),
      field("refused", &C::refused, kNonNegative), field("bytes_tx", &C::bytes_tx, kNonNegative),
      field("bytes_rx", &C::bytes_rx, kNonNegative), field("last_used", &C::last_used));
};

// A report is always written whole; one that says only its session_id, status and exit_code (as
// the first versions wrote it, and as a hand-made report.json may) still reads: those three are
// the fields without kMayBeAbsent.
template <>
struct Schema<session::Report> {
  using R = session::Report;
  static constexpr auto fields = std::make_tuple(
      field("session_id", &R::session_id, kOmitEmpty), field("status", &R::status), field("exit_code", &R::exit_code),
      field("signal", &R::signal, kMayBeAbsent), field("duration_ms", &R::duration_ms, kNonNegative | kMayBeAbsent),
      field("attested", &R::attested, kMayBeAbsent), field("limits_hit", &R::limits_hit, kMayBeAbsent),
      field("usage", &R::usage, kMayBeAbsent), field("ended", &R::ended, kMayBeAbsent),
      field("error", &R::error, kOmitEmpty), field("events_dropped", &R::events_dropped, kNonNegative | kMayBeAbsent),
      field("config_changes", &R::config_changes, kOmitEmpty), field("credentials", &R::credentials, kOmitEmpty));
};

}  // namespace paddock::schema
