// A change set: what a session would change on the host, file by file (docs/review.md). Review
// mode computes it from the session's overlay (platform/review/change_walk.h); the classifier
// (classify.h) says which changes a tool on the host would run, and why. Pure data, with one JSON
// form for `paddock review --json` and the app.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/review_record.h"

namespace paddock::review {

enum class EntryType { kNone, kFile, kDir, kSymlink, kOther };
const char* to_string(EntryType t);

// One side of a change: the host's entry as it is now, or the session's.
struct EntryState {
  EntryType type = EntryType::kNone;
  std::uint32_t mode = 0;    // permission bits (07777)
  std::int64_t size = 0;     // regular files
  std::string target;        // symlinks: what they point at
  bool operator==(const EntryState&) const = default;
};

enum class ChangeKind { kAdded, kModified, kDeleted, kRenamed };
const char* to_string(ChangeKind k);

// Why a change is listed apart: a tool on the host would run it, or it points git (or a tool)
// somewhere the review cannot see. Each flagged change needs its own confirmation to apply.
struct Flag {
  std::string rule;    // git-metadata, nested-repository, git-file, gitlink, tool-executed,
                       // agent-config, new-executable, symlink-outside, special-file, removes-history;
                       // the agent-state review adds host-executed-keys and named-by-setting
  std::string why;     // one sentence for the user
  std::string source;  // the list entry or pattern that matched ("" for the built-in rules)
  std::string tool;    // what would run it: "git", the list entry's tool ("direnv", "VS Code")
  // The path the rule is about: the change's own path, the directory a list pattern matched (a
  // new .husky/ and everything in it), or the new repository's .git directory.
  std::string at;
  bool operator==(const Flag&) const = default;
};

// What a path under a .git directory is to git (classify.h decides).
enum class GitRole {
  kNone,         // not under a .git directory
  kObject,       // a new object or pack: data, named by its hash
  kRef,          // a branch, tag or remote-tracking ref the agent moved (offered as commits)
  kBookkeeping,  // the index, reflogs, HEAD, messages: data git reads, never runs
  kMetadata,     // anything else (config, hooks, info/, modules/, ...): flagged
};
const char* to_string(GitRole r);

struct Change {
  std::string path;  // absolute host path
  std::string root;  // the write root it is in
  int layer = 0;     // review/<layer> of the session
  ChangeKind kind = ChangeKind::kModified;
  EntryState before;  // the host's entry now (kNone: absent)
  EntryState after;   // the session's (kNone: deleted)
  std::string renamed_from;  // kRenamed: the path it had on the host (listed as deleted no more)
  bool binary = false;       // the session's content (or the host's, for a deletion) is not text
  bool content_changed = false;  // a modified file's bytes differ (false: mode only)
  std::vector<Flag> flags;       // empty: safe
  GitRole git = GitRole::kNone;
  // Non-empty: the host's entry changed after the session started (or another session applied it
  // meanwhile); the change is never applied over it. Says what changed.
  std::string conflict;
  std::string decision;  // "" pending, "applied" or "discarded"
  // Where the walk found it: the session's entry (the upper layer's, or the nearest one above a
  // deletion it implies) and the host's, to record a decision and to tell this session's own apply
  // from a change on the host.
  session::FileStamp upper_stamp;
  std::optional<session::FileStamp> host_stamp;
  std::optional<session::FileStamp> renamed_from_stamp;  // kRenamed: the old path's host entry
  bool flagged() const { return !flags.empty(); }
  bool pending() const { return decision.empty(); }
};

// A branch (or tag) the agent moved, with the commits that moved it: applying it brings the
// objects and moves the ref, only as a fast-forward of the ref the host still has.
struct CommitOffer {
  std::string repo;      // the .git directory
  std::string ref;       // "refs/heads/main"
  std::string ref_path;  // the ref's file (a change with GitRole kRef)
  std::string before;    // the host's object id ("" = no such ref on the host)
  std::string after;     // the session's
  struct Commit {
    std::string id;
    std::string subject;
    bool operator==(const Commit&) const = default;
  };
  std::vector<Commit> commits;  // newest first, those the host does not have
  bool fast_forward = false;    // after descends from before
  std::string problem;          // why it is not a plain fast-forward ("" when it is)
  bool operator==(const CommitOffer&) const = default;
};

struct ChangeSet {
  std::string session_id;
  bool running = false;          // the session still runs: the set may still grow
  std::int64_t started_ns = 0;   // host changes at or after this are conflicts
  std::vector<Change> changes;   // sorted by path
  std::vector<CommitOffer> commits;
  std::vector<std::string> notes;  // what the walk could not see (unreadable entries, budgets)
  bool interrupted_apply = false;  // an apply did not finish; the next apply finishes it

  std::size_t pending_count() const;
  std::size_t flagged_pending_count() const;
};

nlohmann::json to_json(const Change& c);
// Appends to_json(c).dump() (compact, invalid UTF-8 replaced) to out, byte for byte, without
// building the JSON value: a listing of ten thousand changes spends most of its time otherwise
// allocating and freeing the values' maps.
void append_json(const Change& c, std::string& out);
// with_changes = false leaves "changes" out (a caller that streams them one by one).
nlohmann::json to_json(const ChangeSet& s, bool with_changes = true);

}  // namespace paddock::review
