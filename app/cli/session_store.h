// Sessions as the CLI sees them, in the directories session::Layout names: the helper writes a
// session's own files; the CLI creates its directory, lists and summarises sessions (with the
// session module's one reader) and talks to a live one over its control socket.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/control.h"
#include "engine/session/layout.h"
#include "engine/session/summary.h"
#include "engine/status.h"

namespace paddock::cli {

class SessionStore {
 public:
  explicit SessionStore(session::Layout layout) : layout_(std::move(layout)) {}

  const session::Layout& layout() const { return layout_; }
  std::string session_dir(const std::string& id) const { return layout_.session_dir(id); }
  std::string control_socket(const std::string& id) const { return layout_.control_socket(id); }

  // "20261129T230501Z-1a2b3c4d5e6f": sortable by start time, 48 random bits from /dev/urandom.
  static Result<std::string> new_id();
  // Ids come from users: only [A-Za-z0-9-] is accepted, so an id can never name another path.
  static Status validate_id(const std::string& id);

  Result<std::string> create(const std::string& id) const;  // mkdir -p (0700); the session dir
  std::vector<std::string> list_ids() const;                 // sorted

  // What `paddock sessions` shows for one session; never fails: a session whose files do not
  // read is listed as unreadable, naming the file.
  session::SessionSummary summary(const std::string& id) const;

 private:
  session::Layout layout_;
};

// Sends one request to a session's control socket and returns its reply (engine/session/control.h).
// When nothing accepts on the socket the error is kBadInput: the session is not running.
Result<session::ControlReply> control_request(const std::string& socket_path, const session::ControlRequest& request);

}  // namespace paddock::cli
