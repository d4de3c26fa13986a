// The direct-mode audit (docs/audit.md): once a session that wrote its write roots directly has
// ended, what it created or changed there is compared with the tool-executed and agent-config
// lists (globs at any depth) and with what git runs from a repository (review mode's classifier,
// engine/review/classify.h: git metadata and the config settings that name programs, new nested
// repositories, gitlinks added to an index, .git files). Each match is a finding: the path, the
// tool that would run it and why. The helper audits at the session's end; a front end audits a
// session whose helper was killed the first time it sees it. Records: engine/session/audit_record.h.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/glob.h"
#include "engine/ir.h"
#include "engine/session/audit_record.h"
#include "engine/session/config_watch.h"
#include "engine/session/layout.h"
#include "engine/status.h"
#include "platform/audit/audit_walk.h"
#include "platform/audit/preserve.h"
#include "platform/unique_fd.h"

namespace paddock::platform {

// The write roots a session writes directly: every write root not in review mode.
std::vector<std::string> direct_roots(const FrozenIr& ir);

// What the session's own change record says it wrote (the helper's fanotify record), as the walk
// would have found it; with `complete` false the audit walks instead.
struct ChangeRecord {
  std::vector<WalkEntry> changed;
  std::vector<std::string> problems;
  std::size_t entries = 0;
  bool complete = false;
};

struct AuditInputs {
  std::string session_id;
  std::string session_dir;
  FrozenIr ir;
  session::AuditStart start;
  std::string resources_dir;  // the built-in lists
  std::string by;             // "helper", "paddock sessions", "the app", ...
  // The helper's comparison of the agents' settings (config_watch.h). nullopt (its helper was
  // killed): every watched settings file that changed is a finding.
  std::optional<std::vector<session::ConfigChange>> config_changes;
  // The helper's preserved files that changed (Preserver::save_changed). nullopt: none were saved.
  std::optional<std::map<std::string, PreservedOutcome>> preserved;
  const ChangeRecord* record = nullptr;  // null: walk the roots
  std::size_t budget = kGlobWalkBudget;
};

// The audit. Fails only when the built-in lists cannot be read; everything the audit could not
// look at is in the record's problems (complete = false), never an error that hides it.
Result<session::AuditRecord> audit_session(const AuditInputs& in);

// Writes audit.json and the pending-findings marker of the session (Layout::audit_pending_dir).
Status write_audit(const session::Layout& layout, const std::string& session_dir, const session::AuditRecord& record,
                   const std::string& project);

// Writes or removes the session's marker in Layout::audit_pending_dir, by whether findings of its
// audit are still undecided.
Status refresh_pending_marker(const session::Layout& layout, const std::string& session_dir, const std::string& id);

// The session's audit lock, taken without waiting (invalid: someone else audits the session).
// The helper takes it before its control socket closes and keeps it until its audit is written,
// so a front end that finds the session without its helper in that moment leaves the audit to it;
// the kernel lets go of it when its holder dies.
UniqueFd try_lock_audit(const std::string& session_dir);

// A session's audit as a front end shows it.
struct LoadedAudit {
  std::optional<session::AuditStart> start;   // none: the session wrote no root directly
  std::optional<session::AuditRecord> record;  // none: not audited (yet)
  session::AuditState state;
  std::optional<session::QuarantineJournal> journal;  // a quarantine that did not finish
  std::string problem;  // a record that does not read: which and why (never guessed empty)
  std::size_t pending() const { return record ? session::pending_findings(*record, state) : 0; }
};
LoadedAudit load_audit(const std::string& session_dir);

// Audits a session that ended without its helper (no report.json, nobody on its control socket)
// and was never audited, the first time a front end lists it; nothing for any other session.
// Returns whether it audited. `by` names the front end.
Result<bool> audit_if_abandoned(const session::Layout& layout, const std::string& id, const std::string& resources_dir,
                                const std::string& by);

// Sessions whose findings are still pending, of the project (the reminder at the next start).
struct PendingAudit {
  std::string session_id;
  std::size_t pending = 0;
};
std::vector<PendingAudit> pending_audits_of(const session::Layout& layout, const std::string& project);

}  // namespace paddock::platform
