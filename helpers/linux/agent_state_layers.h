// The host side of the agent's own state (docs/agents.md, platform/agent_state.h): before the
// sandbox exists, the helper takes the state's lock, commits what ended sessions left when no
// other session of the agent runs, and makes this session's layers for each of the agent's
// directories (a kAgentState step of the plan): its upper and work directories, a top layer with
// what Paddock sets in the agent's settings for this session (its nested sandbox off, the user's
// MCP servers), and a base layer whose whiteouts hide the user's stored logins and history. Init
// mounts them (mount_view.h). When the session is over, finish() lets go of the locks and commits
// this session's writes if it was the last one running.
#pragma once

#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/ir.h"
#include "engine/status.h"
#include "helpers/linux/mount_view.h"
#include "platform/agent_state.h"

namespace paddock::helper {

class AgentStateLayers {
 public:
  // Nothing to do (an empty object) when the plan has no kAgentState step. Refuses (125) when the
  // state cannot be prepared (a directory cannot be made, a whiteout cannot be made).
  static Result<AgentStateLayers> prepare(const IrFs& fs, const std::vector<linux_backend::MountStep>& steps,
                                          const std::string& session_id);

  bool active() const { return !dir_.empty(); }
  // One per kAgentState step, in plan order.
  const std::vector<OverlayDirs>& dirs() const { return dirs_; }
  // What Paddock could not set in the agent's settings for this session, one line each: why, and
  // what follows from it (the session runs; `run` has said what it sets).
  const std::vector<std::string>& problems() const { return problems_; }
  // After the sandbox is gone. Returns "" or what went wrong committing (the writes stay where
  // they are, and the next session commits them).
  std::string finish();

 private:
  std::string dir_, id_;
  platform::FileLock state_lock_, session_lock_;
  std::vector<OverlayDirs> dirs_;
  std::vector<std::string> problems_;
};

}  // namespace paddock::helper
