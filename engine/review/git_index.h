// The entries of a git index file (.git/index), parsed from its bytes, never by running git: the
// index of a repository the agent could write is exactly what must not be handed to the host's
// git before it has been looked at (a gitlink added there makes `git status` enter a repository
// the agent made and run what its config names). Versions 2, 3 and 4, SHA-1 or SHA-256 object
// names; extensions are skipped. docs/review.md says what review mode does with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace paddock::review {

struct IndexEntry {
  std::string path;        // relative to the work tree, as git stores it
  std::uint32_t mode = 0;  // 0100644, 0100755, 0120000 (symlink), 0160000 (gitlink)
  int stage = 0;           // 0, or 1..3 during a merge
  bool operator==(const IndexEntry&) const = default;
};

inline constexpr std::uint32_t kGitlinkMode = 0160000;

// Every entry, in the index's order. Anything that does not parse (wrong signature or version,
// a count the bytes cannot hold, a path that runs past the end) is an error naming the offset.
Result<std::vector<IndexEntry>> parse_git_index(std::string_view bytes);

// The gitlink paths of `after` that are not gitlinks in `before` (an empty `before`: no index).
std::vector<std::string> added_gitlinks(const std::vector<IndexEntry>& before, const std::vector<IndexEntry>& after);

}  // namespace paddock::review
