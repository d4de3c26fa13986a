// How a change set is printed (docs/review.md): one letter per change, its notes, unified diffs,
// and the sections a user acts on (flagged, conflicts, commits, the rest). Shared by `paddock
// review` (a review-mode session) and `paddock agent-state diff` (an agent's own state), which
// read the same change set.
#pragma once

#include <functional>
#include <string>

#include "engine/review/change.h"
#include "platform/review/review_session.h"

namespace paddock::cli {

// A path as the user sees it: relative to `base` when inside it ("" : as it is).
std::string shown(const std::string& path, const std::string& base);
char letter(const review::Change& c);
std::string describe(const review::Change& c, const std::string& base);
void print_diff(const platform::ReviewSession& s, const review::Change& c, const std::string& base);

struct SectionWords {
  std::string apply;      // the command that applies one: "paddock apply SESSION"
  std::string diff;       // the command that shows both sides: "paddock review SESSION"
  std::string conflicts;  // what a conflict is here: "changed on this machine since the session started"
};
// The flagged changes (with each flag's reason), the conflicts, the commits and the rest, each
// section only when it has something `wanted`.
void print_change_sections(const review::ChangeSet& set, const std::string& base,
                           const std::function<bool(const review::Change&)>& wanted, const SectionWords& words);

}  // namespace paddock::cli
