#include "platform/review/review_git.h"

#include <sys/stat.h>

#include <deque>
#include <set>

#include "engine/review/git_index.h"
#include "engine/review/git_object.h"
#include "platform/read_file.h"

namespace paddock::platform {
namespace {

using review::Change;
using review::EntryType;

// "/p/.git" and "refs/heads/main" for "/p/.git/refs/heads/main".
std::pair<std::string, std::string> split_git_path(const std::string& path) {
  std::size_t at = std::string::npos;
  for (std::size_t i = path.find("/.git/"); i != std::string::npos; i = path.find("/.git/", i + 1)) at = i;
  if (at == std::string::npos) return {};
  return {path.substr(0, at + 5), path.substr(at + 6)};
}

std::optional<std::string> read_small(const std::string& path, std::size_t max = std::size_t{64} << 20) {
  ReadOptions o;
  o.max_bytes = max;
  o.no_follow = true;
  auto r = read_file_if_exists(path, o);
  if (!r || !*r) return std::nullopt;
  return std::move(**r);
}

// The host's value of a ref: its loose file, else its line in packed-refs.
std::string host_ref(const std::string& git_dir, const std::string& ref, bool& packed) {
  packed = false;
  if (auto loose = read_small(git_dir + "/" + ref, 4096)) return review::ref_file_id(*loose);
  auto packed_refs = read_small(git_dir + "/packed-refs");
  if (!packed_refs) return {};
  std::size_t at = 0;
  while (at < packed_refs->size()) {
    std::size_t nl = packed_refs->find('\n', at);
    if (nl == std::string::npos) nl = packed_refs->size();
    const std::string line = packed_refs->substr(at, nl - at);
    at = nl + 1;
    const auto sp = line.find(' ');
    if (sp != std::string::npos && line.substr(sp + 1) == ref && review::is_object_id(line.substr(0, sp))) {
      packed = true;
      return line.substr(0, sp);
    }
  }
  return {};
}

std::optional<review::CommitInfo> read_commit(const std::string& objects_dir, const std::string& id) {
  auto bytes = read_small(objects_dir + "/" + id.substr(0, 2) + "/" + id.substr(2));
  if (!bytes) return std::nullopt;
  auto obj = review::inflate_loose_object(*bytes);
  if (!obj || obj->type != "commit") return std::nullopt;
  auto c = review::parse_commit(obj->body);
  if (!c) return std::nullopt;
  return std::move(*c);
}

constexpr std::size_t kCommitBudget = 10000;

}  // namespace

std::map<std::string, review::ChangeFacts> git_index_facts(const ReviewSession& s, const review::ChangeSet& set) {
  std::map<std::string, review::ChangeFacts> out;
  for (const Change& c : set.changes) {
    const auto [git_dir, rest] = split_git_path(c.path);
    if (rest != "index" || c.after.type != EntryType::kFile) continue;
    review::ChangeFacts f;
    const auto up = s.upper_path(c.path);
    auto after = up ? read_small(*up, std::size_t{256} << 20) : std::nullopt;
    auto after_entries = after ? review::parse_git_index(*after) : Result<std::vector<review::IndexEntry>>(bad_input("unreadable"));
    if (!after_entries) {
      f.unreadable = after_entries.error().message;
    } else {
      std::vector<review::IndexEntry> before_entries;
      if (c.before.type == EntryType::kFile)
        if (auto before = read_small(c.path, std::size_t{256} << 20))
          if (auto parsed = review::parse_git_index(*before)) before_entries = std::move(*parsed);
      f.added_gitlinks = review::added_gitlinks(before_entries, *after_entries);
    }
    if (!f.unreadable.empty() || !f.added_gitlinks.empty()) out[c.path] = std::move(f);
  }
  return out;
}

void add_commit_offers(const ReviewSession& s, review::ChangeSet& set) {
  for (Change& c : set.changes) {
    if (c.git != review::GitRole::kRef || c.after.type != EntryType::kFile) continue;
    const auto [git_dir, ref] = split_git_path(c.path);
    review::CommitOffer o;
    o.repo = git_dir;
    o.ref = ref;
    o.ref_path = c.path;
    const auto up = s.upper_path(c.path);
    if (auto content = up ? read_small(*up, 4096) : std::nullopt) o.after = review::ref_file_id(*content);
    bool packed = false;
    o.before = host_ref(git_dir, ref, packed);
    if (packed && c.conflict.empty()) {
      struct stat st {};
      const std::string pr = git_dir + "/packed-refs";
      if (::lstat(pr.c_str(), &st) == 0 &&
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec >= s.roots.started_ns)
        c.conflict = "the host's packed refs changed since the session started: " + ref + " may have moved there";
    }
    if (o.after.empty()) {
      o.problem = "the session's " + ref + " does not hold a commit id";
    } else {
      // Walk back from the session's commit through the objects the session made (its upper
      // layer), then the host's loose objects: the host's commit must be found on the way.
      const auto session_objects = s.upper_path(git_dir + "/objects");
      const std::string host_objects = git_dir + "/objects";
      std::deque<std::string> queue{o.after};
      std::set<std::string> seen{o.after};
      std::size_t budget = kCommitBudget;
      bool found = o.before.empty();
      bool unreadable = false;
      while (!queue.empty() && budget-- > 0 && !found) {
        const std::string id = queue.front();
        queue.pop_front();
        if (id == o.before) {
          found = true;
          break;
        }
        std::optional<review::CommitInfo> commit;
        bool from_session = false;
        if (session_objects) {
          commit = read_commit(*session_objects, id);
          from_session = commit.has_value();
        }
        if (!commit) commit = read_commit(host_objects, id);
        if (!commit) {
          unreadable = true;
          continue;
        }
        if (from_session) o.commits.push_back({id, commit->subject});
        for (const auto& p : commit->parents)
          if (seen.insert(p).second) queue.push_back(p);
      }
      o.fast_forward = found;
      if (!found)
        o.problem = unreadable
                        ? "its history could not be read back to the host's " + ref + " (" + o.before.substr(0, 12) +
                              "; packed objects are not read), so it may drop commits you have"
                        : "it does not descend from the host's " + ref + " (" + o.before.substr(0, 12) +
                              "): applying it would drop commits from that branch";
    }
    if (!o.problem.empty()) c.flags.push_back({"not-fast-forward", "moves " + ref + " and " + o.problem, ""});
    set.commits.push_back(std::move(o));
  }
}

}  // namespace paddock::platform
