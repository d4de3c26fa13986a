#include "platform/audit/audit.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "engine/builtin_lists.h"
#include "engine/json_text.h"
#include "engine/lexical_path.h"
#include "engine/review/classify.h"
#include "engine/review/git_config.h"
#include "engine/review/git_index.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/sessions.h"
#include "platform/unique_fd.h"
#include "platform/utc_time.h"

namespace paddock::platform {
namespace {

using review::Change;
using review::ChangeFacts;
using review::Classifier;
using review::EntryType;

// The classifier's rules that say what a host tool runs without the user asking for it. Review
// mode's others (a new executable, a symlink leaving the root, a removed ref) are about applying
// changes; in direct mode the project is the agent's to change.
const std::set<std::string>& direct_rules() {
  static const std::set<std::string> rules = {"tool-executed", "agent-config", "git-metadata",
                                              "nested-repository", "gitlink", "git-file"};
  return rules;
}

bool within(const std::string& p, const std::string& root) {
  return root == "/" || p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/');
}

std::string parent_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_name(const std::string& p) { return p.substr(p.rfind('/') + 1); }

// What the agent wrote, read on the host: no symlink anywhere in the path, bounded.
std::optional<std::string> read_agent_file(const std::string& path, std::size_t max, std::string* why = nullptr) {
  ReadOptions o;
  o.max_bytes = max;
  o.no_symlinks = true;
  auto r = read_file_if_exists(path, o);
  if (!r) {
    if (why) *why = r.error().message;
    return std::nullopt;
  }
  if (!*r) {
    if (why) *why = "no such file";
    return std::nullopt;
  }
  return std::move(**r);
}

constexpr std::size_t kMaxConfig = std::size_t{1} << 20;
constexpr std::size_t kMaxIndex = std::size_t{512} << 20;

// The command settings of the git config at path (facts.config_commands / config_problem).
void read_config_commands(const std::string& path, ChangeFacts& f) {
  std::string why;
  auto text = read_agent_file(path, kMaxConfig, &why);
  if (!text) {
    if (why != "no such file") f.config_problem = why;
    return;
  }
  const review::GitConfig c = review::parse_git_config(*text);
  f.config_commands = review::git_command_keys(c);
  if (!c.problem.empty()) f.config_problem = "not git config past " + c.problem;
}

// The directory a .git file's first line names ("gitdir: ../x"), absolute and lexically normal.
std::string gitdir_of(const std::string& gitfile) {
  auto text = read_agent_file(gitfile, 4096);
  if (!text) return "";
  std::string line = text->substr(0, text->find('\n'));
  if (line.rfind("gitdir:", 0) != 0) return "";
  line = line.substr(7);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.erase(line.begin());
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  if (line.empty()) return "";
  if (line[0] != '/') line = parent_of(gitfile) + "/" + line;
  return lexically_normal(line);
}

// What the repository at `repo` (a work tree's ".git", a directory or a file) runs: "" or words.
std::string repository_runs(const std::string& repo) {
  struct stat st {};
  if (::lstat(repo.c_str(), &st) != 0) return "";
  std::string git_dir = repo;
  if (S_ISREG(st.st_mode)) git_dir = gitdir_of(repo);
  else if (!S_ISDIR(st.st_mode)) return "";
  if (git_dir.empty()) return "";
  ChangeFacts f;
  read_config_commands(git_dir + "/config", f);
  if (!f.config_commands.empty()) return "its repository's config sets " + review::describe_command_keys(f.config_commands);
  if (!f.config_problem.empty()) return "its repository's config could not be read (" + f.config_problem + ")";
  return "";
}

// The gitlinks an index the session changed has and the one before the session had not.
void index_facts(const Change& c, const std::optional<std::string>& before, const std::string& unknown_why,
                 ChangeFacts& f) {
  std::string why;
  auto after = read_agent_file(c.path, kMaxIndex, &why);
  auto parsed = after ? review::parse_git_index(*after) : Result<std::vector<review::IndexEntry>>(bad_input(why));
  if (!parsed) {
    f.unreadable = parsed.error().message;
    return;
  }
  std::vector<review::IndexEntry> old;
  bool known = c.kind == review::ChangeKind::kAdded;  // a new index: all of its gitlinks are new
  if (before) {
    if (auto p = review::parse_git_index(*before)) {
      old = std::move(*p);
      known = true;
    }
  }
  f.added_gitlinks = review::added_gitlinks(old, *parsed);
  if (!known && !f.added_gitlinks.empty())
    f.gitlink_note = "which of these gitlinks the session added is unknown (" + unknown_why + "), so all are listed";
  // The work tree of a repository's own .git directory is the directory holding it.
  const auto [git_dir, rest] = Classifier::git_path(c.path);
  if (rest != "index" || base_name(git_dir) != ".git") return;
  const std::string tree = parent_of(git_dir);
  for (const auto& g : f.added_gitlinks)
    if (std::string runs = repository_runs(tree + "/" + g + "/.git"); !runs.empty())
      f.gitlink_note += (f.gitlink_note.empty() ? "" : "; ") + g + ": " + runs;
}

// `existed`: the path was there at the start (a preserved file): a new inode at its place is the
// file replaced by rename, git's and most editors' way of writing one, so a change.
Change to_change(const WalkEntry& e, bool existed) {
  Change c;
  c.path = e.path;
  c.root = e.root;
  const bool added = e.born && !existed;
  c.kind = added ? review::ChangeKind::kAdded : review::ChangeKind::kModified;
  c.after = {e.type, e.mode, e.stamp.size, {}};
  if (!added) c.before = {e.type, e.mode, e.stamp.size, {}};
  return c;
}

session::AuditFlag to_flag(const review::Flag& f) { return {f.rule, f.tool, f.why, f.source}; }

const char* type_word(EntryType t) {
  switch (t) {
    case EntryType::kFile: return "file";
    case EntryType::kDir: return "dir";
    case EntryType::kSymlink: return "symlink";
    case EntryType::kOther: return "other";
    case EntryType::kNone: return "none";
  }
  return "other";
}

std::string marker_of(const session::Layout& layout, const std::string& id) { return layout.audit_pending_dir() + "/" + id; }

}  // namespace

std::vector<std::string> direct_roots(const FrozenIr& ir) {
  std::vector<std::string> out;
  for (const auto& w : ir.fs.write_roots)
    if (std::find(ir.fs.review_roots.begin(), ir.fs.review_roots.end(), w) == ir.fs.review_roots.end()) out.push_back(w);
  return out;
}

Result<session::AuditRecord> audit_session(const AuditInputs& in) {
  const auto t0 = std::chrono::steady_clock::now();
  auto tool = load_builtin_list(in.resources_dir, "tool-executed");
  if (!tool) return tool.error();
  auto agent = load_builtin_list(in.resources_dir, "agent-config");
  if (!agent) return agent.error();

  session::AuditRecord out;
  out.session_id = in.session_id;
  out.by = in.by;
  const std::vector<std::string>& roots = in.start.roots;

  // What the session wrote: the helper's record, or a walk of the roots.
  std::vector<WalkEntry> changed;
  if (in.record && in.record->complete) {
    out.method = "fanotify";
    changed = in.record->changed;
    out.entries = static_cast<std::int64_t>(in.record->entries);
  } else {
    out.method = "walk";
    if (in.record)
      for (const auto& p : in.record->problems) out.problems.push_back("the session's own record is incomplete (" + p + "): walked instead");
    AuditWalkOptions o;
    o.since_ns = in.start.started_ns;
    o.budget = in.budget;
    // The agent could not write where a mask or a read-only bind was: a change there is not its.
    for (const auto& d : in.ir.fs.deny) o.skip.push_back(d.path);
    for (const auto& d : in.ir.fs.deny_write) o.skip.push_back(d.path);
    AuditWalkResult w = walk_changed(roots, o);
    changed = std::move(w.changed);
    out.entries = static_cast<std::int64_t>(w.visited);
    for (auto& p : w.problems) out.problems.push_back(std::move(p));
  }

  // Preserved files whose stamp is the one they had at the start did not change during the
  // session (their ctime fell in the start's margin).
  std::map<std::string, session::FileStamp> at_start;
  for (const auto& p : in.start.preserved) at_start.emplace(p.path, p.stamp);
  std::vector<Change> changes;
  changes.reserve(changed.size());
  for (const auto& e : changed) {
    // Directories that existed before are changed by whatever was added in them: the entries
    // themselves are the changes.
    if (e.type == EntryType::kDir && !e.born) continue;
    const auto it = at_start.find(e.path);
    if (it != at_start.end() && it->second == e.stamp) continue;
    changes.push_back(to_change(e, it != at_start.end()));
  }

  // What the files' bytes say.
  std::map<std::string, ChangeFacts> facts;
  std::set<std::string> watched;
  for (const auto& w : in.ir.fs.watched_configs) watched.insert(w.path);
  for (const auto& c : changes) {
    const auto [git_dir, rest] = Classifier::git_path(c.path);
    if (c.after.type == EntryType::kFile && Classifier::is_index(c.path)) {
      std::optional<std::string> before;
      std::string unknown = "its content before the session was not preserved";
      if (in.preserved) {
        if (auto it = in.preserved->find(c.path); it != in.preserved->end()) {
          if (!it->second.name.empty())
            before = read_agent_file(session::audit_dir(in.session_dir) + "/" + it->second.name, kMaxIndex);
          else
            unknown = it->second.note;
        }
      } else if (at_start.count(c.path)) {
        unknown = "the session's helper ended before it could save the index as it was";
      }
      index_facts(c, before, unknown, facts[c.path]);
    } else if (c.after.type == EntryType::kFile && (rest == "config" || rest == "config.worktree")) {
      read_config_commands(c.path, facts[c.path]);
    } else if (c.after.type == EntryType::kDir && c.kind == review::ChangeKind::kAdded && base_name(c.path) == ".git") {
      read_config_commands(c.path + "/config", facts[c.path]);
    } else if (c.after.type == EntryType::kFile && base_name(c.path) == ".git") {
      ChangeFacts& f = facts[c.path];
      f.gitdir_target = gitdir_of(c.path);
      if (!f.gitdir_target.empty()) read_config_commands(f.gitdir_target + "/config", f);
    }
    if (watched.count(c.path) && in.config_changes) {
      std::vector<std::string> keys;
      for (const auto& k : *in.config_changes)
        if (k.file == c.path) keys.push_back(k.key + " " + k.change);
      facts[c.path].agent_config_keys = std::move(keys);
    }
  }

  review::Classifier classifier({in.ir.meta.project, in.ir.meta.home, &*tool, &*agent});
  classifier.classify(changes, facts);

  // Only the rules of direct mode; a directory the session made that is itself a finding (a new
  // repository, a new .husky/) stands for everything found inside it.
  std::vector<const Change*> flagged;
  for (auto& c : changes) {
    c.flags.erase(std::remove_if(c.flags.begin(), c.flags.end(), [](const review::Flag& f) { return !direct_rules().count(f.rule); }),
                  c.flags.end());
    if (!c.flags.empty()) flagged.push_back(&c);
  }
  std::set<std::string> groups;
  for (const Change* c : flagged)
    if (c->after.type == EntryType::kDir && c->kind == review::ChangeKind::kAdded) groups.insert(c->path);
  std::map<std::string, session::AuditFinding> findings;
  std::vector<std::pair<const Change*, std::string>> folded;
  for (const Change* c : flagged) {
    std::string top;
    for (std::string p = parent_of(c->path); within(p, c->root) && p != c->root; p = parent_of(p))
      if (groups.count(p)) top = p;
    if (!top.empty()) {
      folded.emplace_back(c, top);
      continue;
    }
    session::AuditFinding f;
    f.path = c->path;
    f.kind = c->kind == review::ChangeKind::kAdded ? session::FindingKind::kAdded : session::FindingKind::kChanged;
    f.type = type_word(c->after.type);
    for (const auto& x : c->flags) f.flags.push_back(to_flag(x));
    if (auto e = std::lower_bound(changed.begin(), changed.end(), c->path,
                                  [](const WalkEntry& x, const std::string& p) { return x.path < p; });
        e != changed.end() && e->path == c->path)
      f.stamp = e->stamp;
    if (f.kind == session::FindingKind::kChanged && f.type == "file") {
      if (in.preserved) {
        if (auto it = in.preserved->find(c->path); it != in.preserved->end()) {
          f.previous = it->second.name;
          f.previous_note = it->second.note;
        }
      } else if (at_start.count(c->path)) {
        f.previous_note = "the session's helper ended before it could save the content before the session";
      }
      if (f.previous.empty() && f.previous_note.empty())
        f.previous_note = "not preserved: the audit keeps the content before the session of git's index, config and info/ "
                          "files and the agents' watched settings only; quarantine moves the changed file away";
    }
    findings.emplace(f.path, std::move(f));
  }
  for (const auto& [c, top] : folded) {
    auto it = findings.find(top);
    if (it == findings.end()) continue;
    ++it->second.inside;
    for (const auto& x : c->flags) {
      const bool have = std::any_of(it->second.flags.begin(), it->second.flags.end(),
                                    [&](const session::AuditFlag& y) { return y.rule == x.rule && y.source == x.source; });
      if (!have) it->second.flags.push_back(to_flag(x));
    }
  }
  for (auto& [p, f] : findings) out.findings.push_back(std::move(f));
  out.complete = out.problems.empty();
  out.audited = utc_timestamp();
  out.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

Status write_audit(const session::Layout& layout, const std::string& session_dir, const session::AuditRecord& record,
                   const std::string& project) {
  WriteOptions o;
  o.create_dirs = true;
  if (auto s = write_file_atomic(session::audit_file(session_dir), session::encode_audit(record), o); !s) return s;
  const LoadedAudit loaded = load_audit(session_dir);
  const std::string marker = marker_of(layout, record.session_id);
  if (loaded.pending() > 0) return write_file_atomic(marker, encode_json_text(project) + "\n", o);
  ::unlink(marker.c_str());
  return Status::Ok();
}

Status refresh_pending_marker(const session::Layout& layout, const std::string& session_dir, const std::string& id) {
  const LoadedAudit loaded = load_audit(session_dir);
  const std::string marker = marker_of(layout, id);
  if (loaded.pending() > 0 && loaded.start) {
    WriteOptions o;
    o.create_dirs = true;
    return write_file_atomic(marker, encode_json_text(loaded.start->project) + "\n", o);
  }
  ::unlink(marker.c_str());
  return Status::Ok();
}

LoadedAudit load_audit(const std::string& session_dir) {
  LoadedAudit out;
  ReadOptions o;
  o.max_bytes = std::size_t{64} << 20;
  o.no_follow = true;
  const auto read = [&](const std::string& path) -> std::optional<std::string> {
    auto r = read_file_if_exists(path, o);
    if (!r) {
      if (out.problem.empty()) out.problem = r.error().message;
      return std::nullopt;
    }
    return *r;
  };
  const auto note = [&](const Error& e) {
    if (out.problem.empty()) out.problem = e.message;
  };
  if (auto b = read(session::audit_start_file(session_dir))) {
    if (auto s = session::decode_audit_start(*b)) out.start = std::move(*s);
    else note(s.error());
  }
  if (auto b = read(session::audit_file(session_dir))) {
    if (auto a = session::decode_audit(*b)) out.record = std::move(*a);
    else note(a.error());
  }
  if (auto b = read(session::audit_state_file(session_dir))) {
    if (auto s = session::decode_audit_state(*b)) out.state = std::move(*s);
    else note(s.error());
  }
  if (auto b = read(session::audit_journal_file(session_dir))) {
    if (auto j = session::decode_quarantine_journal(*b)) out.journal = std::move(*j);
    else note(j.error());
  }
  return out;
}

UniqueFd try_lock_audit(const std::string& session_dir) {
  UniqueFd lock(::open(session::audit_lock_file(session_dir).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return UniqueFd();
  return lock;
}

Result<bool> audit_if_abandoned(const session::Layout& layout, const std::string& id, const std::string& resources_dir,
                                const std::string& by) {
  const std::string dir = layout.session_dir(id);
  struct stat st {};
  if (::lstat(session::audit_start_file(dir).c_str(), &st) != 0) return false;  // no direct roots, or nothing ran
  if (::lstat(session::audit_file(dir).c_str(), &st) == 0) return false;
  const session::SessionSummary summary = read_session_summary(layout, id);
  if (summary.state != session::SessionState::kAbandoned) return false;
  // One front end audits it; another that comes meanwhile leaves it to the first.
  UniqueFd lock = try_lock_audit(dir);
  if (!lock.valid()) return false;
  if (::lstat(session::audit_file(dir).c_str(), &st) == 0) return false;
  LoadedAudit loaded = load_audit(dir);
  session::AuditRecord failed;
  failed.session_id = id;
  failed.by = by;
  failed.method = "walk";
  failed.complete = false;
  failed.audited = utc_timestamp();
  if (!loaded.start) {
    failed.problems.push_back("audit/start.json does not read (" + loaded.problem + "): the session was not audited");
    if (auto s = write_audit(layout, dir, failed, ""); !s) return s.error();
    return true;
  }
  auto ir = read_session_ir(dir);
  if (!ir) {
    failed.problems.push_back("the session's ir.json does not read (" + ir.error().message + "): the session was not audited");
    if (auto s = write_audit(layout, dir, failed, loaded.start->project); !s) return s.error();
    return true;
  }
  AuditInputs in;
  in.session_id = id;
  in.session_dir = dir;
  in.ir = std::move(*ir);
  in.start = *loaded.start;
  in.resources_dir = resources_dir;
  in.by = by;
  auto record = audit_session(in);
  if (!record) return record.error();
  if (auto s = write_audit(layout, dir, *record, loaded.start->project); !s) return s.error();
  return true;
}

std::vector<PendingAudit> pending_audits_of(const session::Layout& layout, const std::string& project) {
  std::vector<PendingAudit> out;
  DIR* d = ::opendir(layout.audit_pending_dir().c_str());
  if (!d) return out;
  std::vector<std::string> ids;
  while (dirent* e = ::readdir(d))
    if (session::valid_session_id(e->d_name)) ids.push_back(e->d_name);
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  ReadOptions o;
  o.max_bytes = 1 << 16;
  o.no_follow = true;
  for (const auto& id : ids) {
    auto text = read_file(marker_of(layout, id), o);
    if (!text) continue;
    std::string line = text->substr(0, text->find('\n'));
    auto p = decode_json_text(line);
    if (!p || *p != project) continue;
    const LoadedAudit a = load_audit(layout.session_dir(id));
    struct stat st {};
    if (::lstat(layout.session_dir(id).c_str(), &st) != 0 || (a.record && a.pending() == 0)) {
      ::unlink(marker_of(layout, id).c_str());  // pruned, or decided meanwhile
      continue;
    }
    out.push_back({id, a.pending()});
  }
  return out;
}

}  // namespace paddock::platform
