// The host side of review mode (docs/review.md): before the sandbox exists, the helper makes the
// upper and work directory of each overlay step of the plan in the session's directory for init
// (which mounts the overlays in the sandbox's user namespace, mount_view.h) and
// records which write root is which layer and when the session started (review/roots.json,
// engine/session/review_record.h). While the session runs it watches the free space where the
// agent's writes land: the session ends before that file system is full.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"
#include "helpers/linux/mount_view.h"

namespace paddock::helper {

class ReviewLayers {
 public:
  // Nothing to do (an empty object) when the plan has no overlay step. Refuses (125) when the
  // session's directory lies inside a review root (an overlay cannot hold its own upper layer),
  // when the file system it is on has less than twice the reserve free, or when a directory
  // cannot be made.
  static Result<ReviewLayers> prepare(const std::vector<linux_backend::MountStep>& steps, const std::string& session_dir);

  bool active() const { return !dir_.empty(); }
  // One per overlay step, in plan order.
  const std::vector<OverlayDirs>& dirs() const { return dirs_; }
  // The free bytes left on the review directory's file system when fewer than the reserve are.
  std::optional<std::int64_t> below_reserve() const;
  std::int64_t reserve_bytes() const { return reserve_; }
  // Removes the layers again: for a session whose agent never started (nothing of it is there).
  void remove_unused() const;
  const std::string& dir() const { return dir_; }

 private:
  std::vector<OverlayDirs> dirs_;
  std::string dir_;
  std::int64_t reserve_ = 0;
};

}  // namespace paddock::helper
