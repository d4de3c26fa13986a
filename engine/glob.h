// Glob patterns over the real file system (docs/policy-layers.md): `*`, `?`, `[..]` within one path
// component, `**` across components, and `\` before any of `[ ] * ? { } \` for that character
// itself. Whether an entry is a glob is decided once, at parse time (has_glob); expansion never
// follows symlinked directories, and over-budget is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/dir_lister.h"
#include "engine/path_cache.h"
#include "engine/status.h"

namespace paddock {

inline constexpr std::size_t kGlobMatchBudget = 50000;
// Entries visited per walk; keeps a pattern such as "/**/x" from scanning the whole disk.
inline constexpr std::size_t kGlobWalkBudget = 2000000;

// Does s hold a `*`, `?` or `[` that is not escaped?
bool has_glob(std::string_view s);
// The characters that mean something in a pattern, each written with a `\` before it: a literal
// path (the project's, the home directory's, a grant's) that becomes part of a pattern is passed
// through this first, so that a project in "[WIP] app" stays that one directory.
std::string glob_escape(std::string_view literal);
// The reverse, for a path written without wildcards: `\x` becomes x for each special x above; a
// `\` before any other character stays (a Linux name may hold one).
std::string glob_unescape(std::string_view s);
// The directory a pattern's walk starts from: its leading components without wildcards,
// unescaped ("/" when the first component has one).
std::string glob_base(std::string_view pattern);
// One component: `*` and `?` match any character (dots included), `[a-z]`, `[!x]`, `\x` the
// character x.
bool match_component(std::string_view pattern, std::string_view name, bool case_insensitive = false);

// A whole path against a whole pattern, by name only (nothing is read from the file system):
// components match as match_component does, `**` matches zero or more components. Both absolute.
bool glob_match_path(std::string_view pattern, std::string_view path);
// The same with the pattern split once (glob_split), for one pattern against many paths.
std::vector<std::string> glob_split(std::string_view pattern);
bool glob_match_split(const std::vector<std::string>& pattern_segments, std::string_view path);

// Entries inside denied directories checked for hard links into the grants.
inline constexpr std::size_t kHardLinkScanBudget = 200000;
// Deepest directory a walk descends into (components below its base).
inline constexpr std::size_t kGlobDepthLimit = 256;

struct GlobJob {
  GlobJob(std::string pattern_, std::string label_, bool fail_closed_ = false)
      : pattern(std::move(pattern_)), label(std::move(label_)), fail_closed(fail_closed_) {}

  std::string pattern;          // absolute, variables already expanded
  std::string label;            // for errors: "file:line:col: key 'filesystem.deny[0]'"
  // A deny or deny_write pattern: what the walk cannot see into must not slip through it. A
  // directory it cannot read, or below the depth limit, is matched whole; more matches than the
  // budget collapse into their parent directories (repeatedly) instead of failing; a walk over
  // its entry budget matches its base whole. Each such widening is reported in `widened`.
  bool fail_closed = false;
  std::vector<std::string> matches;  // filled: absolute paths (canonical base + relative part)
  std::vector<std::string> widened;  // filled: one line per widening, for the IR's warnings
  // Matches only unix sockets (the type readdir reports; a symlink is never one): the scan for
  // host sockets under the grants shares the walk of the deny patterns under the same base.
  bool sockets_only = false;
};

// Expands every job; jobs with the same literal base directory share one walk. `paths`, when
// given, answers the base directories' resolution from the evaluation's memo.
// `lister`: how directories are read (portable_lister() when null; see dir_lister.h).
Status expand_globs(std::vector<GlobJob>& jobs, PathCache* paths = nullptr, const DirectoryLister* lister = nullptr);

}  // namespace paddock
