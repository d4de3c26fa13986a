// The agents' Paddock-owned state on disk (docs/agents.md, "Where its state lives"): one
// directory per agent and built-in profile, $XDG_DATA_HOME/paddock/agent-state/<agent>/<profile>,
// laid out so that review mode's records and change set read it as they read a session:
//
//   review/roots.json        which of the agent's directories is which layer (index), and when
//                            the state began (engine/session/review_record.h)
//   review/<n>/upper         what the agent's sessions wrote in its n-th directory, committed: an
//                            overlay layer (whiteouts for what it deleted, opaque directories)
//   review/state.json, review/journal.json   apply's records, as for a session
//   lock                     shared by each running session, exclusive while sessions' writes are
//                            committed (flock)
//   empty/                   the lowest layer where the user has no such directory
//   sessions/<id>/lock       held by the helper while session <id> runs
//   sessions/<id>/<n>/{upper,work}  that session's writes and the overlay's work directory
//   sessions/<id>/<n>/top    what Paddock sets in the agent's settings for that session
//   sessions/<id>/<n>/base   the whiteouts that hide the user's stored logins and history
//
// Pure path arithmetic; platform/agent_state.h reads and writes it.
#pragma once

#include <string>

namespace paddock::session {

// [a-z0-9][a-z0-9-]*, at most 64: an agent preset's or a built-in profile's name.
bool valid_state_name(const std::string& name);

std::string agent_state_dir(const std::string& agent_state_root, const std::string& agent, const std::string& profile);
std::string agent_state_lock(const std::string& dir);
std::string agent_state_empty(const std::string& dir);
std::string agent_state_sessions(const std::string& dir);
std::string agent_state_session(const std::string& dir, const std::string& id);
std::string agent_state_session_lock(const std::string& dir, const std::string& id);
// sessions/<id>/<n>/<layer>: layer is "upper", "work", "top" or "base".
std::string agent_state_session_layer(const std::string& dir, const std::string& id, int index, const char* layer);

}  // namespace paddock::session
