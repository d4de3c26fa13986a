// Where sessions live (DESIGN §9) as seen from the CLI: $XDG_STATE_HOME/paddock/sessions/<id>/
// and the control socket $XDG_RUNTIME_DIR/paddock/<id>.sock (or <session dir>/control.sock when
// there is no runtime dir). The helper writes the session's own files; the CLI writes ir.json and
// plan.json before it starts the helper.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli_context.h"
#include "engine/status.h"

namespace paddock::cli {

class SessionStore {
 public:
  explicit SessionStore(const CliContext& ctx);

  std::string sessions_dir() const { return state_dir_ + "/sessions"; }
  std::string session_dir(const std::string& id) const { return sessions_dir() + "/" + id; }
  std::string control_socket(const std::string& id) const;

  // "20261129T230501Z-1a2b3c4d5e6f": sortable by start time, 48 random bits from /dev/urandom.
  static Result<std::string> new_id();
  // Ids come from users: only [A-Za-z0-9-] is accepted, so an id can never name another path.
  static Status validate_id(const std::string& id);

  Result<std::string> create(const std::string& id) const;  // mkdir -p (0700); the session dir
  std::vector<std::string> list_ids() const;                 // sorted

  // One summary per session: id, status, exit_code, started, command, ir_hash.
  nlohmann::json summary(const std::string& id) const;

 private:
  std::string state_dir_;
  std::string runtime_dir_;
};

// Crash-safe whole-file write (temp + rename) for the CLI session files.
Status write_file_atomic(const std::string& path, const std::string& bytes);
Result<std::string> read_whole_file(const std::string& path);

// Sends one JSON line to a session's control socket and returns the first reply line.
Result<nlohmann::json> control_request(const std::string& socket_path, const nlohmann::json& request);

}  // namespace paddock::cli
