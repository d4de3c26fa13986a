#include "platform/audit/quarantine.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "engine/review/classify.h"
#include "platform/atomic_file.h"
#include "platform/audit/audit.h"
#include "platform/read_file.h"
#include "platform/remove_tree.h"
#include "platform/unique_fd.h"
#include "platform/utc_time.h"

namespace paddock::platform {
namespace {

using session::AuditDecision;
using session::AuditDecisionRecord;
using session::FileStamp;

bool within(const std::string& p, const std::string& root) {
  return root == "/" || p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/');
}

std::string parent_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_name(const std::string& p) { return p.substr(p.rfind('/') + 1); }

std::string errno_text() { return std::strerror(errno); }

int openat2_fd(int dirfd, const std::string& path, int flags, std::uint64_t resolve) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how));
}

// The directory holding `path`, opened from the write root that holds it one component at a time
// without following a symlink: a directory another session turned into a symlink since the audit
// cannot send the move elsewhere.
Result<UniqueFd> open_parent(const std::vector<std::string>& roots, const std::string& path) {
  std::string root;
  for (const auto& r : roots)
    if (within(path, r) && path != r && r.size() > root.size()) root = r;
  const std::string parent = parent_of(path);
  if (root.empty()) {
    UniqueFd fd(openat2_fd(AT_FDCWD, parent, O_RDONLY | O_DIRECTORY, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS));
    if (!fd.valid()) return bad_input(parent + ": " + errno_text());
    return fd;
  }
  UniqueFd root_fd(openat2_fd(AT_FDCWD, root, O_PATH | O_DIRECTORY, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS));
  if (!root_fd.valid()) return bad_input(root + ": " + errno_text());
  const std::string rel = parent == root ? "." : parent.substr(root.size() + 1);
  UniqueFd fd(openat2_fd(root_fd.get(), rel, O_RDONLY | O_DIRECTORY,
                         RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS));
  if (!fd.valid()) return bad_input(parent + ": " + errno_text());
  return fd;
}

FileStamp stamp_of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

// The entry is the one the audit saw: the same inode, and for anything but a directory (whose
// times move with what is added inside) the same size and ctime.
bool same_entry(const struct stat& st, const FileStamp& audited) {
  const FileStamp now = stamp_of(st);
  return S_ISDIR(st.st_mode) ? now.ino == audited.ino : now == audited;
}

Status write_all(int fd, std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return refused(std::string("write: ") + errno_text());
    done += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

// Copies dirfd/name (a file, a directory with everything below it, a symlink) to dst/dst_name,
// keeping modes; the caller syncs the file system. Devices, FIFOs and sockets are refused.
Status copy_entry(int dirfd, const std::string& name, int dst, const std::string& dst_name) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return refused(name + ": " + errno_text());
  if (S_ISLNK(st.st_mode)) {
    std::string target(4096, '\0');
    const ssize_t n = ::readlinkat(dirfd, name.c_str(), target.data(), target.size());
    if (n < 0) return refused(name + ": " + errno_text());
    target.resize(static_cast<std::size_t>(n));
    if (::symlinkat(target.c_str(), dst, dst_name.c_str()) != 0) return refused(dst_name + ": " + errno_text());
    return Status::Ok();
  }
  if (S_ISREG(st.st_mode)) {
    UniqueFd src(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    UniqueFd out(::openat(dst, dst_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777));
    if (!src.valid() || !out.valid()) return refused(name + ": " + errno_text());
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(src.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return refused(name + ": " + errno_text());
      if (n == 0) break;
      if (auto s = write_all(out.get(), std::string_view(buf, static_cast<std::size_t>(n))); !s) return s;
    }
    ::fchmod(out.get(), st.st_mode & 07777);
    return Status::Ok();
  }
  if (S_ISDIR(st.st_mode)) {
    if (::mkdirat(dst, dst_name.c_str(), 0700) != 0) return refused(dst_name + ": " + errno_text());
    UniqueFd from(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    UniqueFd to(::openat(dst, dst_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!from.valid() || !to.valid()) return refused(name + ": " + errno_text());
    UniqueFd listing(::dup(from.get()));
    DIR* d = ::fdopendir(listing.release());
    if (!d) return refused(name + ": " + errno_text());
    Status result = Status::Ok();
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      if (result = copy_entry(from.get(), n, to.get(), n); !result) break;
    }
    ::closedir(d);
    ::fchmod(to.get(), st.st_mode & 07777);
    return result;
  }
  return refused(name + " is a device, FIFO or socket: it cannot be moved to another file system");
}

// Puts `bytes` in place of dirfd/name in one rename, the way git writes its files: a lock file
// beside it (git's own ".lock" inside a .git directory, so that git waits meanwhile), fsynced.
Status replace_content(int dirfd, const std::string& name, std::string_view bytes, bool in_git) {
  struct stat st {};
  const unsigned mode = ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? (st.st_mode & 07777) : 0644;
  const std::string tmp = in_git ? name + ".lock" : "." + name + ".paddock-restore";
  UniqueFd out(::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!out.valid())
    return refused(tmp + ": " + errno_text() + (errno == EEXIST && in_git ? " (git is working in this repository)" : ""));
  Status s = write_all(out.get(), bytes);
  if (s && ::fchmod(out.get(), mode) != 0) s = refused(tmp + ": " + errno_text());
  if (s && ::fsync(out.get()) != 0) s = refused(tmp + ": fsync: " + errno_text());
  if (s && ::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) s = refused(name + ": " + errno_text());
  if (!s) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return s;
  }
  ::fsync(dirfd);
  return Status::Ok();
}

struct Session {
  session::Layout layout;
  std::string id, dir;
  LoadedAudit audit;
  UniqueFd lock;
  std::string audit_dir() const { return session::audit_dir(dir); }
};

Result<Session> open_session(const session::Layout& layout, const std::string& id) {
  if (!session::valid_session_id(id)) return bad_input("'" + id + "' is not a session id (see 'paddock sessions')");
  Session s;
  s.layout = layout;
  s.id = id;
  s.dir = layout.session_dir(id);
  struct stat st {};
  if (::lstat(s.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return bad_input("no session " + id + " (see 'paddock sessions')");
  // One decision at a time per session, whichever front end makes it.
  s.lock.reset(::open((s.audit_dir() + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!s.lock.valid()) {
    if (errno == ENOENT) return bad_input("session " + id + " has no audit: it wrote no directory directly (see 'paddock sessions')");
    return refused(s.audit_dir() + "/lock: " + errno_text());
  }
  while (::flock(s.lock.get(), LOCK_EX) != 0 && errno == EINTR) {}
  s.audit = load_audit(s.dir);
  if (!s.audit.problem.empty()) return bad_input("session " + id + ": " + s.audit.problem);
  if (!s.audit.record) return bad_input("session " + id + " has not been audited yet (it still runs: see 'paddock sessions')");
  return s;
}

Status save_state(const Session& s) {
  WriteOptions o;
  return write_file_atomic(session::audit_state_file(s.dir), session::encode_audit_state(s.audit.state), o);
}

Result<std::string> read_previous(const Session& s, const std::string& name) {
  ReadOptions o;
  o.max_bytes = std::size_t{512} << 20;
  o.no_follow = true;
  return read_file(s.audit_dir() + "/" + name, o);
}

// A new numbered directory in audit/quarantine/, opened.
Result<std::pair<std::string, UniqueFd>> new_slot(const Session& s) {
  const std::string q = session::audit_quarantine_dir(s.dir);
  if (::mkdir(q.c_str(), 0700) != 0 && errno != EEXIST) return refused(q + ": " + errno_text());
  UniqueFd qfd(::open(q.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!qfd.valid()) return refused(q + ": " + errno_text());
  for (int n = 0; n < 1000000; ++n) {
    const std::string name = std::to_string(n);
    if (::mkdirat(qfd.get(), name.c_str(), 0700) == 0) {
      UniqueFd fd(::openat(qfd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      ::fsync(qfd.get());
      if (!fd.valid()) return refused(q + "/" + name + ": " + errno_text());
      return std::make_pair("quarantine/" + name, std::move(fd));
    }
    if (errno != EEXIST) return refused(q + "/" + name + ": " + errno_text());
  }
  return refused(q + ": no free slot");
}

Result<UniqueFd> open_slot(const Session& s, const std::string& to) {
  const std::string slot = s.audit_dir() + "/" + parent_of(to);
  UniqueFd fd(::open(slot.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return refused(slot + ": " + errno_text());
  return fd;
}

bool same_fs(int a, int b) {
  struct stat x {}, y {};
  return ::fstat(a, &x) == 0 && ::fstat(b, &y) == 0 && x.st_dev == y.st_dev;
}

bool in_git_dir(const std::string& path) { return !review::Classifier::git_path(path).first.empty(); }

Status write_journal(const Session& s, const session::QuarantineJournal& j) {
  return write_file_atomic(session::audit_journal_file(s.dir), session::encode_quarantine_journal(j));
}

void drop_journal(const Session& s) {
  ::unlink(session::audit_journal_file(s.dir).c_str());
  (void)sync_directory(s.audit_dir());
}

// Finishes a quarantine that a kill, a crash or a full disk interrupted: the content went to the
// session's directory first, so the project is changed only once it is safe there.
Status resume(Session& s) {
  if (!s.audit.journal) return Status::Ok();
  const session::QuarantineJournal j = *s.audit.journal;
  const std::string to = s.audit_dir() + "/" + j.to;
  ::unlink((to + ".partial").c_str());
  (void)remove_tree_at(AT_FDCWD, to + ".partial");
  struct stat st {};
  if (::lstat(to.c_str(), &st) != 0) {  // nothing reached the session's directory: nothing happened
    drop_journal(s);
    s.audit.journal.reset();
    return Status::Ok();
  }
  const std::vector<std::string>& roots = s.audit.start ? s.audit.start->roots : std::vector<std::string>{};
  auto parent = open_parent(roots, j.path);
  AuditDecisionRecord d{j.path, AuditDecision::kQuarantined, j.to, false, utc_timestamp()};
  if (parent) {
    const std::string name = base_name(j.path);
    struct stat now {};
    const bool there = ::fstatat(parent->get(), name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0;
    if (!j.previous.empty()) {
      auto previous = read_previous(s, j.previous);
      if (previous && there && same_entry(now, j.stamp)) {
        if (auto r = replace_content(parent->get(), name, *previous, in_git_dir(j.path)); !r) return r;
        d.restored = true;
      } else if (previous && there) {
        auto current = read_file(j.path, ReadOptions{std::size_t{512} << 20, false, true, true, false});
        d.restored = current && *current == *previous;
      }
    } else if (there && static_cast<std::uint64_t>(now.st_ino) == j.stamp.ino) {
      // Copied to another file system, not yet removed here.
      if (auto r = remove_tree_at(parent->get(), name); !r) return r;
      ::fsync(parent->get());
    }
  }
  s.audit.state.set(d);
  if (auto r = save_state(s); !r) return r;
  drop_journal(s);
  s.audit.journal.reset();
  return Status::Ok();
}

Status check_named(const Session& s, const std::vector<std::string>& paths) {
  for (const auto& p : paths)
    if (!s.audit.record->find(p))
      return bad_input("no finding at " + p + " in session " + s.id + " (see 'paddock audit " + s.id + "')");
  return Status::Ok();
}

Result<AuditOutcome> finish(Session& s, AuditOutcome out) {
  (void)refresh_pending_marker(s.layout, s.dir, s.id);
  out.pending = s.audit.pending();
  return out;
}

// One finding into the session's directory. "" when done, else why it was left alone.
Result<std::string> quarantine_one(Session& s, const session::AuditFinding& f, QuarantineStep step) {
  const std::vector<std::string>& roots = s.audit.start ? s.audit.start->roots : std::vector<std::string>{};
  auto parent = open_parent(roots, f.path);
  if (!parent) return "cannot be reached without following a symlink (" + parent.error().message + ")";
  const std::string name = base_name(f.path);
  struct stat st {};
  if (::fstatat(parent->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return std::string(errno == ENOENT ? "gone since the audit" : "cannot be looked at: " + errno_text());
  if (!same_entry(st, f.stamp))
    return std::string("changed since the audit: look at it yourself (paddock keep accepts it as it is now)");
  const bool restore = f.kind == session::FindingKind::kChanged && !f.previous.empty() && S_ISREG(st.st_mode);
  std::string previous;
  if (restore) {
    auto p = read_previous(s, f.previous);
    if (!p) return "its content before the session cannot be read (" + p.error().message + ")";
    previous = std::move(*p);
  }
  auto slot = new_slot(s);
  if (!slot) return slot.error();
  const std::string to = slot->first + "/" + name;
  int qfd = slot->second.get();
  session::QuarantineJournal j{f.path, to, restore ? f.previous : "", f.stamp, utc_timestamp()};
  if (auto r = write_journal(s, j); !r) return r.error();
  const bool same = same_fs(parent->get(), qfd);
  auto undo = [&](const std::string& why) -> Result<std::string> {
    (void)remove_tree_at(qfd, name + ".partial");
    drop_journal(s);
    return why;
  };
  if (restore) {
    // The session's version goes to the session's directory (a second name on the same file
    // system, a copy on another), then the content before the session replaces it in one rename.
    if (!same || ::linkat(parent->get(), name.c_str(), qfd, name.c_str(), 0) != 0) {
      if (auto r = copy_entry(parent->get(), name, qfd, name + ".partial"); !r) return undo(r.error().message);
      if (auto r = sync_filesystem(qfd); !r) return undo(r.error().message);
      if (::renameat(qfd, (name + ".partial").c_str(), qfd, name.c_str()) != 0) return undo(errno_text());
    }
    ::fsync(qfd);
    if (step) step(f.path);
    if (auto r = replace_content(parent->get(), name, previous, in_git_dir(f.path)); !r) {
      // The session's version stays where it was; its copy in the session's directory goes.
      ::unlinkat(qfd, name.c_str(), 0);
      return undo(r.error().message);
    }
  } else if (same) {
    if (step) step(f.path);
    if (::renameat2(parent->get(), name.c_str(), qfd, name.c_str(), RENAME_NOREPLACE) != 0) return undo(errno_text());
    ::fsync(qfd);
    ::fsync(parent->get());
  } else {
    if (auto r = copy_entry(parent->get(), name, qfd, name + ".partial"); !r) return undo(r.error().message);
    if (auto r = sync_filesystem(qfd); !r) return undo(r.error().message);
    if (::renameat(qfd, (name + ".partial").c_str(), qfd, name.c_str()) != 0) return undo(errno_text());
    ::fsync(qfd);
    if (step) step(f.path);
    if (auto r = remove_tree_at(parent->get(), name); !r) return r.error();  // the journal finishes it
    ::fsync(parent->get());
  }
  s.audit.state.set({f.path, AuditDecision::kQuarantined, to, restore, utc_timestamp()});
  if (auto r = save_state(s); !r) return r.error();
  drop_journal(s);
  return std::string();
}

// Puts back what an earlier quarantine of this finding moved away, when its place allows.
Result<std::string> put_back(Session& s, const session::AuditFinding& f, const AuditDecisionRecord& d) {
  const std::vector<std::string>& roots = s.audit.start ? s.audit.start->roots : std::vector<std::string>{};
  auto parent = open_parent(roots, f.path);
  if (!parent) return "cannot be reached without following a symlink (" + parent.error().message + ")";
  auto slot = open_slot(s, d.moved_to);
  if (!slot) return slot.error();
  const std::string name = base_name(f.path);
  const std::string kept = s.audit_dir() + "/" + d.moved_to;
  struct stat st {};
  const bool taken = ::fstatat(parent->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (d.restored) {
    // The content before the session is in place: the session's version replaces it again, if
    // nothing changed it meanwhile.
    auto previous = read_previous(s, f.previous);
    auto current = read_file(f.path, ReadOptions{std::size_t{512} << 20, false, true, true, false});
    auto session_version = read_file(kept, ReadOptions{std::size_t{512} << 20, false, true, false, false});
    if (!previous || !current || !session_version || *current != *previous)
      return "changed since it was quarantined; the session's version is at " + kept;
    if (auto r = replace_content(parent->get(), name, *session_version, in_git_dir(f.path)); !r) return r.error();
    return std::string();
  }
  if (taken) return "something else is there now; the session's version is at " + kept;
  if (same_fs(parent->get(), slot->get())) {
    if (::renameat2(slot->get(), name.c_str(), parent->get(), name.c_str(), RENAME_NOREPLACE) != 0)
      return "cannot be put back (" + errno_text() + "); the session's version is at " + kept;
  } else {
    if (auto r = copy_entry(slot->get(), name, parent->get(), name); !r) {
      (void)remove_tree_at(parent->get(), name);
      return r.error().message + "; the session's version is at " + kept;
    }
    if (auto r = sync_filesystem(parent->get()); !r) return r.error();
    (void)remove_tree_at(slot->get(), name);
  }
  ::fsync(parent->get());
  return std::string();
}

}  // namespace

Result<AuditOutcome> quarantine_findings(const session::Layout& layout, const std::string& id,
                                         const std::vector<std::string>& paths, QuarantineStep step) {
  auto s = open_session(layout, id);
  if (!s) return s.error();
  if (auto r = resume(*s); !r) return r.error();
  if (auto r = check_named(*s, paths); !r) return r.error();
  AuditOutcome out;
  for (const auto& f : s->audit.record->findings) {
    const bool named = std::find(paths.begin(), paths.end(), f.path) != paths.end();
    if (!paths.empty() && !named) continue;
    const AuditDecisionRecord* d = s->audit.state.find(f.path);
    if (d && d->decision == AuditDecision::kQuarantined) {
      if (named) out.skipped.emplace_back(f.path, "already quarantined (" + d->moved_to + ")");
      continue;
    }
    if (d && paths.empty()) continue;  // "every pending finding": a kept one is decided
    auto r = quarantine_one(*s, f, step);
    if (!r) return r.error();
    if (r->empty()) out.done.push_back(f.path);
    else out.skipped.emplace_back(f.path, *r);
  }
  return finish(*s, std::move(out));
}

Result<AuditOutcome> keep_findings(const session::Layout& layout, const std::string& id, const std::vector<std::string>& paths) {
  if (paths.empty()) return bad_input("name the findings to keep (paddock keep " + id + " PATH...)");
  auto s = open_session(layout, id);
  if (!s) return s.error();
  if (auto r = resume(*s); !r) return r.error();
  if (auto r = check_named(*s, paths); !r) return r.error();
  AuditOutcome out;
  for (const auto& p : paths) {
    const session::AuditFinding& f = *s->audit.record->find(p);
    if (const AuditDecisionRecord* d = s->audit.state.find(p); d && d->decision == AuditDecision::kQuarantined) {
      auto r = put_back(*s, f, *d);
      if (!r) return r.error();
      if (!r->empty()) {
        out.skipped.emplace_back(p, *r);
        continue;
      }
    }
    s->audit.state.set({p, AuditDecision::kKept, "", false, utc_timestamp()});
    if (auto r = save_state(*s); !r) return r.error();
    out.done.push_back(p);
  }
  return finish(*s, std::move(out));
}

}  // namespace paddock::platform
