// The git half of the builder: every repository a write root holds keeps what git on the host
// reads to decide which commands it runs and where it reads from (docs/trust-posture.md, "Git's
// own configuration is read-only"), resolved the way git resolves it; and a project that is a
// linked worktree gets the parts of its common repository git writes to.
#include <algorithm>
#include <deque>
#include <filesystem>
#include <functional>
#include <set>
#include <system_error>

#include "engine/ir_builder.h"

namespace paddock {
namespace fs = std::filesystem;
using ir_paths::canonical;
using ir_paths::kind_of;

namespace {

// Git reads a ".git" file only up to 16 KiB (larger is "too large", not a repository) and takes
// `commondir` whole; a prefix this long holds every pointer git would follow.
constexpr std::size_t kGitPointerMax = 65536;
// Symlinks followed in one resolution before it counts as a loop (the kernel's own limit).
constexpr int kMaxLinks = 40;

// The names in a git directory that decide what git runs or where it reads from: its config and
// the per-worktree config, the pointer to the common directory (and a worktree's pointer back to
// its checkout), the hooks, and info/ (attributes, excludes that hide files from `git status`,
// sparse-checkout, grafts). An absent one is kept absent: a placeholder directory for hooks and
// info, an empty file for the configs and `gitdir`, and for `commondir`, which git reads as an
// error when it is empty, a file naming the git dir itself ("."), which is what its absence means.
struct GitName {
  const char* name;
  PathKind absent;
};
constexpr GitName kGitNames[] = {{"config", PathKind::kAbsent},           {"config.worktree", PathKind::kAbsent},
                                 {"commondir", PathKind::kAbsentPointer}, {"gitdir", PathKind::kAbsent},
                                 {"hooks", PathKind::kAbsentDir},         {"info", PathKind::kAbsentDir}};

std::string dirname(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
}

std::string strip_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// POSIX shell single quoting, for the command a warning gives.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::deque<std::string> components(const std::string& p) {
  std::deque<std::string> out;
  std::size_t i = 0;
  while (i < p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (j > i) out.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace

// A path resolved as the kernel (and so git) resolves it: component by component, each symlink
// read and followed before any ".." after it. What is left when a component does not exist is
// appended as it is written.
IrBuilder::Physical IrBuilder::resolve_physical(const std::string& path) const {
  Physical r;
  std::deque<std::string> todo = components(path);
  std::string cur;  // "" stands for "/"
  int hops = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      cur = cur.empty() ? cur : dirname(cur);
      if (cur == "/") cur.clear();
      continue;
    }
    const std::string next = cur + "/" + c;
    std::error_code ec;
    const auto st = ctx_.paths->symlink_status(next, ec);
    if (st.type() == fs::file_type::symlink) {
      if (++hops > kMaxLinks) {
        r.loop = true;
        r.path = next;
        return r;
      }
      r.links.push_back(next);
      const std::string target = fs::read_symlink(next, ec).string();
      if (ec || target.empty()) {
        r.loop = true;  // unreadable: as good as a loop, it leads nowhere known
        r.path = next;
        return r;
      }
      std::deque<std::string> more = components(target);
      todo.insert(todo.begin(), more.begin(), more.end());
      if (target[0] == '/') cur.clear();
      continue;
    }
    if (ec || st.type() == fs::file_type::not_found || (!todo.empty() && st.type() != fs::file_type::directory)) {
      // Absent (or below a non-directory): the rest as written, ".." taken lexically.
      std::string rest = next;
      for (const auto& t : todo) rest += "/" + t;
      r.path = fs::path(rest).lexically_normal().string();
      while (r.path.size() > 1 && r.path.back() == '/') r.path.pop_back();
      r.exists = false;
      return r;
    }
    cur = next;
  }
  r.path = cur.empty() ? "/" : cur;
  r.exists = true;
  return r;
}

void IrBuilder::add_git_metadata() {
  // What git on the host runs from a repository: its config (core.fsmonitor, core.hooksPath,
  // filters, pagers, credential helpers...), per-worktree config and hooks, and the pointers
  // that tell it where to read those from. The agent may write objects, refs and the index,
  // never these; the directories above them are pinned by the view, so that a renamed .git
  // cannot be replaced by a planted one (docs/trust-posture.md).
  auto writable = [&](const std::string& p) {
    return std::any_of(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(),
                       [&](const std::string& w) { return path_within(p, w) && p != w; });
  };
  auto holds_write_root = [&](const std::string& p) {
    return std::any_of(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(),
                       [&](const std::string& w) { return path_within(w, p); });
  };
  auto protect_into = [&](std::vector<DenyEntry>& into, const std::string& p, PathKind kind) {
    if (writable(p)) into.push_back({p, kind});
  };
  auto commit = [&](const std::vector<DenyEntry>& list, const std::string& why) {
    for (const auto& d : list) {
      ir_.fs.deny_write.push_back(d);
      prov_.add_raw(prov_key<&IrFs::deny_write>(d.path), Contribution{"invariant", "builtin:git-metadata", "added", why});
    }
  };
  // Where git goes from `path` (a name it reads, or a pointer's text made absolute), fixed for
  // the session: every symlink on the way that lies where the session could write is kept as it
  // is; a path that does not exist yet is kept absent (`kind`), so that the agent cannot create
  // what git would read there; what exists is protected too where `protect` (a name git reads:
  // hooks, a config), not where it is a git dir the caller walks into (a pointer's target). ""
  // where it leads nowhere (a loop), or where it leads to a directory that holds a write root,
  // which cannot be protected without closing that root: then `unsafe` says so.
  auto follow = [&](const std::string& path, PathKind kind, std::vector<DenyEntry>& into, std::string& unsafe,
                    bool protect) -> std::string {
    const Physical r = resolve_physical(path);
    for (const auto& l : r.links) protect_into(into, l, PathKind::kSymlink);
    if (r.loop) return "";  // every link of the loop is kept: it leads nowhere, now and later
    if (!r.exists) {
      protect_into(into, r.path, is_absent(kind) ? kind : PathKind::kAbsent);
      return "";
    }
    if (holds_write_root(r.path)) {
      if (r.path != path) unsafe = path + " leads to " + r.path + ", which the session can write";
      return r.path;
    }
    if (protect) protect_into(into, r.path, kind_of(*ctx_.paths, r.path));
    return r.path;
  };
  std::set<std::string> seen;
  std::function<void(const std::string&, int)> git_dir = [&](const std::string& g, int depth) {
    if (depth > 8 || !seen.insert(g).second || kind_of(*ctx_.paths, g) != PathKind::kDir) return;
    std::vector<DenyEntry> mine;
    std::string unsafe, unsafe_link;
    std::vector<std::string> common;
    for (const auto& [name, absent] : kGitNames) {
      const std::string p = g + "/" + name;
      PathKind k = kind_of(*ctx_.paths, p);
      if (k == PathKind::kAbsent) {
        protect_into(mine, p, absent);
        continue;
      }
      std::string target = p;
      if (k == PathKind::kSymlink) {
        std::string why;
        target = follow(p, absent, mine, why, /*protect=*/true);
        if (!why.empty() && unsafe.empty()) {
          unsafe = why;
          unsafe_link = p;
        }
      } else {
        protect_into(mine, p, k);
      }
      // A linked worktree's git dir names the repository's common dir, whose config and hooks
      // apply too (setup.c, get_common_dir_noenv: the whole file without its trailing line ends,
      // relative to the git dir, resolved physically; the first line is taken too).
      if (std::string(name) != "commondir" || target.empty()) continue;
      auto text = read_regular(ctx_.lister.get(), target, kGitPointerMax);
      if (!text.ok() || !*text) continue;
      const std::string c = strip_trailing_newlines(**text);
      for (const std::string& v : {c, c.substr(0, c.find('\n'))}) {
        if (v.empty() || v.find('\0') != std::string::npos) continue;
        std::string why;
        const std::string t = follow(v[0] == '/' ? v : g + "/" + v, PathKind::kAbsentDir, mine, why, /*protect=*/false);
        if (!why.empty()) warn("git metadata: the common directory named in " + target + ": " + why);
        if (!t.empty()) common.push_back(t);
      }
    }
    if (unsafe.empty()) {
      commit(mine, "git metadata of " + g);
    } else {
      // Not to be held name by name: the whole git directory is read-only for the session, and
      // the warning says what was found and how to put it right.
      std::vector<DenyEntry> whole;
      protect_into(whole, g, PathKind::kDir);
      commit(whole, "git directory " + g + " is read-only: " + unsafe);
      warn("git metadata: " + unsafe + "; git on your machine follows it. The repository's git directory " + g +
           " is read-only in this session. To fix it: rm -- " + sh_quote(unsafe_link));
    }
    for (const auto& c : common) git_dir(c, depth + 1);
    // Submodules keep their git dirs under modules/ (names may contain '/'), and linked
    // worktrees theirs under worktrees/.
    for (const char* sub : {"/modules", "/worktrees"}) {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(g + sub, ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() > 6) {
          it.disable_recursion_pending();
          continue;
        }
        std::error_code e2;
        if (!it->is_directory(e2) || it->is_symlink(e2)) continue;
        if (fs::exists(fs::symlink_status(it->path() / "HEAD", e2))) {
          git_dir(it->path().string(), depth + 1);
          it.disable_recursion_pending();
        }
      }
    }
  };
  // A ".git" that is not a directory: a file git reads the real git dir's path from (a worktree
  // or submodule checkout), or a symlink it follows to a directory or such a file.
  auto git_entry = [&](const std::string& e, bool workspace_top) {
    const PathKind k = kind_of(*ctx_.paths, e);
    if (k == PathKind::kDir) {
      git_dir(e, 0);
      return;
    }
    if (is_absent(k)) {
      // No repository at the top of the project (or of another directory the session may
      // write): the agent may not make one there, as git on the host would run its config from
      // then on (a placeholder keeps the name for the session).
      if (!workspace_top) return;
      std::vector<DenyEntry> one;
      protect_into(one, e, PathKind::kAbsentDir);
      commit(one, "no repository at the top of " + dirname(e) + ": the agent may not create one");
      return;
    }
    std::vector<DenyEntry> mine;
    protect_into(mine, e, k);
    std::string unsafe;
    std::string file = e;
    if (k == PathKind::kSymlink) {
      file = follow(e, PathKind::kAbsentDir, mine, unsafe, /*protect=*/false);
      // A link to a ".git" file: that file is the pointer, kept as it is.
      if (!file.empty() && kind_of(*ctx_.paths, file) == PathKind::kFile) protect_into(mine, file, PathKind::kFile);
    }
    commit(mine, k == PathKind::kSymlink ? "a .git symlink, which git follows" : "git file of a worktree or submodule");
    // A link to a directory that holds a write root (`.git -> ..`): git takes it for a git
    // directory once it holds one, so what git reads there is kept as in any git directory.
    if (!unsafe.empty())
      warn("git metadata: " + unsafe + "; git on your machine follows it. To fix it: rm -- " + sh_quote(e));
    if (file.empty()) return;
    if (kind_of(*ctx_.paths, file) == PathKind::kDir) {
      git_dir(file, 0);
      return;
    }
    // The file's text, bounded and never waited on (a FIFO here is just not a repository):
    // "gitdir: " and the rest without its trailing line ends (setup.c, read_gitfile_gently),
    // relative to the directory of the ".git" as named, resolved physically ("hop/../gd" with hop
    // a symlink is the parent of hop's target). The first line, read leniently, is taken too.
    auto text = read_regular(ctx_.lister.get(), file, kGitPointerMax);
    if (!text.ok() || !*text) return;
    std::vector<std::string> values;
    const std::string exact = strip_trailing_newlines(**text);
    if (exact.rfind("gitdir: ", 0) == 0 && exact.size() > 8) values.push_back(exact.substr(8));
    if (exact.rfind("gitdir:", 0) == 0) {
      std::string v = exact.substr(7, exact.find('\n') == std::string::npos ? std::string::npos : exact.find('\n') - 7);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(v.begin());
      while (!v.empty() && (v.back() == '\r' || v.back() == ' ' || v.back() == '\t')) v.pop_back();
      if (!v.empty()) values.push_back(v);
    }
    std::vector<DenyEntry> links;
    for (const auto& v : values) {
      if (v.find('\0') != std::string::npos) continue;
      std::string why;
      const std::string t =
          follow(v[0] == '/' ? v : dirname(e) + "/" + v, PathKind::kAbsentDir, links, why, /*protect=*/false);
      if (!why.empty())
        warn("git metadata: the pointer in " + e + ": " + why + "; git on your machine follows it. To fix it: rm -- " +
             sh_quote(e));
      if (!t.empty()) git_dir(t, 0);
    }
    commit(links, "a symlink on the way of the git file " + e);
  };
  std::set<std::string> tops;
  tops.insert(ctx_.project + "/.git");
  for (const auto& w : workspace_roots_) tops.insert(w + "/.git");
  std::vector<std::string> all = nested_git_;
  for (const auto& w : ir_.fs.write_roots) all.push_back(w + "/.git");
  all.insert(all.end(), tops.begin(), tops.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (const auto& e : all) git_entry(e, tops.count(e) > 0);
}

// A project that is a linked worktree (`git worktree add`): its ".git" file names
// <common>/worktrees/<id>, which names its common repository in `commondir` and points back to
// the project's ".git" in `gitdir`. Git in the project writes its index and HEAD in the former,
// its objects, refs and reflogs in the latter, and reads the common config and hooks: those are
// granted (write: the worktree's own git dir, objects/, refs/, logs/; read: the rest of the
// common repository), and add_git_metadata keeps what git runs read-only as it does in the
// project's own .git. Only for the project's own top-level ".git", and only where the pointers
// agree both ways, so that a planted pointer cannot widen a session; not under the system's
// lockdown, which nothing may widen.
void IrBuilder::add_worktree_grants() {
  if (locked_) return;
  const std::string dotgit = ctx_.project + "/.git";
  if (kind_of(*ctx_.paths, dotgit) != PathKind::kFile) return;
  auto pointer = [&](const std::string& file) -> std::string {
    auto text = read_regular(ctx_.lister.get(), file, kGitPointerMax, /*prefix=*/true, /*follow=*/false);
    if (!text.ok() || !*text) return "";
    std::string v = strip_trailing_newlines(**text);
    return v.find('\0') == std::string::npos ? v : "";
  };
  auto absolute = [](const std::string& v, const std::string& base) { return v[0] == '/' ? v : base + "/" + v; };
  std::string v = pointer(dotgit);
  if (v.rfind("gitdir: ", 0) != 0 || v.size() == 8) return;
  const Physical wt = resolve_physical(absolute(v.substr(8), ctx_.project));
  const std::string back = pointer(wt.path + "/gitdir");
  const std::string c = pointer(wt.path + "/commondir");
  if (!wt.exists || back.empty() || c.empty() || resolve_physical(absolute(back, wt.path)).path != dotgit) return;
  const Physical common = resolve_physical(absolute(c, wt.path));
  if (!common.exists || dirname(wt.path) != common.path + "/worktrees" ||
      kind_of(*ctx_.paths, common.path + "/objects") != PathKind::kDir ||
      kind_of(*ctx_.paths, common.path + "/refs") != PathKind::kDir || kind_of(*ctx_.paths, wt.path) != PathKind::kDir)
    return;
  const Origin at{"invariant", "builtin:git-worktree", "the project is a linked worktree of " + common.path, 0, 0};
  auto grant = [&](const std::string& p, PathUse use) {
    if (kind_of(*ctx_.paths, p) != PathKind::kDir) return;
    paths_.push_back({Item{glob_escape(p), at}, use, {}, {}, false, {}});
  };
  grant(common.path, PathUse::kRead);
  grant(wt.path, PathUse::kWrite);
  for (const char* sub : {"/objects", "/refs", "/logs"}) grant(common.path + sub, PathUse::kWrite);
}

}  // namespace paddock
