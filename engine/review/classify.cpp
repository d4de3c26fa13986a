#include "engine/review/classify.h"

#include <algorithm>
#include <set>

#include "engine/glob.h"

namespace paddock::review {
namespace {

bool within(const std::string& path, const std::string& root) {
  return root == "/" || path == root ||
         (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

std::string base_name(const std::string& p) { return p.substr(p.rfind('/') + 1); }

std::string parent_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

// The innermost ".git" component of path: ("/p/.git", "objects/ab/cd") for "/p/.git/objects/ab/cd",
// ("/p/.git", "") for "/p/.git" itself; empty when the path is in no .git directory.
std::pair<std::string, std::string> git_dir_of(const std::string& path) {
  std::size_t at = std::string::npos;
  for (std::size_t i = path.find("/.git"); i != std::string::npos; i = path.find("/.git", i + 1))
    if (i + 5 == path.size() || path[i + 5] == '/') at = i;
  if (at == std::string::npos) return {};
  const std::string dir = path.substr(0, at + 5);
  return {dir, at + 5 == path.size() ? std::string() : path.substr(at + 6)};
}

bool hex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// objects/ab/<38 or 62 hex> or objects/pack/pack-<hex>.<ext>
bool is_object_file(const std::string& rest) {
  if (rest.size() > 11 && rest.compare(0, 8, "objects/") == 0) {
    const std::string tail = rest.substr(8);
    if (tail.size() > 3 && tail[2] == '/' && hex(tail.substr(0, 2)) && hex(tail.substr(3)) &&
        (tail.size() == 3 + 38 || tail.size() == 3 + 62))
      return true;
    if (tail.rfind("pack/pack-", 0) == 0) {
      const std::string name = tail.substr(10);
      const auto dot = name.find('.');
      const std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
      return dot != std::string::npos && hex(name.substr(0, dot)) &&
             (ext == "pack" || ext == "idx" || ext == "rev" || ext == "bitmap" || ext == "mtimes" || ext == "promisor");
    }
  }
  return false;
}

const std::set<std::string>& bookkeeping_files() {
  static const std::set<std::string> files = {"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD",
                                              "REVERT_HEAD", "AUTO_MERGE", "COMMIT_EDITMSG", "MERGE_MSG",
                                              "MERGE_MODE", "SQUASH_MSG", "TAG_EDITMSG", "packed-refs", "index"};
  return files;
}

// Why git metadata other than objects, refs and bookkeeping needs its own confirmation.
std::string metadata_why(const std::string& rest) {
  const auto under = [&](const char* dir) { return rest == dir || rest.rfind(std::string(dir) + "/", 0) == 0; };
  if (rest == "config" || rest == "config.worktree")
    return "git's configuration names programs git runs on its own: core.fsmonitor on every git status, "
           "core.hooksPath, core.pager, core.sshCommand, aliases, filters and credential helpers";
  if (under("hooks")) return "git runs hooks on commit, checkout, merge, rebase and push";
  if (under("info"))
    return "info/attributes chooses filters and diff drivers for files, info/exclude what git shows; "
           "both change what your git does in this repository";
  if (under("modules")) return "a submodule's repository: git runs its config's and hooks' programs when it enters it";
  if (under("worktrees")) return "a linked worktree's metadata: where git finds its repository, HEAD and config";
  if (rest == "objects/info/alternates" || rest == "objects/info/http-alternates")
    return "makes git read objects from another directory or URL";
  if (under("rebase-merge") || under("rebase-apply") || under("sequencer"))
    return "an operation in progress: its todo list can hold exec lines that git runs when you continue it";
  return "git reads this from the repository's metadata; only new objects, moved refs, the index, reflogs and "
         "HEAD are applied without a confirmation of their own";
}

}  // namespace

GitRole Classifier::git_role(const std::string& path, ChangeKind kind) {
  const auto [dir, rest] = git_dir_of(path);
  if (dir.empty()) return GitRole::kNone;
  if (rest.empty()) return GitRole::kMetadata;
  const bool removed = kind == ChangeKind::kDeleted;
  if (rest.rfind("objects/", 0) == 0) {
    if (removed || kind == ChangeKind::kModified) return GitRole::kMetadata;
    if (is_object_file(rest)) return GitRole::kObject;
    if (rest == "objects/info/alternates" || rest == "objects/info/http-alternates") return GitRole::kMetadata;
    return GitRole::kBookkeeping;  // commit-graph, multi-pack-index, info/packs: indexes of the objects
  }
  if (rest.rfind("refs/", 0) == 0) return removed ? GitRole::kMetadata : GitRole::kRef;
  if (rest.rfind("logs/", 0) == 0) return GitRole::kBookkeeping;
  if (bookkeeping_files().count(rest)) return GitRole::kBookkeeping;
  return GitRole::kMetadata;
}

Classifier::Classifier(ClassifyContext ctx) : ctx_(std::move(ctx)) {
  const auto expand = [&](std::string p) {
    if (p.rfind("$PROJECT", 0) == 0) p = ctx_.project + p.substr(8);
    else if (p.rfind("$HOME", 0) == 0) p = ctx_.home + p.substr(5);
    else if (p.rfind("~/", 0) == 0) p = ctx_.home + p.substr(1);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  };
  for (const auto* list : {ctx_.tool_executed, ctx_.agent_config}) {
    if (!list) continue;
    const std::string rule = list == ctx_.tool_executed ? "tool-executed" : "agent-config";
    for (const auto& e : list->entries)
      for (const auto& p : e.paths) {
        // Only the lists' own variables: a pattern naming another one matches nothing.
        const std::string g = expand(p.text);
        if (g.empty() || g[0] != '/') continue;
        patterns_.push_back({g, glob_split(g), p.text, rule, e.why});
      }
  }
  for (std::size_t i = 0; i < patterns_.size(); ++i) {
    const std::string tail = base_name(patterns_[i].glob);
    if (has_glob(tail)) glob_tails_.push_back(i);
    else by_tail_[tail].push_back(i);
  }
}

std::vector<Flag> Classifier::flags_of(const Change& c, const ChangeFacts* facts, const std::string& new_repository) const {
  std::vector<Flag> out;
  const auto add = [&](std::string rule, std::string why, std::string source = {}) {
    for (const auto& f : out)
      if (f.rule == rule && f.source == source) return;
    out.push_back({std::move(rule), std::move(why), std::move(source)});
  };
  const auto [git_dir, rest] = git_dir_of(c.path);
  if (!new_repository.empty()) {
    add("nested-repository",
        "a new git repository (" + new_repository +
            "): git, and every tool that runs it for you (a shell prompt, an editor), reads its config and hooks, "
            "which can name programs to run");
  } else if (!git_dir.empty() && rest.empty()) {
    if (c.after.type == EntryType::kFile)
      add("git-file", "a .git file sends git to another directory (gitdir:), whose config and hooks git then runs");
    else if (c.kind == ChangeKind::kDeleted)
      add("removes-history", "removes a repository's metadata: its history, branches and stashes, unless pushed elsewhere");
    else if (c.after.type != EntryType::kDir)
      add("git-metadata", "a .git entry that is neither a directory nor a gitdir file");
  } else if (!git_dir.empty()) {
    const GitRole role = git_role(c.path, c.kind);
    if (role == GitRole::kMetadata) {
      if (c.kind == ChangeKind::kDeleted && rest.rfind("refs/", 0) == 0)
        add("removes-history", "deletes the ref " + rest + " from the repository");
      else if (rest.rfind("objects/", 0) == 0 && c.kind != ChangeKind::kAdded && rest.rfind("objects/info/", 0) != 0)
        add("removes-history", "removes or rewrites git objects the repository may still need");
      else
        add("git-metadata", metadata_why(rest));
    }
    if (rest == "index" && facts) {
      if (!facts->unreadable.empty())
        add("gitlink", "the index could not be read (" + facts->unreadable + "), so whether it adds a gitlink is unknown");
      else if (!facts->added_gitlinks.empty()) {
        std::string list;
        for (const auto& g : facts->added_gitlinks) list += (list.empty() ? "" : ", ") + g;
        add("gitlink", "the index gains a gitlink (" + list +
                           "): git status then enters that directory as a submodule and runs what its repository's "
                           "config names (core.fsmonitor)");
      }
    }
  }
  // The lists: the path, or a directory it is in, matches an entry.
  for (std::string_view p = c.path; p.size() > 1;) {
    const std::size_t slash = p.rfind('/');
    const std::string_view name = p.substr(slash + 1);
    const auto try_pattern = [&](std::size_t i) {
      const Pattern& pat = patterns_[i];
      if (glob_match_split(pat.segments, p)) add(pat.rule, pat.why, pat.source);
    };
    if (auto it = by_tail_.find(name); it != by_tail_.end())
      for (std::size_t i : it->second) try_pattern(i);
    for (std::size_t i : glob_tails_) try_pattern(i);
    if (!c.root.empty() && p == c.root) break;
    p = slash == 0 ? std::string_view("/") : p.substr(0, slash);
  }
  if (c.after.type == EntryType::kFile && (c.after.mode & 0111) != 0 &&
      (c.before.type != EntryType::kFile || (c.before.mode & 0111) == 0) && git_dir.empty())
    add("new-executable", "a file that becomes executable: a tool, hook or script on the host may run it");
  if (c.after.type == EntryType::kSymlink) {
    const std::string& t = c.after.target;
    std::string resolved = t.empty() || t[0] == '/' ? t : parent_of(c.path) + "/" + t;
    // Lexically: "." and ".." as written, never through the file system.
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < resolved.size();) {
      std::size_t j = resolved.find('/', i);
      if (j == std::string::npos) j = resolved.size();
      const std::string seg = resolved.substr(i, j - i);
      if (seg == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!seg.empty() && seg != ".") {
        parts.push_back(seg);
      }
      i = j + 1;
    }
    std::string norm;
    for (const auto& s : parts) norm += "/" + s;
    if (norm.empty()) norm = "/";
    if (t.empty() || c.root.empty() || !within(norm, c.root))
      add("symlink-outside", "a symlink to " + t + ", outside " + (c.root.empty() ? "the project" : c.root) +
                                 ": a tool that follows it reads or writes there");
  }
  if (c.after.type == EntryType::kOther)
    add("special-file", "a device, FIFO or socket: review mode does not make these on the host");
  return out;
}

void Classifier::classify(std::vector<Change>& changes, const std::map<std::string, ChangeFacts>& facts) const {
  std::set<std::string> new_repos;
  for (const auto& c : changes)
    if (c.kind == ChangeKind::kAdded && c.after.type == EntryType::kDir && base_name(c.path) == ".git")
      new_repos.insert(c.path);
  for (auto& c : changes) {
    c.git = git_role(c.path, c.kind);
    std::string repo;
    // The innermost .git around the path, and those around it: a change inside a new repository
    // anywhere up the path is a change of that repository.
    for (std::string p = c.path; p.size() > 1; p = parent_of(p))
      if (new_repos.count(p)) repo = p;
    const auto f = facts.find(c.path);
    c.flags = flags_of(c, f == facts.end() ? nullptr : &f->second, repo);
  }
}

}  // namespace paddock::review
