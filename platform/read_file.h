// The one way Paddock reads a whole file (session records, the IR and probe it is handed, the
// kernel's /proc and cgroup files, the probe cache). Bounded: a file larger than max_bytes is an
// error, never a truncated read, unless a prefix is asked for. Only regular files are read, and
// opening never blocks (a FIFO planted under a record's name is refused, not waited on).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "engine/status.h"

namespace paddock::platform {

struct ReadOptions {
  std::size_t max_bytes = std::size_t{64} << 20;
  bool prefix = false;        // read at most max_bytes and return them, whatever the file's size
  bool no_follow = false;     // the file itself must not be a symlink
  // No symlink anywhere in the path, the directories' included: for a file someone else may have
  // arranged (the helper reading what an agent could write).
  bool no_symlinks = false;
  bool private_only = false;  // owned by this process's euid and writable by nobody else
};

// The whole file; any failure (a missing file too) is a bad-input error naming the path.
Result<std::string> read_file(const std::string& path, const ReadOptions& options = {});
// std::nullopt when the file does not exist (ENOENT, ENOTDIR); other failures are errors.
Result<std::optional<std::string>> read_file_if_exists(const std::string& path, const ReadOptions& options = {});

}  // namespace paddock::platform
