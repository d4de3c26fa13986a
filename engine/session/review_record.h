// A review-mode session's records (docs/review.md), in <session>/review/:
//
//   roots.json         written by the helper before the sandbox exists: which write root is which
//                      overlay, and when the session started (the line between "the host file
//                      changed before" and "changed meanwhile", which is a conflict)
//   <n>/upper, <n>/work  the n-th overlay's upper and work directories (n: the plan's order of
//                      its overlay steps); the agent's writes are in upper
//   state.json         what the user decided: each applied or discarded change, with the stamps
//                      that tell a later change of the same path from this one
//   journal.json       an apply in progress: what it was applying and its temporaries, so that
//                      one interrupted (killed, disk full) is finished by the next apply
//
// One reader and one writer per file, here; `paddock review|apply|discard`, the app and the
// helper use them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::session {

std::string review_dir(const std::string& session_dir);
std::string review_layer_dir(const std::string& session_dir, int index);  // review/<n>
std::string review_upper(const std::string& session_dir, int index);      // review/<n>/upper
std::string review_work(const std::string& session_dir, int index);       // review/<n>/work
std::string review_roots_file(const std::string& session_dir);
std::string review_state_file(const std::string& session_dir);
std::string review_journal_file(const std::string& session_dir);
// What listings derived from each changed file (platform/review/review_facts_cache.h): a cache,
// never a record; rebuilt whenever it is missing, corrupt or stale.
std::string review_facts_cache_file(const std::string& session_dir);

struct ReviewRoot {
  int index = 0;     // review/<index>
  std::string root;  // the write root (absolute host path), the overlay's lower layer
  bool operator==(const ReviewRoot&) const = default;
};

// Each file's `version` is its format: only 1 is read.
struct ReviewRoots {
  int version = 1;
  // CLOCK_REALTIME_COARSE (the clock file times come from) in ns, taken before the overlays were
  // mounted: a host file whose ctime is at or after it changed during the session.
  std::int64_t started_ns = 0;
  std::vector<ReviewRoot> roots;
  bool operator==(const ReviewRoots&) const = default;
};

std::string encode_review_roots(const ReviewRoots& r);
Result<ReviewRoots> decode_review_roots(std::string_view bytes);

// What identifies one version of a file: a new version has another ctime (and usually another
// inode, since the agent's and the apply's writes replace files).
struct FileStamp {
  std::uint64_t ino = 0;
  std::int64_t size = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

enum class Decision { kApplied, kDiscarded };
const char* to_string(Decision d);

struct ReviewDecision {
  std::string path;  // absolute host path
  Decision decision = Decision::kApplied;
  // The session's entry (upper layer) as it was decided; the agent changing it again makes a new
  // change, listed again.
  FileStamp upper;
  // kApplied: the host's file as the apply left it (absent for a deletion), so that this session
  // does not take its own apply for a change made on the host meanwhile.
  std::optional<FileStamp> host;
  std::string ts;  // UTC
  bool operator==(const ReviewDecision&) const = default;
};

struct ReviewState {
  int version = 1;
  std::vector<ReviewDecision> decisions;  // sorted by path, one per path (the latest)
  const ReviewDecision* find(const std::string& path) const;
  void set(ReviewDecision d);
  bool operator==(const ReviewState&) const = default;
};

std::string encode_review_state(const ReviewState& s);
Result<ReviewState> decode_review_state(std::string_view bytes);

struct ApplyJournal {
  int version = 1;
  std::string started;               // UTC
  std::vector<std::string> paths;    // the changes being applied, absolute host paths
  std::vector<std::string> temps;    // temporaries it may have left beside their targets
  bool operator==(const ApplyJournal&) const = default;
};

std::string encode_apply_journal(const ApplyJournal& j);
Result<ApplyJournal> decode_apply_journal(std::string_view bytes);

}  // namespace paddock::session

// The files' declarations (engine/schema.h): their JSON, strict readers and bytes derive from
// these lines.
namespace paddock::schema {

template <>
struct Schema<session::ReviewRoot> {
  using R = session::ReviewRoot;
  static constexpr auto fields = std::make_tuple(field("index", &R::index, kNonNegative), field("root", &R::root));
};

template <>
struct Schema<session::ReviewRoots> {
  using R = session::ReviewRoots;
  static constexpr auto fields =
      std::make_tuple(field("version", &R::version), field("started_ns", &R::started_ns), field("roots", &R::roots));
};

template <>
struct Schema<session::FileStamp> {
  using F = session::FileStamp;
  static constexpr auto fields =
      std::make_tuple(field("ino", &F::ino), field("size", &F::size), field("ctime_ns", &F::ctime_ns));
};

template <>
struct EnumNames<session::Decision> {
  static constexpr NameTable<session::Decision, 2> values{
      {{session::Decision::kApplied, "applied"}, {session::Decision::kDiscarded, "discarded"}}};
};

template <>
struct Schema<session::ReviewDecision> {
  using D = session::ReviewDecision;
  static constexpr auto fields = std::make_tuple(field("path", &D::path), field("decision", &D::decision),
                                                 field("upper", &D::upper), field("host", &D::host), field("ts", &D::ts));
};

template <>
struct Schema<session::ReviewState> {
  using S = session::ReviewState;
  static constexpr auto fields = std::make_tuple(field("version", &S::version), field("decisions", &S::decisions));
};

template <>
struct Schema<session::ApplyJournal> {
  using J = session::ApplyJournal;
  static constexpr auto fields = std::make_tuple(field("version", &J::version), field("started", &J::started),
                                                 field("paths", &J::paths), field("temps", &J::temps));
};

}  // namespace paddock::schema
