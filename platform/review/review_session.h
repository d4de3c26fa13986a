// A review-mode session as its directory holds it (engine/session/review_record.h), and its change
// set computed from the host side (docs/review.md, "The change set"): a walk of each overlay's
// upper layer against the host directory under it. Whiteouts are deletions, opaque directories
// hide what the host has below them, files are compared with the host's (size, then bytes), and a
// host entry whose ctime is at or after the session's start is a conflict. The walk costs what the
// session changed (plus the host subtrees it deleted), never the size of the project.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "engine/ir.h"
#include "engine/review/change.h"
#include "engine/review/classify.h"
#include "engine/session/review_record.h"
#include "engine/status.h"

namespace paddock::platform {

struct ReviewSession {
  std::string id;
  std::string dir;  // the session's directory
  session::ReviewRoots roots;
  session::ReviewState state;
  std::optional<session::ApplyJournal> journal;  // an apply that did not finish
  FrozenIr ir;                                   // the session's ir.json

  // The upper-layer path of a host path, and its layer; nullopt outside every review root.
  std::optional<std::string> upper_path(const std::string& host_path, int* layer = nullptr) const;
  const session::ReviewRoot* root_of(const std::string& host_path) const;
  // The layers' directories still exist (a reviewed session shrinks to its records).
  bool has_layers() const;
};

// kNotFound when the session has no review (it ran in direct mode); other errors name the file.
Result<ReviewSession> open_review_session(const std::string& session_dir, const std::string& id);

struct ChangeWalkOptions {
  std::size_t max_entries = 20'000'000;  // upper entries and deleted host entries visited
  std::size_t rename_compares = 2000;    // content comparisons spent looking for renames
  // Read the start of each changed file to mark binary content. Apply and discard never show it
  // (nor does the classification use it), so they skip one open and read per changed file.
  bool binary_markers = true;
};

// The session's changes, classified, with its decisions applied (decided changes carry their
// decision), and the commits it offers.
Result<review::ChangeSet> compute_change_set(const ReviewSession& s, const review::Classifier& classifier,
                                             bool running, const ChangeWalkOptions& options = {});

// The session's review as a front end shows it: its records, and its change set classified with
// the built-in lists from resources_dir.
struct LoadedReview {
  ReviewSession session;
  review::ChangeSet changes;
};
Result<LoadedReview> load_review(const std::string& session_dir, const std::string& id, const std::string& resources_dir,
                                 bool running, const ChangeWalkOptions& options = {});

// One side of a change, for its diff: the host's bytes (after = false) or the session's. A side
// that is not a regular file is "" ; larger than max_bytes: an error.
Result<std::string> read_change_side(const ReviewSession& s, const review::Change& c, bool after,
                                     std::size_t max_bytes = std::size_t{4} << 20);

}  // namespace paddock::platform
