#include "engine/session/review_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

// A review of tens of thousands of changes keeps one decision each.
constexpr std::size_t kMaxReviewRecord = std::size_t{64} << 20;

// One of the review files, read strictly from its declaration, in the one version this Paddock
// reads.
template <class T>
Result<T> read_review_file(std::string_view bytes, const std::string& what, std::size_t max_bytes) {
  auto j = parse_record(bytes, what, max_bytes);
  if (!j) return j.error();
  auto out = schema::from_json_value<T>(*j, what + " field ");
  if (!out) return out.error();
  if (out->version != 1)
    return bad_input(what + ": version " + std::to_string(out->version) + " is not one this Paddock reads");
  return out;
}

}  // namespace

std::string review_dir(const std::string& session_dir) { return session_dir + "/review"; }
std::string review_layer_dir(const std::string& session_dir, int index) {
  return review_dir(session_dir) + "/" + std::to_string(index);
}
std::string review_upper(const std::string& session_dir, int index) { return review_layer_dir(session_dir, index) + "/upper"; }
std::string review_work(const std::string& session_dir, int index) { return review_layer_dir(session_dir, index) + "/work"; }
std::string review_roots_file(const std::string& session_dir) { return review_dir(session_dir) + "/roots.json"; }
std::string review_state_file(const std::string& session_dir) { return review_dir(session_dir) + "/state.json"; }
std::string review_journal_file(const std::string& session_dir) { return review_dir(session_dir) + "/journal.json"; }
std::string review_facts_cache_file(const std::string& session_dir) { return review_dir(session_dir) + "/facts.cache"; }

std::string encode_review_roots(const ReviewRoots& r) { return dump_record(schema::to_json_value(r), 2) + "\n"; }

Result<ReviewRoots> decode_review_roots(std::string_view bytes) {
  auto out = read_review_file<ReviewRoots>(bytes, "review/roots.json", std::size_t{1} << 20);
  if (!out) return out.error();
  for (std::size_t i = 0; i < out->roots.size(); ++i)
    if (out->roots[i].root.empty() || out->roots[i].root[0] != '/')
      return bad_input("review/roots.json field roots[" + std::to_string(i) + "].root: not an absolute path");
  return out;
}

const char* to_string(Decision d) { return schema::enum_name(d).data(); }

const ReviewDecision* ReviewState::find(const std::string& path) const {
  auto it = std::lower_bound(decisions.begin(), decisions.end(), path,
                             [](const ReviewDecision& d, const std::string& p) { return d.path < p; });
  return it != decisions.end() && it->path == path ? &*it : nullptr;
}

void ReviewState::set(ReviewDecision d) {
  auto it = std::lower_bound(decisions.begin(), decisions.end(), d.path,
                             [](const ReviewDecision& x, const std::string& p) { return x.path < p; });
  if (it != decisions.end() && it->path == d.path) *it = std::move(d);
  else decisions.insert(it, std::move(d));
}

std::string encode_review_state(const ReviewState& s) { return dump_record(schema::to_json_value(s), 1) + "\n"; }

Result<ReviewState> decode_review_state(std::string_view bytes) {
  auto read = read_review_file<ReviewState>(bytes, "review/state.json", kMaxReviewRecord);
  if (!read) return read.error();
  // Sorted by path, one per path (the latest), whatever order the file has.
  ReviewState s;
  for (auto& d : read->decisions) s.set(std::move(d));
  return s;
}

std::string encode_apply_journal(const ApplyJournal& j) { return dump_record(schema::to_json_value(j), 1) + "\n"; }

Result<ApplyJournal> decode_apply_journal(std::string_view bytes) {
  return read_review_file<ApplyJournal>(bytes, "review/journal.json", kMaxReviewRecord);
}

}  // namespace paddock::session
