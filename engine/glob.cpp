#include "engine/glob.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

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
  std::vector<std::string> segs;  // pattern segments below the base
  bool has_globstar = false;
  bool tail_only = false;          // "**/<seg>": only the last name matters
};

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

bool matches(const Compiled& c, const std::vector<std::string_view>& path) {
  if (c.tail_only) return match_component(c.segs[1], path.back());
  return match_segments(c.segs, 0, path, 0);
}

struct Walker {
  std::vector<Compiled*> group;
  std::size_t visited = 0;
  Status status;

  void walk(const fs::path& dir, std::vector<std::string_view>& rel, const std::vector<Compiled*>& active) {
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) return;  // unreadable directory: nothing we could grant or deny inside is visible
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec || !status.ok()) return;
      if (++visited > kGlobWalkBudget) {
        status = refused(active.front()->job->label + ": glob walks more than " + std::to_string(kGlobWalkBudget) +
                         " entries; narrow the pattern");
        return;
      }
      const fs::directory_entry& e = *it;
      // The entry (and its path) stays put until increment(): a view of its name is enough.
      const std::string& native = e.path().native();
      const auto slash = native.rfind('/');
      rel.push_back(std::string_view(native).substr(slash == std::string::npos ? 0 : slash + 1));
      for (Compiled* c : active) {
        if (!matches(*c, rel)) continue;
        if (c->job->matches.size() >= kGlobMatchBudget) {
          status = refused(c->job->label + ": glob '" + c->job->pattern + "' matches more than " +
                           std::to_string(kGlobMatchBudget) + " paths; narrow it");
          return;
        }
        c->job->matches.push_back(e.path().string());
      }
      // Cached type from readdir: no stat unless the entry is a symlink (never followed).
      const bool is_dir = !e.is_symlink(ec) && e.is_directory(ec);
      if (is_dir && rel.size() < 256) {
        std::vector<Compiled*> next;
        for (Compiled* c : active)
          if (may_descend(*c, rel)) next.push_back(c);
        if (!next.empty()) walk(e.path(), rel, next);
      }
      rel.pop_back();
    }
  }
};

}  // namespace

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

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
        char lo = p[j], hi = p[j];
        if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
          hi = p[j + 2];
          j += 2;
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

Status expand_globs(std::vector<GlobJob>& jobs, PathCache* paths) {
  std::vector<Compiled> compiled;
  compiled.reserve(jobs.size());
  std::map<std::string, std::vector<Compiled*>> by_base;
  std::vector<std::string> bases;
  for (auto& j : jobs) {
    j.matches.clear();
    auto segs = split(j.pattern);
    std::size_t lit = 0;
    while (lit < segs.size() && !has_glob(segs[lit])) ++lit;
    std::string base = "/";
    for (std::size_t i = 0; i < lit; ++i) base += (i ? "/" : "") + segs[i];
    Compiled c{&j, std::vector<std::string>(segs.begin() + static_cast<long>(lit), segs.end())};
    c.has_globstar = std::find(c.segs.begin(), c.segs.end(), "**") != c.segs.end();
    c.tail_only = c.segs.size() == 2 && c.segs[0] == "**" && c.segs[1] != "**";
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
    Walker w;
    std::vector<std::string_view> rel;
    w.walk(base, rel, group);
    if (!w.status.ok()) return w.status;
  }
  for (auto& j : jobs) std::sort(j.matches.begin(), j.matches.end());
  return {};
}

}  // namespace paddock
