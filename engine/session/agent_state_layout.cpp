#include "engine/session/agent_state_layout.h"

#include <algorithm>

namespace paddock::session {

bool valid_state_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '-') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

std::string agent_state_dir(const std::string& agent_state_root, const std::string& agent, const std::string& profile) {
  return agent_state_root + "/" + agent + "/" + profile;
}
std::string agent_state_lock(const std::string& dir) { return dir + "/lock"; }
std::string agent_state_empty(const std::string& dir) { return dir + "/empty"; }
std::string agent_state_sessions(const std::string& dir) { return dir + "/sessions"; }
std::string agent_state_session(const std::string& dir, const std::string& id) {
  return agent_state_sessions(dir) + "/" + id;
}
std::string agent_state_session_lock(const std::string& dir, const std::string& id) {
  return agent_state_session(dir, id) + "/lock";
}
std::string agent_state_session_layer(const std::string& dir, const std::string& id, int index, const char* layer) {
  return agent_state_session(dir, id) + "/" + std::to_string(index) + "/" + layer;
}

}  // namespace paddock::session
