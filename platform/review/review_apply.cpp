#include "platform/review/review_apply.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <map>
#include <set>
#include <tuple>

#include "platform/atomic_file.h"
#include "platform/remove_tree.h"
#include "platform/unique_fd.h"
#include "platform/utc_time.h"

namespace paddock::platform {
namespace {

using review::Change;
using review::ChangeKind;
using review::EntryType;

std::string utc_now() { return utc_timestamp(); }

// Every path the apply touches is opened from its write root (or the session's upper layer) one
// component at a time, never through a symlink and never above the root: a directory of the
// project that another session turned into a symlink cannot send a write elsewhere.
int open_beneath(int dirfd, const std::string& rel, int flags) {
  if (rel.empty()) return ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how));
}

std::int64_t ctime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}
session::FileStamp stamp_of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size), ctime_ns(st)};
}

std::string parent_rel(const std::string& rel) {
  const auto slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}
std::string base_name(const std::string& rel) { return rel.substr(rel.rfind('/') + 1); }

// One write root's apply: directory descriptors held by relative path.
class RootFs {
 public:
  Status open(const std::string& root, const std::string& upper) {
    root_.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
    if (!root_.valid()) return refused("cannot open the write root " + root + ": " + std::strerror(errno));
    upper_.reset(::open(upper.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
    if (!upper_.valid()) return refused("cannot open the session's layer " + upper + ": " + std::strerror(errno));
    sync_.reset(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
    return Status::Ok();
  }
  // The host directory at rel (held; -1 when it does not exist or is not a plain directory).
  int dir(const std::string& rel) {
    auto it = dirs_.find(rel);
    if (it != dirs_.end()) return it->second.get();
    UniqueFd fd(open_beneath(root_.get(), rel, O_PATH | O_DIRECTORY));
    const int raw = fd.get();
    if (fd.valid()) dirs_.emplace(rel, std::move(fd));
    return raw;
  }
  void forget(const std::string& rel) {
    for (auto it = dirs_.begin(); it != dirs_.end();)
      it = (it->first == rel || it->first.rfind(rel + "/", 0) == 0) ? dirs_.erase(it) : std::next(it);
  }
  int upper() const { return upper_.get(); }
  int sync_fd() const { return sync_.valid() ? sync_.get() : root_.get(); }

 private:
  UniqueFd root_, upper_, sync_;
  std::map<std::string, UniqueFd> dirs_;
};

// The host entry at rel is still what the walk saw (absent when it saw none). A directory is the
// same directory while its inode is: its times move with every entry made or removed in it, this
// apply's own included, and what it holds is checked entry by entry.
bool unchanged(int parent, const std::string& name, const std::optional<session::FileStamp>& seen) {
  struct stat st {};
  if (parent < 0 || ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return !seen;
  if (!seen) return false;
  if (S_ISDIR(st.st_mode)) return static_cast<std::uint64_t>(st.st_ino) == seen->ino;
  return stamp_of(st) == *seen;
}

struct StampLess {
  bool operator()(const session::FileStamp& a, const session::FileStamp& b) const {
    return std::tie(a.ino, a.size, a.ctime_ns) < std::tie(b.ino, b.size, b.ctime_ns);
  }
};
// A session file's stamp before and after this apply removed a temporary linked to it.
using Restamped = std::map<session::FileStamp, session::FileStamp, StampLess>;

struct Op {
  const Change* c = nullptr;
  RootFs* fs = nullptr;
  std::string rel;   // of c->path below its root
  std::string tmp;   // staged temporary's name in the parent ("" = none)
  bool staged = false;
  bool failed = false;
};

class Applier {
 public:
  Applier(const ReviewSession& s, ReviewOutcome& out, ApplyProgress progress, bool link, Restamped restamped)
      : s_(s), out_(out), progress_(progress), restamped_(std::move(restamped)), link_(link) {}

  Status run(std::vector<const Change*> changes) {
    if (changes.empty()) return Status::Ok();
    for (const auto* c : changes) {
      const auto* root = s_.root_of(c->path);
      if (!root) {
        skip(*c, "in no review root of the session");
        continue;
      }
      auto& fs = fs_[root->index];
      if (!fs) {
        fs = std::make_unique<RootFs>();
        if (auto st = fs->open(root->root, session::review_upper(s_.dir, root->index)); !st) return st;
      }
      Op op;
      op.c = c;
      op.fs = fs.get();
      op.rel = c->path == root->root ? "" : c->path.substr(root->root == "/" ? 1 : root->root.size() + 1);
      if (op.rel.empty()) {
        skip(*c, "the write root itself");
        continue;
      }
      if (c->after.type == EntryType::kOther) {
        skip(*c, "a device, FIFO or socket: review mode does not make these on the host");
        continue;
      }
      ops_.push_back(std::move(op));
    }
    // Temporaries: one per file or symlink, beside its target, named from this apply's start.
    const std::string token = std::to_string(::getpid()) + "-" + std::to_string(::time(nullptr));
    session::ApplyJournal journal;
    journal.started = utc_now();
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      Op& op = ops_[i];
      journal.paths.push_back(op.c->path);
      if (!op.c->renamed_from.empty()) journal.paths.push_back(op.c->renamed_from);
      if (op.c->after.type == EntryType::kFile || op.c->after.type == EntryType::kSymlink) {
        op.tmp = "." + base_name(op.rel) + ".paddock-apply-" + token + "-" + std::to_string(i);
        journal.temps.push_back(op.c->path.substr(0, op.c->path.rfind('/') + 1) + op.tmp);
      }
    }
    if (auto st = write_file_atomic(session::review_journal_file(s_.dir), session::encode_apply_journal(journal)); !st.ok())
      return st;
    // Stage what can be staged now (its directory exists), then make it durable at once.
    for (Op& op : ops_)
      if (!op.tmp.empty()) stage(op, /*deferred=*/false);
    if (auto st = sync_all(); !st) return abort_staged(st.error());
    // Deletions, deepest first.
    std::vector<Op*> order;
    for (Op& op : ops_) order.push_back(&op);
    std::sort(order.begin(), order.end(), [](const Op* a, const Op* b) { return a->rel > b->rel; });
    for (Op* op : order)
      if (op->c->kind == ChangeKind::kDeleted) remove_entry(*op, op->c->host_stamp);
    // New directories, shallowest first; an entry of another kind in their place goes first.
    std::reverse(order.begin(), order.end());
    for (Op* op : order)
      if (op->c->kind != ChangeKind::kDeleted && op->c->after.type == EntryType::kDir && op->c->before.type != EntryType::kDir)
        make_dir(*op);
    // What could not be staged before its directory existed.
    bool late = false;
    for (Op& op : ops_)
      if (!op.tmp.empty() && !op.staged && !op.failed) late = stage(op, /*deferred=*/true) || late;
    if (late)
      if (auto st = sync_all(); !st) return abort_staged(st.error());
    // Files and symlinks into place: objects first, refs last, so that no ref names a missing
    // object even if this is interrupted.
    std::stable_sort(order.begin(), order.end(), [](const Op* a, const Op* b) {
      const auto rank = [](const Op* o) {
        return o->c->git == review::GitRole::kObject ? 0 : o->c->git == review::GitRole::kRef ? 2 : 1;
      };
      return rank(a) < rank(b);
    });
    for (Op* op : order)
      if (op->staged && !op->failed) commit(*op);
    // Directory modes last, deepest first (a read-only directory can still receive its entries).
    std::sort(order.begin(), order.end(), [](const Op* a, const Op* b) { return a->rel > b->rel; });
    for (Op* op : order)
      if (!op->failed && op->c->kind != ChangeKind::kDeleted && op->c->after.type == EntryType::kDir) set_dir_mode(*op);
    for (auto& [index, fs] : fs_) (void)sync_filesystem(fs->sync_fd());
    return Status::Ok();
  }

  // Host stamps after the apply, for the decisions.
  const std::map<std::string, std::optional<session::FileStamp>>& applied() const { return applied_; }
  // The session's entry as a decision records it: the host's own stamp where the file was linked
  // into place (one inode for both since), else what the walk saw.
  session::FileStamp upper_stamp(const Change& c) const {
    if (!linked_.count(c.path)) return c.upper_stamp;
    const auto it = applied_.find(c.path);
    return it != applied_.end() && it->second ? *it->second : c.upper_stamp;
  }

 private:
  void skip(const Change& c, const std::string& why) { out_.skipped.emplace_back(c.path, why); }

  void fail(Op& op, const std::string& why) {
    op.failed = true;
    skip(*op.c, why);
  }

  // Stages the session's file or symlink beside its target. Returns whether it staged one.
  bool stage(Op& op, bool deferred) {
    const int parent = op.fs->dir(parent_rel(op.rel));
    if (parent < 0) {
      if (deferred) fail(op, "its directory cannot be opened on the host (" + std::string(std::strerror(errno)) + ")");
      return false;
    }
    UniqueFd src(open_beneath(op.fs->upper(), op.rel, op.c->after.type == EntryType::kFile ? O_RDONLY : O_PATH));
    struct stat st {};
    if (!src.valid() || ::fstat(src.get(), &st) != 0 || !same_version(stamp_of(st), op.c->upper_stamp)) {
      fail(op, "changed again in the session while this apply ran: review it again");
      return false;
    }
    if (op.c->after.type == EntryType::kSymlink) {
      if (::symlinkat(op.c->after.target.c_str(), parent, op.tmp.c_str()) != 0) {
        fail(op, std::string("cannot create the symlink: ") + std::strerror(errno));
        return false;
      }
    } else if (link_ && link_staged(op, parent, src.get(), st)) {
      linked_.insert(op.c->path);
    } else {
      StageOptions o;
      o.mode = op.c->after.mode;
      o.keep_owner = euid_ == 0;
      if (auto s = stage_copy(parent, op.tmp, src.get(), o); !s.ok()) {
        // A full disk: nothing has been renamed yet, so every file is still as it was.
        fail(op, s.error().message);
        staging_error_ = s.error().message;
        return false;
      }
    }
    op.staged = true;
    return true;
  }

  // A review session that has ended never mounts its layers again, so a file of its upper layer
  // can become the host's file itself: hard-linked beside its target and renamed over it like a
  // copy, which spares copying its bytes now and freeing the copy's blocks when the layers are
  // removed (on this kind of disk, freeing a file's blocks costs more than writing them). Only
  // where the host gets exactly what a copy would give it: a regular file nothing else links to
  // (hard links between the agent's files are not carried over), the owner and group a copy would
  // have, no extended attribute but the overlay's own bookkeeping (removed first; a copy carries
  // none). Anything else, or any step failing, is copied.
  // The session's file is still the one the walk saw: the same stamp, or the one this apply gave
  // it by removing an interrupted apply's temporary linked to it.
  bool same_version(const session::FileStamp& now, const session::FileStamp& seen) const {
    if (now == seen) return true;
    const auto it = restamped_.find(seen);
    return it != restamped_.end() && it->second == now;
  }

  bool link_staged(const Op& op, int parent, int src, const struct stat& st) {
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || (st.st_mode & 07777) != op.c->after.mode) return false;
    if (euid_ != 0) {
      struct stat dir {};
      if (::fstat(parent, &dir) != 0) return false;
      const gid_t gid = (dir.st_mode & S_ISGID) ? dir.st_gid : egid_;
      if (st.st_uid != euid_ || st.st_gid != gid) return false;
    }
    char names[4096];
    const ssize_t n = ::flistxattr(src, names, sizeof names);
    if (n < 0) return false;
    constexpr std::string_view kOverlay = "user.overlay.";
    for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(names + i)) + 1)
      if (std::string_view(names + i).substr(0, kOverlay.size()) != kOverlay) return false;
    for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(names + i)) + 1)
      if (::fremovexattr(src, names + i) != 0) return false;
    // The inode the checks saw, by its descriptor (a name could have been swapped meanwhile).
    const std::string self = "/proc/self/fd/" + std::to_string(src);
    return ::linkat(AT_FDCWD, self.c_str(), parent, op.tmp.c_str(), AT_SYMLINK_FOLLOW) == 0;
  }

  Status sync_all() {
    if (!staging_error_.empty()) return refused(staging_error_);
    for (auto& [index, fs] : fs_)
      if (auto s = sync_filesystem(fs->sync_fd()); !s.ok()) return s;
    return Status::Ok();
  }

  // Nothing was renamed yet: remove every temporary, leave every file as it was.
  Error abort_staged(const Error& e) {
    for (Op& op : ops_)
      if (op.staged) {
        const int parent = op.fs->dir(parent_rel(op.rel));
        if (parent >= 0) ::unlinkat(parent, op.tmp.c_str(), 0);
      }
    ::unlink(session::review_journal_file(s_.dir).c_str());
    return refused(e.message + "; nothing was applied, every file is as it was");
  }

  bool remove_entry(Op& op, const std::optional<session::FileStamp>& seen) {
    const int parent = op.fs->dir(parent_rel(op.rel));
    const std::string name = base_name(op.rel);
    if (!unchanged(parent, name, seen)) {
      fail(op, "changed on the host meanwhile: left as it is");
      return false;
    }
    const bool dir = op.c->before.type == EntryType::kDir;
    if (dir) op.fs->forget(op.rel);
    if (::unlinkat(parent, name.c_str(), dir ? AT_REMOVEDIR : 0) != 0) {
      fail(op, std::string("cannot remove it: ") + std::strerror(errno) +
                   (errno == ENOTEMPTY ? " (it holds entries this apply does not remove)" : ""));
      return false;
    }
    applied_[op.c->path] = std::nullopt;
    return true;
  }

  void make_dir(Op& op) {
    const int parent = op.fs->dir(parent_rel(op.rel));
    const std::string name = base_name(op.rel);
    if (op.c->before.type != EntryType::kNone && !remove_entry(op, op.c->host_stamp)) return;
    if (parent < 0 || !unchanged(parent, name, std::nullopt)) {
      fail(op, "created on the host meanwhile: left as it is");
      return;
    }
    if (::mkdirat(parent, name.c_str(), 0700) != 0) fail(op, std::string("cannot create it: ") + std::strerror(errno));
  }

  void set_dir_mode(Op& op) {
    UniqueFd d(open_beneath(op.fs->dir(""), op.rel, O_RDONLY | O_DIRECTORY));
    if (!d.valid() || ::fchmod(d.get(), op.c->after.mode) != 0) {
      fail(op, std::string("cannot set its mode: ") + std::strerror(errno));
      return;
    }
    struct stat st {};
    if (::fstat(d.get(), &st) == 0) applied_[op.c->path] = stamp_of(st);
  }

  void commit(Op& op) {
    const int parent = op.fs->dir(parent_rel(op.rel));
    const std::string name = base_name(op.rel);
    // A directory the session replaced with this file or symlink: empty by now (its entries were
    // deleted above), and still the one the walk saw.
    if (op.c->before.type == EntryType::kDir) {
      if (!remove_entry(op, op.c->host_stamp)) {
        ::unlinkat(parent, op.tmp.c_str(), 0);
        return;
      }
    } else if (!unchanged(parent, name, op.c->kind == ChangeKind::kAdded || op.c->kind == ChangeKind::kRenamed
                                            ? std::optional<session::FileStamp>()
                                            : op.c->host_stamp)) {
      ::unlinkat(parent, op.tmp.c_str(), 0);
      fail(op, "changed on the host meanwhile: left as it is");
      return;
    }
    if (::renameat(parent, op.tmp.c_str(), parent, name.c_str()) != 0) {
      const int err = errno;
      ::unlinkat(parent, op.tmp.c_str(), 0);
      fail(op, std::string("cannot put it in place: ") + std::strerror(err));
      return;
    }
    struct stat st {};
    applied_[op.c->path] = ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0
                               ? std::optional<session::FileStamp>(stamp_of(st))
                               : std::nullopt;
    if (!op.c->renamed_from.empty()) {
      // The old name goes only if it is still what the walk saw.
      const std::string old_rel = op.c->renamed_from.substr(op.c->path.size() - op.rel.size());
      const int old_parent = op.fs->dir(parent_rel(old_rel));
      if (unchanged(old_parent, base_name(old_rel), op.c->renamed_from_stamp))
        ::unlinkat(old_parent, base_name(old_rel).c_str(), 0);
      else
        skip(*op.c, "renamed from " + op.c->renamed_from + ", which changed on the host meanwhile and was kept");
    }
    if (progress_) progress_(++committed_);
  }

  const ReviewSession& s_;
  ReviewOutcome& out_;
  ApplyProgress progress_;
  std::map<int, std::unique_ptr<RootFs>> fs_;
  std::vector<Op> ops_;
  std::map<std::string, std::optional<session::FileStamp>> applied_;
  std::set<std::string> linked_;
  Restamped restamped_;
  bool link_ = false;
  const uid_t euid_ = ::geteuid();
  const gid_t egid_ = ::getegid();
  std::string staging_error_;
  std::size_t committed_ = 0;
};

// The changes a selection takes. Empty: everything pending that is safe. Named paths: exactly
// those and what is below them, but a flagged change only when named itself.
class Selected {
 public:
  Selected(const ReviewSelection& sel, std::set<std::string> confirmed)
      : all_(sel.paths.empty()), named_(sel.paths.begin(), sel.paths.end()), confirmed_(std::move(confirmed)) {}
  bool operator()(const Change& c) const {
    if (confirmed_.count(c.path) || named_.count(c.path)) return true;
    if (all_) return !c.flagged();
    return !c.flagged() && below_named(c.path);
  }
  bool below_named(const std::string& path) const {
    for (std::size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1))
      if (named_.count(path.substr(0, slash))) return true;
    return named_.count("/") > 0;
  }
  bool all() const { return all_; }

 private:
  bool all_;
  std::set<std::string> named_, confirmed_;
};

Status write_state(const ReviewSession& s, const session::ReviewState& state) {
  return write_file_atomic(session::review_state_file(s.dir), session::encode_review_state(state));
}


// Frees the layers once nothing is pending and the session has ended; says so in the state.
Status maybe_free(const ReviewSession& s, const review::ChangeSet& set, std::size_t decided_now,
                  session::ReviewState& state, ReviewOutcome& out) {
  if (set.running) return Status::Ok();
  std::size_t pending = 0;
  for (const auto& c : set.changes) pending += c.pending() ? 1 : 0;
  if (pending > decided_now) return Status::Ok();
  if (auto st = free_review_layers(s); !st.ok()) return st;
  out.freed = true;
  (void)state;
  return Status::Ok();
}

}  // namespace

Status remove_review_layers(const std::string& session_dir, const std::vector<int>& indices) {
  UniqueFd review(::open(session::review_dir(session_dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!review.valid()) return internal_error("cannot open " + session::review_dir(session_dir) + ": " + std::strerror(errno));
  for (int index : indices)
    if (auto st = remove_tree_at(review.get(), std::to_string(index)); !st.ok()) return st;
  return Status::Ok();
}

Status free_review_layers(const ReviewSession& s) {
  std::vector<int> indices;
  for (const auto& r : s.roots.roots) indices.push_back(r.index);
  return remove_review_layers(s.dir, indices);
}

Result<ReviewOutcome> apply_changes(const ReviewSession& s, const review::ChangeSet& set, const ReviewSelection& sel,
                                    ApplyProgress progress, LayerUse layers) {
  ReviewOutcome out;
  session::ReviewState state = s.state;
  std::set<std::string> confirmed;
  Restamped restamped;
  // An apply that did not finish: its temporaries go, and what it was applying is applied now
  // (it was confirmed then); what it had already put in place is identical on the host by now and
  // no longer in the change set, and is recorded as applied.
  if (s.journal) {
    for (const auto& t : s.journal->temps) {
      struct stat st {};
      if (::lstat(t.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) continue;
      // A temporary linked to a file of the session's layer: removing it gives that file a new
      // ctime, which is this apply's own doing, not the agent's (Applier::stage).
      UniqueFd held(S_ISREG(st.st_mode) && st.st_nlink > 1 ? ::open(t.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1);
      struct stat before {};
      const bool same = held.valid() && ::fstat(held.get(), &before) == 0 && before.st_ino == st.st_ino;
      if (::unlink(t.c_str()) != 0) continue;
      struct stat after {};
      if (same && ::fstat(held.get(), &after) == 0) restamped[stamp_of(before)] = stamp_of(after);
    }
    std::set<std::string> listed;
    for (const auto& c : set.changes) listed.insert(c.path);
    for (const auto& p : s.journal->paths) {
      confirmed.insert(p);
      if (listed.count(p)) continue;
      struct stat ust {}, hst {};
      const auto up = s.upper_path(p);
      if (!up || ::lstat(up->c_str(), &ust) != 0) continue;
      session::ReviewDecision d{p, session::Decision::kApplied, stamp_of(ust), std::nullopt, utc_now()};
      if (::lstat(p.c_str(), &hst) == 0) d.host = stamp_of(hst);
      state.set(std::move(d));
    }
  }
  std::vector<const Change*> take;
  const Selected selected(sel, confirmed);
  for (const auto& c : set.changes) {
    if (!c.pending() || !selected(c)) {
      if (c.pending() && sel.paths.empty() && c.flagged() && c.conflict.empty())
        out.skipped.emplace_back(c.path, "flagged (" + c.flags.front().rule + "): apply it on its own, naming it");
      continue;
    }
    if (!c.conflict.empty()) {
      out.skipped.emplace_back(c.path, "conflict: " + c.conflict + "; left for you to resolve");
      continue;
    }
    take.push_back(&c);
  }
  Applier applier(s, out, progress, layers == LayerUse::kOnce && !set.running, std::move(restamped));
  if (auto st = applier.run(take); !st.ok()) return st.error();
  std::size_t decided = 0;
  for (const auto* c : take) {
    auto it = applier.applied().find(c->path);
    const bool failed = std::any_of(out.skipped.begin(), out.skipped.end(), [&](const auto& p) { return p.first == c->path; });
    if (failed && it == applier.applied().end()) continue;
    out.done.push_back(c->path);
    ++decided;
    state.set({c->path, session::Decision::kApplied, applier.upper_stamp(*c),
               it == applier.applied().end() ? std::nullopt : it->second, utc_now()});
  }
  if (auto st = write_state(s, state); !st.ok()) return st.error();
  // Everything is in place and recorded: the journal goes last.
  ::unlink(session::review_journal_file(s.dir).c_str());
  (void)sync_directory(session::review_dir(s.dir));
  if (auto st = maybe_free(s, set, decided, state, out); !st.ok()) return st.error();
  return out;
}

Result<ReviewOutcome> discard_changes(const ReviewSession& s, const review::ChangeSet& set, const ReviewSelection& sel) {
  ReviewOutcome out;
  session::ReviewState state = s.state;
  std::size_t decided = 0;
  const Selected selected(sel, {});
  for (const auto& c : set.changes) {
    if (!c.pending()) continue;
    // Discarding takes flagged and conflicting changes as well.
    if (!selected.all() && !selected(c) && !selected.below_named(c.path)) continue;
    state.set({c.path, session::Decision::kDiscarded, c.upper_stamp, std::nullopt, utc_now()});
    out.done.push_back(c.path);
    ++decided;
  }
  if (auto st = write_state(s, state); !st.ok()) return st.error();
  if (auto st = maybe_free(s, set, decided, state, out); !st.ok()) return st.error();
  return out;
}

}  // namespace paddock::platform
