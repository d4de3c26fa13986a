// An agent's Paddock-owned state on disk (engine/session/agent_state_layout.h, docs/agents.md):
// the locks that let several sessions of one agent run at once, the commit of each ended
// session's writes into the state, the layer arithmetic the helper needs to prepare a session
// (reading a file through overlay layers, whiteouts), and the state as review mode's change set
// reads it (`paddock agent-state diff|apply|reset`, the app).
//
// Concurrency: a running session holds the state's lock shared and its own session lock
// exclusively; its writes go to its own upper layer. Committing (moving the writes of ended
// sessions into the state's layers) takes the state's lock exclusively, so that no layer a
// running session has mounted ever changes under it (the kernel leaves an overlay whose lower
// layer changes undefined). A session that ends while others run leaves its writes where they
// are; the next session to start sees them as a lower layer, and the last one to end commits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/session/review_record.h"
#include "engine/status.h"
#include "platform/review/review_session.h"
#include "platform/unique_fd.h"

namespace paddock::platform {

// A flock(2) held until destroyed.
class FileLock {
 public:
  FileLock() = default;
  // Creates the file (0600) if needed; acquire waits, try_acquire answers std::nullopt when
  // another process holds it.
  static Result<FileLock> acquire(const std::string& path, bool exclusive);
  static Result<std::optional<FileLock>> try_acquire(const std::string& path, bool exclusive);
  // Exclusive -> shared (flock's conversion: not atomic, another process may take it between).
  Status downgrade();
  bool held() const { return fd_.valid(); }
  void release() { fd_.reset(); }

 private:
  UniqueFd fd_;
};

// Makes the state's directories and records the roots review/roots.json lacks (a new layer index
// each, review/<n>/upper made). The record's start time is set when the state is made.
Result<session::ReviewRoots> prepare_agent_state(const std::string& dir, const std::vector<std::string>& roots);

// With the state's lock held exclusively: every session whose lock is free (it ended, or its
// helper died) has its writes merged into the state's layers, oldest first, and its directory
// removed. Returns the ids committed.
Result<std::vector<std::string>> commit_ended_sessions(const std::string& dir);

// With the state's lock held (shared is enough): the sessions that ended and are not committed
// yet, oldest first, other than `except`. Their upper layers no longer change.
std::vector<std::string> ended_sessions(const std::string& dir, const std::string& except);

// An overlay's upper layer merged into a layer that lies below it (same file system): files,
// symlinks and opaque directories move over whatever was there, a whiteout replaces it (and stays,
// to hide the user's own copy), plain directories merge. Each step is a rename or a removal, so a
// merge stopped at any point is finished by the next one. `upper` is emptied.
Status merge_overlay_layer(const std::string& upper, const std::string& into);

// The bytes of `rel` ("a/b") as a stack of overlay layers (top first) shows it: the first layer
// that has it decides, a whiteout or a non-directory on the way hides it, an opaque directory
// hides the layers below. std::nullopt: no such file. A directory or special file there: an error.
Result<std::optional<std::string>> read_through_layers(const std::vector<std::string>& layers, const std::string& rel,
                                                       std::size_t max_bytes);

// A whiteout (a 0/0 character device: any user may make one, Linux 5.8+) at layer/rel, parent
// directories made as plain directories. An entry already there is replaced.
Status make_whiteout(const std::string& layer, const std::string& rel);
// A regular file at layer/rel with these bytes (parents made).
Status put_layer_file(const std::string& layer, const std::string& rel, const std::string& bytes, unsigned mode);

// The state as review mode reads a session: its roots, decisions and journal, the layers at
// review/<n>/upper; `label` names it in messages ("claude-code (default)").
Result<ReviewSession> open_agent_state_review(const std::string& dir, const std::string& label, const std::string& home);

// With the state's lock held exclusively: removes what the state holds at these host paths (and
// below), so that the user's own copy shows again in the next session. No paths: everything, and
// the state starts anew (its start time is now).
Status reset_agent_state(const ReviewSession& state, const std::vector<std::string>& paths);

// After an apply: the applied paths' entries are dropped from the state's layers (the user's
// directory now has them), so that later changes the user makes there show through.
Status drop_applied(const ReviewSession& state, const std::vector<std::string>& applied);

}  // namespace paddock::platform
