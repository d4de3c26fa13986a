// A per-session cgroup leaf (v2, or the v1 pids and memory hierarchies) carrying the plan's memory
// and process limits (CPU time is RLIMIT_CPU's), and the kill switch for the whole tree: cgroup.kill on v2, SIGKILL of
// every pid in cgroup.procs until empty on v1. Removed when the session ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "platform/unique_fd.h"
#include "engine/status.h"

namespace paddock::helper {

class CgroupLeaf {
 public:
  CgroupLeaf() = default;
  CgroupLeaf(const CgroupLeaf&) = delete;
  CgroupLeaf& operator=(const CgroupLeaf&) = delete;
  CgroupLeaf(CgroupLeaf&& o) noexcept : dirs_(std::move(o.dirs_)), v2_(o.v2_) { o.dirs_.clear(); }
  CgroupLeaf& operator=(CgroupLeaf&&) = delete;
  ~CgroupLeaf() { remove(); }

  // mechanism kNone: an empty leaf (no limits, nothing to kill). Any write that fails: kRefused.
  static Result<CgroupLeaf> create(const linux_backend::CgroupPlan& plan, const std::string& name);

  bool active() const { return !dirs_.empty(); }
  // v2 only: the leaf's directory, for clone3(CLONE_INTO_CGROUP) — starting the sandbox inside
  // the leaf avoids a migration, which costs milliseconds. "" for v1 or none.
  std::string v2_dir() const { return v2_ && !dirs_.empty() ? dirs_[0] : std::string(); }
  Status add(pid_t pid);
  // v1 only: each hierarchy's `tasks` file of the leaf (of its parent), opened for writing, for
  // the sandbox's init to move itself in at its start (out at its end); see sandbox_init_main.
  // Empty for v2 or none.
  Result<std::vector<platform::UniqueFd>> open_v1_tasks_files(bool of_parent = false) const;
  void kill_all();
  // Removes the leaves that earlier sessions left next to this one's (a helper killed with
  // SIGKILL cannot remove its own): siblings named "paddock-<UTC time>Z-..." whose session began
  // more than a minute ago. The kernel refuses to remove a cgroup that still holds a process, so a
  // running session's leaf stays; the minute keeps away from a leaf its helper has just made.
  void sweep_stale_siblings() const;
  // Limit hits observed in the controllers' event counters ("memory", "processes").
  std::vector<std::string> limits_hit() const;
  long process_count() const;  // live pids now (0 when inactive)
  // The leaf's own counters, where its controllers keep them (std::nullopt where not: v1 has no
  // CPU counter in the leaf, a controller the parent does not delegate has no files).
  struct Counters {
    std::optional<std::int64_t> cpu_usec, memory_bytes, tasks;
  };
  Counters counters() const;
  void remove();

 private:
  std::vector<std::string> dirs_;  // v2: one directory; v1: one per controller hierarchy
  bool v2_ = false;
};

}  // namespace paddock::helper
