// The sessions directory as every front end reads it (session::Layout's sessions/): the ids in it,
// one session's summary (engine/session/summary.h, from report.json, the start of events.jsonl
// and whether its control socket answers), and pruning by the retention setting
// (engine/session/retention.h), which keeps every session that still holds changes for review.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/session/layout.h"
#include "engine/session/retention.h"
#include "engine/session/summary.h"
#include "engine/status.h"

namespace paddock::platform {

std::vector<std::string> list_session_ids(const session::Layout& layout);  // sorted

// A session's frozen IR: its ir.json as `paddock run` recorded it, read without following a
// symlink and bounded. The one reader of that file for the CLI, the app, review and the audit; an
// error names the file and what is wrong with it.
Result<FrozenIr> read_session_ir(const std::string& session_dir);
session::SessionSummary read_session_summary(const session::Layout& layout, const std::string& id);

// The setting (sessions.json), or the default when there is none; a file that does not read is an
// error naming it, never replaced.
Result<session::Retention> load_retention(const session::Layout& layout);
Status save_retention(const session::Layout& layout, const session::Retention& r);

struct PruneOutcome {
  int removed = 0;
  int kept_for_review = 0;  // old enough, but holding changes for review
  int keep_days = session::kDefaultKeepDays;
  std::vector<std::string> errors;
};

// Removes the directories of sessions that ended more than keep_days ago (the setting, or
// `keep_days` when given). A session that holds changes for review stays; one whose changes were
// all applied or discarded gives up its layers first. `resources_dir`: the built-in lists, to
// list a review's changes.
Result<PruneOutcome> prune_sessions(const session::Layout& layout, const std::string& resources_dir,
                                    std::optional<int> keep_days = std::nullopt);

}  // namespace paddock::platform
