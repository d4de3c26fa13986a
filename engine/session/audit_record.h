// The direct-mode audit's records (docs/audit.md), in <session>/audit/:
//
//   start.json      written by the helper before the sandbox exists: when the session started (a
//                   file whose ctime is at or after it was written during the session), the write
//                   roots the agent writes directly, how the helper records the agent's writes,
//                   and the files whose content before the session it preserves, as they were then
//   audit.json      the audit, once the sandbox is gone (by the helper, or by the first front end
//                   that finds a session whose helper was killed): what was looked at, what could
//                   not be, and each finding with the tool that would run it and why
//   preserved/<n>   the content before the session of a preserved file that the session changed
//   state.json      what the user decided for each finding: quarantined (and where to) or kept
//   quarantine/<n>  what a quarantine moved out of the project
//   journal.json    a quarantine in progress, finished by the next quarantine or keep
//   lock            held (flock) by whoever audits the session: the helper from before its
//                   control socket closes until its audit is written, or the one front end that
//                   audits a session whose helper was killed
//
// One reader and one writer per file, here; the helper, `paddock sessions|audit|quarantine|keep`
// and the app use them. Findings and decisions are data; their words are for people.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/session/review_record.h"
#include "engine/status.h"

namespace paddock::session {

std::string audit_dir(const std::string& session_dir);
std::string audit_start_file(const std::string& session_dir);
std::string audit_file(const std::string& session_dir);
std::string audit_state_file(const std::string& session_dir);
std::string audit_journal_file(const std::string& session_dir);
std::string audit_lock_file(const std::string& session_dir);
std::string audit_preserved_dir(const std::string& session_dir);
std::string audit_quarantine_dir(const std::string& session_dir);

struct PreservedFile {
  std::string path;  // absolute host path
  FileStamp stamp;   // as it was when the session started
  bool operator==(const PreservedFile&) const = default;
};

struct AuditStart {
  // CLOCK_REALTIME_COARSE (the clock file times come from) in ns, less a margin, taken before the
  // sandbox existed: nothing the agent wrote has an older ctime.
  std::int64_t started_ns = 0;
  std::string project;             // the IR's project (the reminder of the next session on it)
  std::vector<std::string> roots;  // the write roots the agent writes directly (not in review mode)
  std::string record;              // "fanotify" or "walk": how the helper sees what was written
  std::vector<PreservedFile> preserved;  // files whose content before the session the helper preserves
  bool operator==(const AuditStart&) const = default;
};

std::string encode_audit_start(const AuditStart& s);
Result<AuditStart> decode_audit_start(std::string_view bytes);

enum class FindingKind { kAdded, kChanged };
const char* to_string(FindingKind k);

struct AuditFlag {
  std::string rule;    // tool-executed, agent-config, git-metadata, nested-repository, gitlink, git-file
  std::string tool;    // what would run it ("git", "direnv", "Claude Code")
  std::string why;     // the list entry's why, or the git rule's
  std::string source;  // the list pattern that matched ("" for git's rules)
  bool operator==(const AuditFlag&) const = default;
};

struct AuditFinding {
  std::string path;             // absolute host path
  FindingKind kind = FindingKind::kAdded;
  std::string type;             // file, dir, symlink, other
  std::vector<AuditFlag> flags;  // at least one
  std::int64_t inside = 0;      // a directory: the changed entries below it it stands for
  FileStamp stamp;              // the entry as audited; quarantine refuses one that changed since
  std::string previous;         // "preserved/<n>": its content before the session ("" when none)
  std::string previous_note;    // a changed file without preserved content: why there is none
  bool operator==(const AuditFinding&) const = default;
};

struct AuditRecord {
  std::string session_id;
  std::string audited;  // UTC
  std::string by;       // "helper", or the front end that audited a session whose helper was killed
  std::string method;   // "fanotify" or "walk"
  // false: part of the write roots was not audited (a budget, an unreadable directory); the
  // problems say which part and why. Never a silent skip.
  bool complete = true;
  std::vector<std::string> problems;
  std::int64_t entries = 0;      // entries looked at
  std::int64_t duration_ms = 0;
  std::vector<AuditFinding> findings;  // sorted by path
  const AuditFinding* find(const std::string& path) const;
  bool operator==(const AuditRecord&) const = default;
};

std::string encode_audit(const AuditRecord& a);
Result<AuditRecord> decode_audit(std::string_view bytes);

enum class AuditDecision { kQuarantined, kKept };
const char* to_string(AuditDecision d);

struct AuditDecisionRecord {
  std::string path;
  AuditDecision decision = AuditDecision::kKept;
  std::string moved_to;  // kQuarantined: "quarantine/<n>/<name>", the session's copy of what was there
  bool restored = false;  // kQuarantined: the content before the session was put back in its place
  std::string ts;         // UTC
  bool operator==(const AuditDecisionRecord&) const = default;
};

struct AuditState {
  std::vector<AuditDecisionRecord> decisions;  // sorted by path, one per path
  const AuditDecisionRecord* find(const std::string& path) const;
  void set(AuditDecisionRecord d);
  bool operator==(const AuditState&) const = default;
};

std::string encode_audit_state(const AuditState& s);
Result<AuditState> decode_audit_state(std::string_view bytes);

// A quarantine under way: the finding's path, where its content goes, and the content before the
// session that replaces it ("" for a new file, which is only moved).
struct QuarantineJournal {
  std::string path;
  std::string to;        // "quarantine/<n>/<name>"
  std::string previous;  // "preserved/<n>" or ""
  FileStamp stamp;       // the entry as audited
  std::string started;   // UTC
  bool operator==(const QuarantineJournal&) const = default;
};

std::string encode_quarantine_journal(const QuarantineJournal& j);
Result<QuarantineJournal> decode_quarantine_journal(std::string_view bytes);

// Findings the user has not decided on yet.
std::size_t pending_findings(const AuditRecord& a, const AuditState& s);

// A finding's path or reason as a terminal line shows it: control characters as \xNN and a
// backslash doubled, so that a file name the agent chose cannot drive the terminal (an ESC
// sequence) or forge a line of Paddock's output (a newline).
std::string terminal_safe(std::string_view s);

}  // namespace paddock::session
