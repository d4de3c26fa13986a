#include "engine/glob.h"

#include "engine/dir_lister.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <unordered_map>
#include <system_error>
#include <thread>

namespace paddock {
namespace fs = std::filesystem;
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find('/', i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

struct Compiled {
  GlobJob* job;
  std::size_t index = 0;          // the job's position in expand_globs' list
  std::vector<std::string> segs;  // pattern segments below the base
  bool has_globstar = false;
  bool tail_only = false;          // "**/<seg>": only the last name matters
  bool literal_tail = false;       // tail_only and <seg> has no wildcard: one name, looked up
  std::string tail_name{};         // that name, unescaped
  // The characters a matching path's last name can end with, when the last segment ends in a
  // literal or a class: most names are rejected by one table lookup before any matching.
  bool last_char_known = false;
  std::array<bool, 256> last_char{};
};

// What the last character of a name matching `seg` can be; false when anything can.
bool last_chars_of(const std::string& seg, std::array<bool, 256>& out) {
  if (seg.empty() || seg.back() == '*' || seg.back() == '?') return false;
  if (seg.find('\\') != std::string::npos) return false;  // escapes: not worth reading here
  auto mark = [&](char c) { out[static_cast<unsigned char>(c)] = true; };
  if (seg.back() != ']') {
    mark(seg.back());
    return true;
  }
  // A trailing class: find its '[' (a ']' right after "[" or "[!" belongs to the class).
  const std::size_t open = seg.rfind('[');
  if (open == std::string::npos) return false;
  std::size_t j = open + 1;
  if (j < seg.size() && (seg[j] == '!' || seg[j] == '^')) return false;  // negated: too many to list
  const std::size_t first = j;
  for (; j + 1 < seg.size() && (seg[j] != ']' || j == first); ++j) {
    if (j + 2 < seg.size() - 1 && seg[j + 1] == '-' && seg[j + 2] != ']') {
      for (int c = static_cast<unsigned char>(seg[j]); c <= static_cast<unsigned char>(seg[j + 2]); ++c)
        out[static_cast<std::size_t>(c)] = true;
      j += 2;
    } else {
      mark(seg[j]);
    }
  }
  return j + 1 == seg.size();
}

// segs[pi..] against path[qi..]; `**` matches zero or more components.
bool match_segments(const std::vector<std::string>& segs, std::size_t pi, const std::vector<std::string_view>& path,
                    std::size_t qi) {
  while (pi < segs.size()) {
    if (segs[pi] == "**") {
      if (pi + 1 == segs.size()) return true;
      for (std::size_t k = qi; k <= path.size(); ++k)
        if (match_segments(segs, pi + 1, path, k)) return true;
      return false;
    }
    if (qi >= path.size() || !match_component(segs[pi], path[qi])) return false;
    ++pi;
    ++qi;
  }
  return qi == path.size();
}

// Can anything below `path` (a directory) still match?
bool may_descend(const Compiled& c, const std::vector<std::string_view>& path) {
  if (c.has_globstar) {
    // Prefix before the first ** must match the path's first components.
    for (std::size_t i = 0; i < c.segs.size() && i < path.size(); ++i) {
      if (c.segs[i] == "**") return true;
      if (!match_component(c.segs[i], path[i])) return false;
    }
    return true;
  }
  if (path.size() >= c.segs.size()) return false;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (!match_component(c.segs[i], path[i])) return false;
  return true;
}

bool matches_path(const Compiled& c, const std::vector<std::string_view>& path) {
  if (c.last_char_known && (path.back().empty() || !c.last_char[static_cast<unsigned char>(path.back().back())]))
    return false;
  if (c.tail_only) return match_component(c.segs[1], path.back());
  return match_segments(c.segs, 0, path, 0);
}

// One walk over a base directory, shared by the patterns under it. Directories are a queue of
// tasks; on a large tree (a repository with node_modules, ~100k entries, ~85 ms alone) a second
// thread takes tasks from the same queue once the walk is past kParallelAfter entries, so the two
// cores share the getdents and matching. A small tree never starts one. Matches are gathered per
// thread and merged; expand_globs sorts them, so the result does not depend on who found what.
class Walk {
 public:
  Walk(std::vector<Compiled*> group, std::size_t jobs, const DirectoryLister& lister)
      : group_(std::move(group)), jobs_(jobs), lister_(lister) {
    // "**/name" patterns (the profiles' lists hold dozens) are matched by one lookup of each
    // entry's name instead of one comparison per pattern; they stay active everywhere below.
    for (Compiled* c : group_)
      if (c->literal_tail) by_name_[c->tail_name].push_back(c);
  }

  Status run(const fs::path& base_path) {
    const std::string base = base_path.string();
    queue_.push_back({base, {}, group_});
    std::vector<std::vector<std::string>> mine(jobs_);
    work(mine, /*may_spawn=*/true);
    if (helper_.joinable()) helper_.join();
    merge(mine);
    merge(helper_matches_);
    const std::size_t visited = visited_.load();
    if (visited > kGlobWalkBudget) {
      for (Compiled* c : group_) {
        if (!c->job->fail_closed)
          return refused(c->job->label + ": glob walks more than " + std::to_string(kGlobWalkBudget) +
                         " entries; narrow the pattern");
        // A deny cannot be checked past the budget: everything below its base is denied.
        c->job->matches = {base};
        c->job->widened.push_back(c->job->label + ": '" + c->job->pattern + "' walks more than " +
                                  std::to_string(kGlobWalkBudget) + " entries; " + base +
                                  " is denied whole");
      }
      return {};
    }
    for (Compiled* c : group_) {
      if (c->job->matches.size() <= kGlobMatchBudget) continue;
      if (!c->job->fail_closed)
        return refused(c->job->label + ": glob '" + c->job->pattern + "' matches more than " +
                       std::to_string(kGlobMatchBudget) + " paths; narrow it");
      collapse(*c->job, base);
    }
    return {};
  }

  // More deny matches than the budget: their parent directories are denied instead, level by
  // level, until few enough remain (at worst the base itself). Deterministic: it depends only on
  // the set of matches.
  static void collapse(GlobJob& job, const std::string& base) {
    std::vector<std::string> cur = job.matches;
    while (cur.size() > kGlobMatchBudget) {
      std::vector<std::string> up;
      up.reserve(cur.size());
      for (const std::string& m : cur) {
        const auto slash = m.rfind('/');
        std::string parent = slash == std::string::npos || slash == 0 ? std::string("/") : m.substr(0, slash);
        if (parent.size() < base.size()) parent = base;
        up.push_back(std::move(parent));
      }
      std::sort(up.begin(), up.end());
      up.erase(std::unique(up.begin(), up.end()), up.end());
      if (up == cur) break;  // only the base is left
      cur = std::move(up);
    }
    job.widened.push_back(job.label + ": '" + job.pattern + "' matches more than " + std::to_string(kGlobMatchBudget) +
                          " paths; the " + std::to_string(cur.size()) + " directories holding them are denied whole");
    job.matches = std::move(cur);
  }

 private:
  static constexpr std::size_t kParallelAfter = 4096;

  struct Task {
    std::string dir;
    std::vector<std::string> rel;  // components below the base
    std::vector<Compiled*> active;  // patterns that may still match below dir
  };

  // Takes tasks until the queue is empty and no thread can add to it.
  void work(std::vector<std::vector<std::string>>& matches, bool may_spawn) {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty() || busy_ == 0 || stop_; });
        if (stop_ || queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
      }
      visit(task, matches);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --busy_;
      }
      cv_.notify_all();
      if (may_spawn && !helper_.joinable() && visited_.load() > kParallelAfter) {
        bool queued;
        {
          std::lock_guard<std::mutex> lock(mu_);
          queued = !queue_.empty();
        }
        if (queued) {
          helper_matches_.assign(jobs_, {});
          try {
            helper_ = std::thread([this] { work(helper_matches_, false); });
          } catch (const std::system_error&) {
            may_spawn = false;  // no thread to be had: this one walks on alone
          }
        }
      }
    }
  }

  // A directory the walk cannot see into: a deny pattern that could match below it matches it
  // whole (an allow pattern grants nothing there, which is safe as it is).
  void deny_whole(const Task& task, std::vector<std::vector<std::string>>& matches, const std::string& why) {
    for (Compiled* c : task.active) {
      if (!c->job->fail_closed) continue;
      matches[c->index].push_back(task.dir);
      std::lock_guard<std::mutex> lock(mu_);
      c->job->widened.push_back(c->job->label + ": " + task.dir + " " + why + "; it is denied whole");
    }
  }

  void visit(const Task& task, std::vector<std::vector<std::string>>& matches) {
    if (task.rel.size() >= kGlobDepthLimit) {
      deny_whole(task, matches, "is deeper than " + std::to_string(kGlobDepthLimit) + " levels");
      return;
    }
    // One entry at a time from the lister; a full path is built only for a match or a
    // directory to descend into.
    struct Entries final : DirectoryLister::Visitor {
      Walk& walk;
      const Task& task;
      std::vector<std::vector<std::string>>& matches;
      std::vector<std::string_view> rel;
      std::vector<Task> subdirs;
      bool halted = false;
      Entries(Walk& w, const Task& t, std::vector<std::vector<std::string>>& m)
          : walk(w), task(t), matches(m), rel(t.rel.begin(), t.rel.end()) {}
      std::string path_of(std::string_view name) const {
        std::string p;
        p.reserve(task.dir.size() + 1 + name.size());
        p.append(task.dir);
        if (p.empty() || p.back() != '/') p.push_back('/');
        p.append(name);
        return p;
      }
      // An allow pattern past its budget fails the evaluation: the walk can stop. A deny pattern
      // past it is collapsed into directories afterwards (run), which needs every match: the
      // walk goes on (bounded by the entry budget).
      bool record(Compiled* c, std::string_view name) {
        auto& found = matches[c->index];
        found.push_back(path_of(name));
        return c->job->fail_closed || found.size() <= kGlobMatchBudget;
      }
      bool entry(std::string_view name, EntryKind kind) override {
        if (walk.visited_.fetch_add(1) + 1 > kGlobWalkBudget) return stop();
        rel.push_back(name);
        if (!walk.by_name_.empty())
          if (auto named = walk.by_name_.find(name); named != walk.by_name_.end())
            for (Compiled* c : named->second)
              if (!record(c, name)) return stop();
        for (Compiled* c : task.active) {
          if (c->literal_tail || !matches_path(*c, rel)) continue;
          if (c->job->sockets_only && kind != EntryKind::kSocket) continue;
          if (!record(c, name)) return stop();
        }
        // The kind comes from the directory itself: symlinks are never followed.
        if (kind == EntryKind::kDirectory) {
          std::vector<Compiled*> next;
          for (Compiled* c : task.active)
            if (may_descend(*c, rel)) next.push_back(c);
          if (!next.empty()) {
            std::vector<std::string> sub(task.rel);
            sub.emplace_back(name);
            subdirs.push_back({path_of(name), std::move(sub), std::move(next)});
          }
        }
        rel.pop_back();
        return true;
      }
      bool stop() {
        halted = true;
        walk.halt();
        return false;
      }
    } entries(*this, task, matches);
    const std::error_code ec = lister_.list(task.dir, entries);
    if (entries.halted) return;
    if (ec) {
      // Gone since its parent was read: there is nothing to deny. Anything else (no permission,
      // an I/O error) hides what is inside from the walk, not from whoever can get in later.
      if (ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        deny_whole(task, matches, "cannot be read by Paddock (" + ec.message() + ")");
    }
    if (entries.subdirs.empty()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& t : entries.subdirs) queue_.push_back(std::move(t));
    }
    cv_.notify_all();
  }

  // An over-budget walk stops everywhere; run() reports it.
  void halt() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
  }

  void merge(std::vector<std::vector<std::string>>& from) {
    for (Compiled* c : group_) {
      if (c->index >= from.size()) continue;
      auto& src = from[c->index];
      auto& dst = c->job->matches;
      dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
      src.clear();
    }
  }

  std::vector<Compiled*> group_;
  std::unordered_map<std::string_view, std::vector<Compiled*>> by_name_;
  std::size_t jobs_;
  const DirectoryLister& lister_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  int busy_ = 0;
  bool stop_ = false;
  std::atomic<std::size_t> visited_{0};
  std::thread helper_;
  std::vector<std::vector<std::string>> helper_matches_;
};

}  // namespace

namespace {

constexpr std::string_view kSpecial = "[]*?{}\\";

bool is_special(char c) { return kSpecial.find(c) != std::string_view::npos; }

// A `\` at i escapes the character after it when that one is special.
bool escapes(std::string_view s, std::size_t i) { return s[i] == '\\' && i + 1 < s.size() && is_special(s[i + 1]); }

}  // namespace

bool has_glob(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (escapes(s, i)) ++i;
    else if (s[i] == '*' || s[i] == '?' || s[i] == '[') return true;
  }
  return false;
}

std::string glob_escape(std::string_view literal) {
  std::string out;
  out.reserve(literal.size());
  for (char c : literal) {
    if (is_special(c)) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string glob_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (escapes(s, i)) ++i;
    out.push_back(s[i]);
  }
  return out;
}

std::string glob_base(std::string_view pattern) {
  std::string base;
  for (const std::string& seg : split(pattern)) {
    if (has_glob(seg)) break;
    base += "/" + glob_unescape(seg);
  }
  return base.empty() ? "/" : base;
}

std::vector<std::string> glob_split(std::string_view pattern) { return split(pattern); }

bool glob_match_split(const std::vector<std::string>& segs, std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::size_t i = 0; i < path.size();) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return match_segments(segs, 0, parts, 0);
}

bool glob_match_path(std::string_view pattern, std::string_view path) { return glob_match_split(split(pattern), path); }

bool match_component(std::string_view p, std::string_view n, bool ci) {
  std::size_t pi = 0, ni = 0, star_p = std::string_view::npos, star_n = 0;
  while (ni < n.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star_p = pi++;
      star_n = ni;
      continue;
    }
    if (pi < p.size() && p[pi] == '[') {
      std::size_t j = pi + 1;
      bool negate = j < p.size() && (p[j] == '!' || p[j] == '^');
      if (negate) ++j;
      bool found = false;
      const std::size_t first = j;
      while (j < p.size() && (p[j] != ']' || j == first)) {
        if (escapes(p, j)) ++j;  // "\]" inside a class is that character
        char lo = p[j], hi = p[j];
        if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
          std::size_t h = j + 2;
          if (escapes(p, h)) ++h;
          hi = p[h];
          j = h;
        }
        char c = n[ni];
        if (ci) {
          if ((lower(c) >= lower(lo) && lower(c) <= lower(hi))) found = true;
        }
        if (c >= lo && c <= hi) found = true;
        ++j;
      }
      if (j < p.size() && found != negate) {
        pi = j + 1;
        ++ni;
        continue;
      }
    } else if (pi < p.size() && escapes(p, pi)) {
      if (p[pi + 1] == n[ni] || (ci && lower(p[pi + 1]) == lower(n[ni]))) {
        pi += 2;
        ++ni;
        continue;
      }
    } else if (pi < p.size() && (p[pi] == '?' || p[pi] == n[ni] || (ci && lower(p[pi]) == lower(n[ni])))) {
      ++pi;
      ++ni;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p + 1;
    ni = ++star_n;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

Status expand_globs(std::vector<GlobJob>& jobs, PathCache* paths, const DirectoryLister* lister) {
  std::vector<Compiled> compiled;
  compiled.reserve(jobs.size());
  std::map<std::string, std::vector<Compiled*>> by_base;
  std::vector<std::string> bases;
  for (auto& j : jobs) {
    j.matches.clear();
    j.widened.clear();
    auto segs = split(j.pattern);
    std::size_t lit = 0;
    while (lit < segs.size() && !has_glob(segs[lit])) ++lit;
    std::string base = "/";
    for (std::size_t i = 0; i < lit; ++i) base += (i ? "/" : "") + glob_unescape(segs[i]);
    Compiled c{&j, compiled.size(), std::vector<std::string>(segs.begin() + static_cast<long>(lit), segs.end())};
    c.has_globstar = std::find(c.segs.begin(), c.segs.end(), "**") != c.segs.end();
    c.tail_only = c.segs.size() == 2 && c.segs[0] == "**" && c.segs[1] != "**";
    c.literal_tail = c.tail_only && !has_glob(c.segs[1]);
    if (c.literal_tail) c.tail_name = glob_unescape(c.segs[1]);
    if (!c.segs.empty() && c.segs.back() != "**") c.last_char_known = last_chars_of(c.segs.back(), c.last_char);
    compiled.push_back(std::move(c));
    bases.push_back(base);
  }
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    if (compiled[i].segs.empty()) continue;  // not a glob after all
    std::error_code ec;
    fs::path base = paths ? paths->weakly_canonical(bases[i], ec) : fs::weakly_canonical(bases[i], ec);
    if (ec) continue;
    by_base[base.string()].push_back(&compiled[i]);
  }
  for (auto& [base, group] : by_base) {
    std::error_code ec;
    if (!fs::is_directory(base, ec)) continue;  // no match = empty set
    Walk walk(group, jobs.size(), lister ? *lister : portable_lister());
    if (auto s = walk.run(base); !s.ok()) return s;
  }
  for (auto& j : jobs) {
    std::sort(j.matches.begin(), j.matches.end());
    j.matches.erase(std::unique(j.matches.begin(), j.matches.end()), j.matches.end());
    std::sort(j.widened.begin(), j.widened.end());
  }
  return {};
}

}  // namespace paddock
