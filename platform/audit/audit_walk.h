// What a direct-mode session wrote, found by a walk of its write roots after it ended
// (docs/audit.md): every entry whose ctime is at or after the session's start. The agent cannot
// set a ctime (only the kernel does, at every write, chmod, link or rename), so nothing it wrote
// or moved into place is older than the start. Bounded like the engine's glob walks (entries and
// depth); whatever the walk could not look at (a budget reached, a directory it cannot read, one
// too deep) is returned as a problem, never skipped in silence. Directories are read with
// getdents64 and opened beneath their root without following any symlink, on up to four threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/glob.h"
#include "engine/review/change.h"
#include "engine/session/review_record.h"

namespace paddock::platform {

struct WalkEntry {
  std::string path;  // absolute
  std::string root;  // the write root it is in
  review::EntryType type = review::EntryType::kNone;
  std::uint32_t mode = 0;
  session::FileStamp stamp;  // inode, size, ctime
  bool born = false;         // its birth time is at or after the start (false where the file system keeps none)
};

struct AuditWalkOptions {
  std::int64_t since_ns = 0;  // entries with a ctime at or after this; INT64_MIN: every entry
  std::size_t budget = kGlobWalkBudget;  // entries looked at, over all roots
  std::size_t depth = kGlobDepthLimit;   // directories below a root
  // Directories (and files) the agent could not write below or at: masks and read-only binds.
  std::vector<std::string> skip;
  unsigned threads = 0;  // 0: as many as the machine has cores, at most 4
};

struct AuditWalkResult {
  std::vector<WalkEntry> changed;     // sorted by path
  std::size_t visited = 0;
  std::vector<std::string> problems;  // what was not audited, and why
  bool complete() const { return problems.empty(); }
};

AuditWalkResult walk_changed(const std::vector<std::string>& roots, const AuditWalkOptions& options);

// The state of one path, as the walk records it (no symlink followed at its end); false when it is
// gone or cannot be looked at.
bool stat_entry(const std::string& path, WalkEntry& out, std::int64_t since_ns);

}  // namespace paddock::platform
