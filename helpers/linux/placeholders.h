// The placeholders sessions make on the host for protected paths that did not exist (see
// mount_view.h and docs/architecture.md, "The mount view", step 4). Each is recorded under the
// user's state directory (engine/session/placeholder_record.h) as it is made, and removed as soon
// as no running session relies on it, if it is still the empty directory or file that was made.
//
// Locks: every session that may make or find a placeholder holds the registry's shared lock, and
// before its sandbox is built a shared lock per path it may rely on (each component between a
// grant and an absent protected path). A session removes a placeholder only under that path's
// exclusive lock, so a placeholder another session has bound is never taken from under it (the
// kernel would detach that session's mount), and one that no session uses any more goes when
// the session that made it, or the last one that used it, ends.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"
#include "helpers/linux/mount_view.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

class PlaceholderRegistry {
 public:
  PlaceholderRegistry() = default;
  PlaceholderRegistry(PlaceholderRegistry&&) = default;
  PlaceholderRegistry& operator=(PlaceholderRegistry&&) = default;
  // A session that ends early (its sandbox already gone) sweeps on the way out too.
  ~PlaceholderRegistry() { (void)sweep(); }

  // `dir`: where the records live (created if missing). Takes the shared lock; held until
  // sweep() or destruction.
  static Result<PlaceholderRegistry> open(const std::string& dir);

  bool active() const { return lock_.valid(); }
  // Shared locks on these paths, held until sweep(): no other session removes a placeholder at
  // any of them meanwhile.
  Status hold(const std::vector<std::string>& paths);
  // One record for all of a session's placeholders: one atomic write (and its two syncs) however
  // many there are. The paths are held too.
  Status record(const std::vector<Placeholder>& made);
  // Removes every recorded placeholder that no other session holds and that is still what was
  // made (same inode, empty), deepest first so that a placeholder directory holding another goes
  // too, even from a directory the user made unwritable (its mode is put back). Returns one line
  // per placeholder it had to leave for another reason than another session's use: one that
  // something filled (a repository begun in a `.git` placeholder) is the user's to look at, never
  // removed silently. Releases every lock.
  std::vector<std::string> sweep();

 private:
  std::string lock_path(const std::string& path) const;

  std::string dir_;
  platform::UniqueFd lock_;
  std::map<std::string, platform::UniqueFd> held_;  // path -> its lock, shared
};

// The gitignore pattern that matches exactly `rel` (a path from the work tree's top, starting
// with "/"): anchored, every character git reads as a wildcard or an escape escaped, trailing
// spaces kept; nullopt for a name with a newline, which no pattern can hold.
std::optional<std::string> git_exclude_pattern(const std::string& rel);

// A step that makes a placeholder on the host where its path is absent.
bool makes_placeholder(linux_backend::MountOp op);

// Every path a plan's absent protected paths may make a placeholder at: for each such step,
// each component from its grant down to its target (the first missing one is made).
std::vector<std::string> placeholder_candidates(const std::vector<linux_backend::MountStep>& steps);

}  // namespace paddock::helper
