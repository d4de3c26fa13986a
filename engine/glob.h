// Glob patterns over the real file system (DESIGN §4): `*`, `?`, `[..]` within one path
// component, `**` across components. Whether an entry is a glob is decided once, at parse time
// (has_glob); expansion never follows symlinked directories, and over-budget is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/path_cache.h"
#include "engine/status.h"

namespace paddock {

inline constexpr std::size_t kGlobMatchBudget = 50000;
// Entries visited per walk; keeps a pattern such as "/**/x" from scanning the whole disk.
inline constexpr std::size_t kGlobWalkBudget = 2000000;

bool has_glob(std::string_view s);
// One component: `*` and `?` match any character (dots included), `[a-z]`, `[!x]`.
bool match_component(std::string_view pattern, std::string_view name, bool case_insensitive = false);

struct GlobJob {
  std::string pattern;          // absolute, variables already expanded
  std::string label;            // for errors: "file:line:col: key 'filesystem.deny[0]'"
  std::vector<std::string> matches;  // filled: absolute paths (canonical base + relative part)
  // Matches only unix sockets (the type readdir reports; a symlink is never one): the scan for
  // host sockets under the grants shares the walk of the deny patterns under the same base.
  bool sockets_only = false;
};

// Expands every job; jobs with the same literal base directory share one walk. `paths`, when
// given, answers the base directories' resolution from the evaluation's memo.
Status expand_globs(std::vector<GlobJob>& jobs, PathCache* paths = nullptr);

}  // namespace paddock
