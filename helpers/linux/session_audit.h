// The helper's side of the direct-mode audit (docs/audit.md). Before the sandbox exists: the
// session's start time, the write roots the agent writes directly, and the few files whose
// content before the session quarantine may have to put back, opened and stamped
// (platform/audit/preserve.h) — nothing is copied or walked. Once nothing of the sandbox runs:
// the audit itself (platform/audit/audit.h), its record, a high-severity event per finding and
// per part not audited, and a line for each on the terminal `paddock run` was started from.
#pragma once

#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/session/audit_record.h"
#include "engine/session/config_watch.h"
#include "engine/session/layout.h"
#include "helpers/common/event_log.h"
#include "platform/audit/preserve.h"

namespace paddock::helper {

class SessionAudit {
 public:
  SessionAudit() = default;
  // Inactive when the session writes no root directly (review mode everywhere, no write root).
  static SessionAudit prepare(const FrozenIr& ir);

  bool active() const { return active_; }
  // audit/start.json's bytes ("" when inactive), written with the session's first records.
  std::string start_record() const;

  struct Context {
    std::string session_id, session_dir, resources_dir;
    const session::Layout* layout = nullptr;  // null: no pending-findings marker is written
  };
  // Takes the session's audit lock (platform/audit/audit.h) before the control socket closes: from
  // then on no front end audits the session as one whose helper was killed.
  void hold_lock(const std::string& session_dir);
  // Audits the session once nothing of its sandbox runs. `agent_ran`: the agent was started (a
  // session refused before that wrote nothing: its start record goes).
  void finish(const Context& ctx, EventLog& events, const std::vector<session::ConfigChange>& config_changes,
              bool agent_ran);

 private:
  bool active_ = false;
  FrozenIr ir_;
  session::AuditStart start_;
  platform::Preserver preserver_;
  platform::UniqueFd lock_;
};

}  // namespace paddock::helper
