// An agent's Paddock-owned state as the user reviews it (docs/agents.md, "Bringing a change
// out"): review mode's change set of the state's layers against the user's own directories,
// classified by review mode's rules, with the agents' settings compared key by key (the keys that
// name host commands) and the files those settings name flagged. `paddock agent-state
// diff|apply|reset` and the app read it; apply and reset are review mode's apply and a removal
// from the state's layers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/review/change.h"
#include "engine/status.h"
#include "platform/agent_state.h"
#include "platform/review/review_session.h"

namespace paddock::platform {

struct AgentStateView {
  ReviewSession state;
  review::ChangeSet changes;
  // Changes below the paths the sandbox never sees of the user's copy (the agent's own history,
  // logins and caches): left out of `changes` unless asked for, counted here.
  std::size_t own_changes = 0;
  // A session of the agent runs: what it writes now is not in the set yet, and nothing may be
  // applied or reset until it ends.
  bool running = false;
  FileLock lock;  // the state's lock: exclusive when not running, shared otherwise
};

// The agent's IR as its next session would have it under `profile`: which directories are its own,
// what of the user's copy it never sees, where its state is kept. The project does not matter to
// any of it; the home directory stands in. `paddock agent-state` and the app's view read it.
Result<FrozenIr> agent_state_ir(const std::string& agent, const std::string& profile,
                                const std::map<std::string, std::string>& environment, const std::string& resources_dir);

// `ir`: the agent's IR as its next session would have it (fs.agent_state_dir and its roots).
// Commits what ended sessions left first, when no session of the agent runs. kNotFound when the
// agent has no Paddock state yet.
Result<AgentStateView> load_agent_state(const FrozenIr& ir, const std::string& resources_dir, bool include_own);

// The paths below which the agent keeps its own things (hidden from the user's copy), by root.
bool is_agent_own_path(const FrozenIr& ir, const std::string& path);

}  // namespace paddock::platform
