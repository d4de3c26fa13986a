// The placeholders a session made on the host for protected paths that did not exist (see
// mount_view.h): each is recorded under the user's state directory as it is made, and removed
// when no session runs any more, if it is still the empty directory or file that was made. A
// shared lock held by every session that may rely on a placeholder keeps the last session out
// from removing one that another still has bound.
#pragma once

#include <string>
#include <vector>

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
  ~PlaceholderRegistry() { sweep(); }

  // `dir`: where the records live (created if missing). Takes the shared lock; held until
  // sweep() or destruction.
  static Result<PlaceholderRegistry> open(const std::string& dir);

  bool active() const { return lock_.valid(); }
  // One record for all of a session's placeholders: one atomic write (and its two syncs) however
  // many there are.
  Status record(const std::vector<Placeholder>& made);
  // Once no other session holds the lock: removes every recorded placeholder that is still what
  // was made (same inode, empty), deepest first so that a placeholder directory holding another
  // goes too, and the records. Releases the lock.
  void sweep();

 private:
  std::string dir_;
  platform::UniqueFd lock_;
};


}  // namespace paddock::helper
