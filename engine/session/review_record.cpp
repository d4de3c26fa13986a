#include "engine/session/review_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

// A review of tens of thousands of changes keeps one decision each.
constexpr std::size_t kMaxReviewRecord = std::size_t{64} << 20;

json stamp_json(const FileStamp& s) {
  return {{"ino", s.ino}, {"size", s.size}, {"ctime_ns", s.ctime_ns}};
}

bool read_stamp(StrictJsonReader& r, const json& j, const std::string& path, FileStamp& out) {
  std::int64_t ino = 0;
  if (!r.object(j, path, {"ino", "size", "ctime_ns"}) || !r.integer(j["ino"], path + ".ino", ino) ||
      !r.integer(j["size"], path + ".size", out.size) || !r.integer(j["ctime_ns"], path + ".ctime_ns", out.ctime_ns))
    return false;
  // nlohmann reads an inode number above INT64_MAX as unsigned; integer() takes both.
  out.ino = j["ino"].is_number_unsigned() ? j["ino"].get<std::uint64_t>() : static_cast<std::uint64_t>(ino);
  return true;
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

std::string encode_review_roots(const ReviewRoots& r) {
  json roots = json::array();
  for (const auto& x : r.roots) roots.push_back({{"index", x.index}, {"root", encode_json_text(x.root)}});
  return dump_record({{"version", 1}, {"started_ns", r.started_ns}, {"roots", std::move(roots)}}, 2) + "\n";
}

Result<ReviewRoots> decode_review_roots(std::string_view bytes) {
  auto j = parse_record(bytes, "review/roots.json");
  if (!j) return j.error();
  StrictJsonReader r("review/roots.json field ");
  ReviewRoots out;
  std::int64_t version = 0;
  if (!r.object(*j, "", {"version", "started_ns", "roots"}) || !r.integer((*j)["version"], "version", version) ||
      !r.integer((*j)["started_ns"], "started_ns", out.started_ns))
    return bad_input(r.error());
  if (version != 1) return bad_input("review/roots.json: version " + std::to_string(version) + " is not one this Paddock reads");
  const json& roots = (*j)["roots"];
  if (!roots.is_array()) return bad_input("review/roots.json field roots: expected an array");
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const std::string at = "roots[" + std::to_string(i) + "]";
    ReviewRoot root;
    if (!r.object(roots[i], at, {"index", "root"}) || !r.int_value(roots[i]["index"], at + ".index", root.index) ||
        !r.str(roots[i]["root"], at + ".root", root.root))
      return bad_input(r.error());
    if (root.index < 0) return bad_input("review/roots.json field " + at + ".index: must not be negative");
    if (root.root.empty() || root.root[0] != '/') return bad_input("review/roots.json field " + at + ".root: not an absolute path");
    out.roots.push_back(std::move(root));
  }
  return out;
}

const char* to_string(Decision d) {
  switch (d) {
    case Decision::kApplied: return "applied";
    case Decision::kDiscarded: return "discarded";
  }
  return "applied";
}

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

std::string encode_review_state(const ReviewState& s) {
  json list = json::array();
  for (const auto& d : s.decisions)
    list.push_back({{"path", encode_json_text(d.path)},
                    {"decision", to_string(d.decision)},
                    {"upper", stamp_json(d.upper)},
                    {"host", d.host ? stamp_json(*d.host) : json(nullptr)},
                    {"ts", d.ts}});
  return dump_record({{"version", 1}, {"decisions", std::move(list)}}, 1) + "\n";
}

Result<ReviewState> decode_review_state(std::string_view bytes) {
  auto j = parse_record(bytes, "review/state.json", kMaxReviewRecord);
  if (!j) return j.error();
  StrictJsonReader r("review/state.json field ");
  std::int64_t version = 0;
  if (!r.object(*j, "", {"version", "decisions"}) || !r.integer((*j)["version"], "version", version))
    return bad_input(r.error());
  if (version != 1) return bad_input("review/state.json: version " + std::to_string(version) + " is not one this Paddock reads");
  const json& list = (*j)["decisions"];
  if (!list.is_array()) return bad_input("review/state.json field decisions: expected an array");
  ReviewState s;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "decisions[" + std::to_string(i) + "]";
    const json& e = list[i];
    ReviewDecision d;
    std::string word;
    if (!r.object(e, at, {"path", "decision", "upper", "host", "ts"}) || !r.str(e["path"], at + ".path", d.path) ||
        !r.str(e["decision"], at + ".decision", word) || !read_stamp(r, e["upper"], at + ".upper", d.upper) ||
        !r.str(e["ts"], at + ".ts", d.ts))
      return bad_input(r.error());
    if (word == "applied") d.decision = Decision::kApplied;
    else if (word == "discarded") d.decision = Decision::kDiscarded;
    else return bad_input("review/state.json field " + at + ".decision: expected applied or discarded");
    if (!e["host"].is_null()) {
      FileStamp h;
      if (!read_stamp(r, e["host"], at + ".host", h)) return bad_input(r.error());
      d.host = h;
    }
    s.set(std::move(d));
  }
  return s;
}

std::string encode_apply_journal(const ApplyJournal& j) {
  json paths = json::array(), temps = json::array();
  for (const auto& p : j.paths) paths.push_back(encode_json_text(p));
  for (const auto& t : j.temps) temps.push_back(encode_json_text(t));
  return dump_record({{"version", 1}, {"started", j.started}, {"paths", std::move(paths)}, {"temps", std::move(temps)}}, 1) +
         "\n";
}

Result<ApplyJournal> decode_apply_journal(std::string_view bytes) {
  auto j = parse_record(bytes, "review/journal.json", kMaxReviewRecord);
  if (!j) return j.error();
  StrictJsonReader r("review/journal.json field ");
  ApplyJournal out;
  std::int64_t version = 0;
  if (!r.object(*j, "", {"version", "started", "paths", "temps"}) || !r.integer((*j)["version"], "version", version) ||
      !r.str((*j)["started"], "started", out.started) || !r.strings((*j)["paths"], "paths", out.paths) ||
      !r.strings((*j)["temps"], "temps", out.temps))
    return bad_input(r.error());
  if (version != 1) return bad_input("review/journal.json: version " + std::to_string(version) + " is not one this Paddock reads");
  return out;
}

}  // namespace paddock::session
