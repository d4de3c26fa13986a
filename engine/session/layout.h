// Where Paddock keeps its files, derived from the environment in one place for every front end
// (CLI, app) and the helper, so that they can never disagree on which HOME or XDG directory a
// session, a cache or a key lives in. Pure: it reads the environment map it is given (never
// getenv) and touches no file; paths are lexically normal, not resolved (the engine resolves
// them where it masks them).
//
//   config_dir   $XDG_CONFIG_HOME/paddock   (default ~/.config/paddock)   policy.yaml, keys
//   state_dir    $XDG_STATE_HOME/paddock    (default ~/.local/state/paddock)   approvals, sessions/
//   runtime_dir  $XDG_RUNTIME_DIR/paddock   ("" when XDG_RUNTIME_DIR is unset or relative)
//   system_dir   /etc/paddock, or $PADDOCK_SYSTEM_DIR (a switch that taints the policy)
//
// An XDG variable that is not an absolute path is ignored, as the XDG base directory
// specification says.
#pragma once

#include <map>
#include <string>

#include "engine/status.h"

namespace paddock::session {

struct Layout {
  std::string home;         // $HOME, absolute
  std::string config_dir;
  std::string state_dir;
  std::string runtime_dir;  // "" = no private runtime directory
  std::string system_dir;
  std::string xdg_runtime_dir;  // $XDG_RUNTIME_DIR itself, "" when unset or relative

  std::string sessions_dir() const { return state_dir + "/sessions"; }
  std::string session_dir(const std::string& id) const { return sessions_dir() + "/" + id; }
  // $XDG_RUNTIME_DIR/paddock/<id>.sock, or <session dir>/control.sock without a runtime dir.
  std::string control_socket(const std::string& id) const;
  // The per-boot kernel probe cache ("" without a runtime dir: nothing is cached then).
  std::string probe_cache() const;
  std::string approvals_file() const { return state_dir + "/approvals.json"; }
  // Records of the placeholders sessions made for absent protected paths, and their lock.
  std::string placeholders_dir() const { return state_dir + "/placeholders"; }
  // How long ended sessions' records stay (engine/session/retention.h).
  std::string retention_file() const { return config_dir + "/sessions.json"; }
  // Brokered credentials (docs/credentials.md): the store's index (names, the host each is bound
  // to, placeholders; never a value), the 0600 file of values where no secret service answers,
  // and when each was last used (credential_records.h).
  std::string credential_index() const { return config_dir + "/credentials.json"; }
  std::string credential_file_store() const { return config_dir + "/credentials.secret.json"; }
  std::string credential_use_file() const { return state_dir + "/credential-use.json"; }
};

// Fails (bad input) only when HOME is not an absolute path.
Result<Layout> from_env(const std::map<std::string, std::string>& env);

// Session ids come from users (`paddock stop ID`): only [A-Za-z0-9-], at most 64 characters, so
// that an id can never name another path.
bool valid_session_id(const std::string& id);

}  // namespace paddock::session
