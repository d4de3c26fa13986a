// Line diffs of text for the review (docs/review.md): Myers' algorithm over lines, shown as
// unified hunks with context. Bounded: a pair of files further apart than max_edits lines is
// reported as too large rather than diffed slowly.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::review {

struct DiffLine {
  char op = ' ';   // ' ' context, '-' only before, '+' only after
  std::string text;  // without its newline
};

struct DiffHunk {
  int old_start = 0, old_count = 0;  // 1-based, as in a unified diff
  int new_start = 0, new_count = 0;
  std::vector<DiffLine> lines;
};

struct TextDiff {
  std::vector<DiffHunk> hunks;
  bool too_large = false;  // more than max_edits lines differ: no hunks
  int added = 0, removed = 0;
};

TextDiff diff_lines(std::string_view before, std::string_view after, int context = 3, int max_edits = 4000);

// "--- a\n+++ b\n@@ -1,2 +1,3 @@\n..." ("" when nothing differs).
std::string unified(const TextDiff& d, const std::string& before_name, const std::string& after_name);

// Git's rule: a NUL byte in the first 8,000 bytes makes content binary.
bool looks_binary(std::string_view head);

}  // namespace paddock::review
