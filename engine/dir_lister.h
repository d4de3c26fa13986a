// The directory listing behind the engine's glob walks. The engine includes no OS headers, so its
// own lister is portable (std::filesystem); platform/ gives a faster one (getdents64 into a
// reused buffer, the entry type from the directory itself: no stat, no path object per entry),
// which the front ends pass in through Inputs. Both report the same entries and kinds.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "engine/status.h"

namespace paddock {

enum class EntryKind { kDirectory, kSymlink, kSocket, kOther };

class DirectoryLister {
 public:
  virtual ~DirectoryLister() = default;

  // Called once per entry ("." and ".." excluded); the name is valid only during the call.
  class Visitor {
   public:
    virtual ~Visitor() = default;
    // false stops the listing.
    virtual bool entry(std::string_view name, EntryKind kind) = 0;
  };

  // Lists `dir` without following a symlink at `dir` itself. An error (no permission, gone, an
  // I/O error part way) is returned; entries seen before it have been visited.
  virtual std::error_code list(const std::string& dir, Visitor& visitor) const = 0;

  // A small file someone else may have arranged (a git pointer, a policy layer, a signature):
  // at most `max` bytes (more is an error unless `prefix`: then the first `max`), a regular file
  // only, never waited on (a FIFO in its place is an error, not an open that blocks for good),
  // and not through a symlink at `path` itself unless `follow`. std::nullopt when it does not
  // exist. The portable reader can only check before it opens; platform/'s opens without
  // blocking and checks what it opened.
  virtual Result<std::optional<std::string>> read_regular(const std::string& path, std::size_t max, bool prefix,
                                                          bool follow) const;
};

// read_regular through `lister`, or the portable one when it is null.
Result<std::optional<std::string>> read_regular(const DirectoryLister* lister, const std::string& path, std::size_t max,
                                                bool prefix = true, bool follow = true);

// std::filesystem: works everywhere the engine builds.
const DirectoryLister& portable_lister();

// Another lister's entries without the given paths (Paddock's placeholders, Inputs::placeholders).
class HidingLister final : public DirectoryLister {
 public:
  HidingLister(const DirectoryLister& inner, const std::vector<std::string>& hidden);
  std::error_code list(const std::string& dir, Visitor& visitor) const override;
  // A hidden path reads as absent (a git pointer's placeholder holding "." is no pointer).
  Result<std::optional<std::string>> read_regular(const std::string& path, std::size_t max, bool prefix,
                                                  bool follow) const override;

 private:
  const DirectoryLister& inner_;
  std::set<std::string> hidden_, names_;  // full paths, and their last components (the quick test)
};

}  // namespace paddock
