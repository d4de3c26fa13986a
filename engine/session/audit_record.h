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
  int version = 1;                       // the file's format; 1 is the one this Paddock reads
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
  int version = 1;
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
  int version = 1;
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
  int version = 1;
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

// The audit's files, declared (engine/schema.h): their JSON and strict readers derive from these
// lines (FileStamp's is review mode's, review_record.h). What a declaration cannot state (the one
// version, absolute paths, names inside the audit directory, a finding's flags never empty, how
// the walk recorded) is checked after the read in audit_record.cpp.
namespace paddock::schema {

template <>
struct Schema<session::PreservedFile> {
  using P = session::PreservedFile;
  static constexpr auto fields = std::make_tuple(field("path", &P::path), field("stamp", &P::stamp));
};

template <>
struct Schema<session::AuditStart> {
  using S = session::AuditStart;
  static constexpr auto fields =
      std::make_tuple(field("version", &S::version), field("started_ns", &S::started_ns), field("project", &S::project),
                      field("roots", &S::roots), field("record", &S::record), field("preserved", &S::preserved));
};

template <>
struct EnumNames<session::FindingKind> {
  static constexpr NameTable<session::FindingKind, 2> values{
      {{session::FindingKind::kAdded, "added"}, {session::FindingKind::kChanged, "changed"}}};
};

template <>
struct Schema<session::AuditFlag> {
  using F = session::AuditFlag;
  static constexpr auto fields =
      std::make_tuple(field("rule", &F::rule), field("tool", &F::tool), field("why", &F::why), field("source", &F::source));
};

template <>
struct Schema<session::AuditFinding> {
  using F = session::AuditFinding;
  static constexpr auto fields = std::make_tuple(
      field("path", &F::path), field("kind", &F::kind), field("type", &F::type), field("flags", &F::flags),
      field("inside", &F::inside), field("stamp", &F::stamp), field("previous", &F::previous),
      field("previous_note", &F::previous_note));
};

template <>
struct Schema<session::AuditRecord> {
  using A = session::AuditRecord;
  static constexpr auto fields = std::make_tuple(
      field("version", &A::version), field("session_id", &A::session_id), field("audited", &A::audited),
      field("by", &A::by), field("method", &A::method), field("complete", &A::complete),
      field("problems", &A::problems), field("entries", &A::entries), field("duration_ms", &A::duration_ms),
      field("findings", &A::findings));
};

template <>
struct EnumNames<session::AuditDecision> {
  static constexpr NameTable<session::AuditDecision, 2> values{
      {{session::AuditDecision::kQuarantined, "quarantined"}, {session::AuditDecision::kKept, "kept"}}};
};

template <>
struct Schema<session::AuditDecisionRecord> {
  using D = session::AuditDecisionRecord;
  static constexpr auto fields =
      std::make_tuple(field("path", &D::path), field("decision", &D::decision), field("moved_to", &D::moved_to),
                      field("restored", &D::restored), field("ts", &D::ts));
};

template <>
struct Schema<session::AuditState> {
  using S = session::AuditState;
  static constexpr auto fields = std::make_tuple(field("version", &S::version), field("decisions", &S::decisions));
};

template <>
struct Schema<session::QuarantineJournal> {
  using J = session::QuarantineJournal;
  static constexpr auto fields =
      std::make_tuple(field("version", &J::version), field("path", &J::path), field("to", &J::to),
                      field("previous", &J::previous), field("stamp", &J::stamp), field("started", &J::started));
};

}  // namespace paddock::schema
