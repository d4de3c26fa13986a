// Applying and discarding a review's changes (docs/review.md, "Apply"): conflict-checked, atomic
// per file, journaled so that an apply killed half-way (or stopped by a full disk) leaves every
// file old or new and the next apply finishes it. Flagged changes (classify.h) are applied only
// when named one by one; conflicts never.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/review/change.h"
#include "engine/status.h"
#include "platform/review/review_session.h"

namespace paddock::platform {

struct ReviewSelection {
  // Empty: every pending change that is neither flagged nor in conflict. Otherwise these paths
  // (absolute) and what is below them; a flagged change is taken only when named exactly.
  std::vector<std::string> paths;
};

struct ReviewOutcome {
  std::vector<std::string> done;                            // applied (or discarded)
  std::vector<std::pair<std::string, std::string>> skipped;  // path, why
  bool freed = false;  // nothing was left pending and the session has ended: its layers were removed
};

// Test seam: called after each change an apply renamed into place (its index), so that a test can
// kill the process mid-apply at a chosen point.
using ApplyProgress = void (*)(std::size_t done);

// Whether the session's layers are mounted again after this apply. kOnce: a review session's,
// made for it and never mounted again once it has ended, so that an ended session's files may
// be linked into place instead of copied (review_apply.cpp says when). kReused: an agent's state,
// which its next session mounts again: every file is copied, so that no later write reaches the
// host's file.
enum class LayerUse { kReused, kOnce };

Result<ReviewOutcome> apply_changes(const ReviewSession& s, const review::ChangeSet& set, const ReviewSelection& selection,
                                    ApplyProgress progress = nullptr, LayerUse layers = LayerUse::kReused);

// Marks the selected changes (flagged and conflicting ones too; empty selection: every pending
// change) as discarded; once nothing is pending and the session has ended, its layers are removed.
Result<ReviewOutcome> discard_changes(const ReviewSession& s, const review::ChangeSet& set,
                                      const ReviewSelection& selection);

// Removes the session's upper and work directories (what the agent wrote), keeping its records.
Status free_review_layers(const ReviewSession& s);
// The same by the session's directory and its layers' indices (the helper, for a session whose
// agent never started).
Status remove_review_layers(const std::string& session_dir, const std::vector<int>& indices);

}  // namespace paddock::platform
