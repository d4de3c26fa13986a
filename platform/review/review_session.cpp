#include "platform/review/review_session.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "engine/review/git_index.h"
#include "engine/review/text_diff.h"
#include "platform/read_file.h"
#include "platform/review/review_facts_cache.h"
#include "platform/sessions.h"
#include "platform/review/review_git.h"
#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

using review::Change;
using review::ChangeKind;
using review::EntryState;
using review::EntryType;

bool within(const std::string& path, const std::string& root) {
  return root == "/" || path == root ||
         (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

std::int64_t ctime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}

session::FileStamp stamp_of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size), ctime_ns(st)};
}

EntryType type_of(mode_t m) {
  if (S_ISREG(m)) return EntryType::kFile;
  if (S_ISDIR(m)) return EntryType::kDir;
  if (S_ISLNK(m)) return EntryType::kSymlink;
  return EntryType::kOther;
}

std::string read_link(const std::string& path) {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  if (n < 0) return {};
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

EntryState state_of(const std::string& path, const struct stat& st) {
  EntryState s;
  s.type = type_of(st.st_mode);
  s.mode = st.st_mode & 07777;
  if (s.type == EntryType::kFile) s.size = st.st_size;
  if (s.type == EntryType::kSymlink) s.target = read_link(path);
  return s;
}

bool is_whiteout(const struct stat& st) { return S_ISCHR(st.st_mode) && st.st_rdev == 0; }

// Overlay metadata of an upper entry (user.overlay.*, as an overlay mounted in a user namespace
// keeps it): "opaque" on a directory that hides the host's below it, "origin" on an entry copied
// up from the host (present, even empty, on every copy-up).
bool has_xattr(const std::string& path, const char* name, const char* want = nullptr) {
  char buf[8];
  const ssize_t n = ::lgetxattr(path.c_str(), name, buf, sizeof buf);
  if (n < 0) return false;
  return !want || (static_cast<std::size_t>(n) == std::strlen(want) && std::memcmp(buf, want, static_cast<std::size_t>(n)) == 0);
}

// The directory's entries with their d_type (DT_UNKNOWN where the file system gives none), sorted
// by name.
struct DirEntry {
  std::string name;
  unsigned char type = DT_UNKNOWN;
};
std::vector<DirEntry> list_dir_typed(const std::string& path, std::string& error) {
  std::vector<DirEntry> entries;
  DIR* d = ::opendir(path.c_str());
  if (!d) {
    error = path + ": " + std::strerror(errno);
    return entries;
  }
  while (dirent* e = ::readdir(d)) {
    const char* n = e->d_name;
    if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
    entries.push_back({n, e->d_type});
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

// The directory's entry names, sorted.
std::vector<std::string> list_dir(const std::string& path, std::string& error) {
  std::vector<std::string> names;
  for (auto& e : list_dir_typed(path, error)) names.push_back(std::move(e.name));
  return names;
}

// Opens dirfd/name to read its head. O_NOATIME: a listing leaves the session's files as they
// were, and spares the first read of each freshly written file an inode update (a journal entry
// on ext4, under relatime). Only the file's owner (or CAP_FOWNER) may ask for it: anyone else
// opens it plainly.
int open_for_head(int dirfd, const char* name) {
  constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  const int fd = ::openat(dirfd, name, kFlags | O_NOATIME);
  if (fd >= 0 || errno != EPERM) return fd;
  return ::openat(dirfd, name, kFlags);
}

// Whether the open file's head (as git looks: its first 8000 bytes) holds a NUL: 1 binary, 0 text,
// -1 unreadable.
int head_is_binary(int fd) {
  char buf[8000];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return -1;
  return n > 0 && review::looks_binary(std::string_view(buf, static_cast<std::size_t>(n))) ? 1 : 0;
}

// f(0) .. f(n - 1), spread over up to four threads when n is large enough to pay for them.
template <class F>
void in_parallel(std::size_t n, const F& f) {
  const std::size_t threads = std::min<std::size_t>({4, std::max(1u, std::thread::hardware_concurrency()), n / 256});
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t start; (start = next.fetch_add(64)) < n;)
      for (std::size_t i = start; i < std::min(n, start + 64); ++i) f(i);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to spare: this one does it all
    }
  }
  work();
  for (auto& t : pool) t.join();
}

// Two files' bytes are equal (their sizes are).
bool same_bytes(const std::string& a, const std::string& b) {
  UniqueFd fa(::open(a.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  UniqueFd fb(::open(b.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fa.valid() || !fb.valid()) return false;
  static thread_local std::vector<char> ba(1 << 16), bb(1 << 16);
  for (;;) {
    const ssize_t na = ::read(fa.get(), ba.data(), ba.size());
    if (na < 0) return false;
    std::size_t got = 0;
    while (got < static_cast<std::size_t>(na)) {
      const ssize_t nb = ::read(fb.get(), bb.data() + got, static_cast<std::size_t>(na) - got);
      if (nb <= 0) return false;
      got += static_cast<std::size_t>(nb);
    }
    if (na == 0) {
      char extra;
      return ::read(fb.get(), &extra, 1) == 0;
    }
    if (std::memcmp(ba.data(), bb.data(), static_cast<std::size_t>(na)) != 0) return false;
  }
}

// The file `name` in the directory dirfd (one path component to look up, not the whole path):
// bit 0 set when binary, bit 1 when not to be cached (unreadable, or no longer the file the walk
// saw: its key would name other bytes).
char binary_file_at(int dirfd, const std::string& name, const FileKey& key) {
  UniqueFd fd(open_for_head(dirfd, name.c_str()));
  if (!fd.valid()) return 2;
  const int head = head_is_binary(fd.get());
  struct stat st {};
  if (head < 0) return 2;
  const char binary = static_cast<char>(head);
  return ::fstat(fd.get(), &st) == 0 && FileKey::of(st) == key ? binary : static_cast<char>(binary | 2);
}

class Walker {
 public:
  Walker(const ReviewSession& s, const ChangeWalkOptions& o, review::ChangeSet& out) : s_(s), o_(o), out_(out) {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    started_ns_ = static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
    if (o.binary_markers) {
      cache_file_ = session::review_facts_cache_file(s.dir);
      cached_ = ReviewFactsCache::load(cache_file_);
      // A session's first listing (no cache yet) reads every changed file's head: the walk opens
      // each file the session wrote and takes its stat from the open file, one stat per file
      // instead of two (by name in the walk, of the open file after the read).
      read_heads_in_walk_ = cached_.size() == 0;
    }
    // Absent denies are held absent the same way (a masked placeholder), and so are absent
    // pointers (a placeholder that points at its own directory).
    for (const auto* list : {&s.ir.fs.deny_write, &s.ir.fs.deny})
      for (const auto& d : *list) {
        if (is_absent(d.kind)) protected_absent_.push_back(d.path);
        if (d.kind == PathKind::kAbsentPointer) absent_pointers_.insert(d.path);
      }
  }

  void walk_root(const session::ReviewRoot& r) {
    root_ = r.root;
    layer_ = r.index;
    upper_root_ = session::review_upper(s_.dir, r.index);
    struct stat st {};
    if (::lstat(upper_root_.c_str(), &st) != 0) {
      out_.notes.push_back("the session's layer for " + root_ + " is gone (" + upper_root_ + ")");
      return;
    }
    walk_dir("", /*lower=*/true, stamp_of(st));
  }

  bool over_budget() const { return entries_ > o_.max_entries; }

  // Which changes' content is binary. One open and one read of each changed file was most of what
  // a listing cost, so what an earlier listing read is kept in the session's facts cache, keyed by
  // each file's stat (review_facts_cache.h). The files the cache does not know are read once the
  // walk is done, on up to four threads, in runs of one directory, opened relative to it.
  void mark_binary() {
    const std::size_t total = binary_jobs_.size();
    const ReviewFactsCache& cached = cached_;
    std::vector<char> result(total, 0);
    std::vector<std::size_t> misses;
    for (std::size_t i = 0; i < total; ++i) {
      if (binary_jobs_[i].head >= 0)
        result[i] = binary_jobs_[i].head;  // read in the walk, with the stat of the open file
      else if (const auto b = cached.binary(binary_jobs_[i].key))
        result[i] = *b ? 1 : 0;
      else
        misses.push_back(i);
    }
    const std::size_t n = misses.size();
    const std::size_t threads = std::min<std::size_t>({4, std::max(1u, std::thread::hardware_concurrency()), (n + 255) / 256});
    std::atomic<std::size_t> next{0};
    constexpr std::size_t kRun = 64;
    const auto work = [&] {
      UniqueFd dir;
      std::size_t dir_index = SIZE_MAX;
      for (std::size_t start; (start = next.fetch_add(kRun)) < n;)
        for (std::size_t m = start; m < std::min(n, start + kRun); ++m) {
          const std::size_t i = misses[m];
          const BinaryJob& job = binary_jobs_[i];
          if (job.dir != dir_index) {
            dir.reset(::open(binary_dirs_[job.dir].c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
            dir_index = job.dir;
          }
          result[i] = dir.valid() ? binary_file_at(dir.get(), job.name, job.key) : 2;
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no thread to spare: this one does it all
      }
    }
    if (n) work();
    for (auto& t : pool) t.join();
    std::vector<std::pair<FileKey, bool>> facts;
    facts.reserve(total);
    for (std::size_t i = 0; i < total; ++i) {
      out_.changes[binary_jobs_[i].change].binary = (result[i] & 1) != 0;
      // A file that was not the one stat saw when it was read (binary_file_at) is not kept.
      if (!(result[i] & 2)) facts.emplace_back(binary_jobs_[i].key, result[i] == 1);
    }
    // Exactly the files of this listing: what the session no longer has leaves the cache. A cache
    // that cannot be written costs the next listing its reads, nothing else. A file is kept only
    // if its ctime is a second before the listing began: a rewrite after its stat (while the
    // listing ran) then gets a later ctime, so the key of what was read is never seen again.
    auto fresh = ReviewFactsCache::of(std::move(facts), started_ns_);
    if (!(fresh == cached)) (void)fresh.save(cache_file_);
  }

 private:
  // A placeholder Paddock made for an absent protected path inside the review root: an empty
  // directory (or file) at a prefix of that path, in the upper layer only. The agent cannot have
  // made it: the name was held read-only for the whole session.
  bool is_placeholder(const std::string& host, const struct stat& st, const std::string& up) const {
    if (S_ISREG(st.st_mode) && st.st_size != 0) return absent_pointers_.count(host) && holds_pointer_to_itself(up);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return false;
    const bool prefix = std::any_of(protected_absent_.begin(), protected_absent_.end(),
                                    [&](const std::string& p) { return within(p, host); });
    if (!prefix) return false;
    if (S_ISDIR(st.st_mode)) {
      std::string err;
      return list_dir(up, err).empty() && err.empty();
    }
    return true;
  }

  // A pointer's placeholder: exactly ".\n" (helpers/linux/mount_view.cpp writes it).
  static bool holds_pointer_to_itself(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    char buf[3];
    return fd.valid() && ::read(fd.get(), buf, sizeof buf) == 2 && buf[0] == '.' && buf[1] == '\n';
  }

  void add(Change c) {
    c.root = root_;
    c.layer = layer_;
    out_.changes.push_back(std::move(c));
  }

  // The next change added reads dir/name, whose stat is st, to tell whether it is binary
  // (mark_binary), unless the walk read it already (head: 1 binary, 0 text, -1 not read).
  void binary_later(const std::string& dir, const std::string& name, const struct stat& st, int head = -1) {
    if (binary_dirs_.empty() || binary_dirs_.back() != dir) binary_dirs_.push_back(dir);
    binary_jobs_.push_back({out_.changes.size(), binary_dirs_.size() - 1, name, FileKey::of(st), static_cast<signed char>(head)});
  }

  void conflict_check(Change& c, const struct stat& host) {
    c.host_stamp = stamp_of(host);
    if (ctime_ns(host) < s_.roots.started_ns) return;
    // This session's own apply left it so.
    if (const auto* d = s_.state.find(c.path); d && d->host && *d->host == *c.host_stamp) return;
    c.conflict = "changed on the host since the session started";
  }

  // Every entry of a host subtree the session deleted (the directory itself last): host_dir/name.
  void deleted_tree(const std::string& host_dir, const std::string& name, const struct stat& st,
                    const session::FileStamp& upper) {
    if (++entries_ > o_.max_entries) return;
    const std::string host = host_dir + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      std::string err;
      for (const auto& child : list_dir(host, err)) {
        struct stat cst {};
        if (::lstat((host + "/" + child).c_str(), &cst) == 0) deleted_tree(host, child, cst, upper);
      }
      if (!err.empty()) out_.notes.push_back("cannot list " + err + ": what it holds is deleted too");
    }
    Change c;
    c.path = host;
    c.kind = ChangeKind::kDeleted;
    c.before = state_of(host, st);
    c.upper_stamp = upper;
    conflict_check(c, st);
    if (c.before.type == EntryType::kFile) binary_later(host_dir, name, st);
    add(std::move(c));
  }

  // rel: "" for the root, else "/a/b". lower: the host's directory shows through here (no opaque
  // directory above, and the host has a directory at this path).
  void walk_dir(const std::string& rel, bool lower, const session::FileStamp& dir_stamp) {
    const std::string up_dir = upper_root_ + rel, host_dir = root_ + rel;
    std::string err;
    const auto entries = list_dir_typed(up_dir, err);
    if (!err.empty()) out_.notes.push_back("cannot list the session's " + err);
    // Each entry is looked up relative to its directory, opened once without following a
    // symlink: one path component per lookup instead of the whole path, twice per entry.
    // The roots are opened as named (as the walk always looked them up); below them, the walk
    // only descends into what it saw as a directory, and a symlink swapped in meanwhile fails.
    const int nofollow = rel.empty() ? 0 : O_NOFOLLOW;
    UniqueFd up_fd(::open(up_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow));
    if (!up_fd.valid()) return;  // gone while listing (the session runs)
    UniqueFd host_fd(lower ? ::open(host_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow) : -1);
    // Each entry is looked up on both sides before any of it is compared, in runs of up to 4096
    // entries, a large directory's on up to four threads: the lookups are system calls, most of
    // what a listing costs (git status spreads its own over threads the same way).
    struct Looked {
      struct stat up {}, host {};
      bool up_ok = false, host_ok = false;
      signed char head = -1;  // the file's head, read with its stat (read_heads_in_walk_)
    };
    const auto look = [&](const DirEntry& e, Looked& l) {
      if (read_heads_in_walk_ && e.type == DT_REG) {
        // Opened without following a symlink swapped in meanwhile; what was opened is what the
        // stat describes, whatever it turned out to be.
        UniqueFd fd(open_for_head(up_fd.get(), e.name.c_str()));
        l.up_ok = fd.valid() && ::fstat(fd.get(), &l.up) == 0;
        if (l.up_ok && S_ISREG(l.up.st_mode)) l.head = static_cast<signed char>(head_is_binary(fd.get()));
      }
      if (!l.up_ok) l.up_ok = ::fstatat(up_fd.get(), e.name.c_str(), &l.up, AT_SYMLINK_NOFOLLOW) == 0;
      if (l.up_ok && lower && host_fd.valid())
        l.host_ok = ::fstatat(host_fd.get(), e.name.c_str(), &l.host, AT_SYMLINK_NOFOLLOW) == 0;
    };
    constexpr std::size_t kRun = 4096;
    std::vector<Looked> looked;
    for (std::size_t first = 0; first < entries.size(); first += kRun) {
      const std::size_t n = std::min(kRun, entries.size() - first);
      looked.assign(n, Looked{});
      in_parallel(n, [&](std::size_t k) { look(entries[first + k], looked[k]); });
      for (std::size_t k = 0; k < n; ++k) {
        if (++entries_ > o_.max_entries) return;
        if (!looked[k].up_ok) continue;  // gone while listing
        const std::string& name = entries[first + k].name;
        const std::string up = up_dir + "/" + name, host = host_dir + "/" + name;
        const struct stat& ust = looked[k].up;
        const struct stat& lst = looked[k].host;
        const bool host_has = looked[k].host_ok;
        const int head = looked[k].head;
        if (is_whiteout(ust)) {
          if (host_has) deleted_tree(host_dir, name, lst, stamp_of(ust));
          continue;
        }
        Change c;
        c.path = host;
        c.after = state_of(up, ust);
        c.upper_stamp = stamp_of(ust);
        if (S_ISDIR(ust.st_mode)) {
          const bool opaque = has_xattr(up, "user.overlay.opaque", "y");
          if (!host_has || !S_ISDIR(lst.st_mode)) {
            if (!host_has && is_placeholder(host, ust, up)) continue;
            c.kind = host_has ? ChangeKind::kModified : ChangeKind::kAdded;
            if (host_has) {
              c.before = state_of(host, lst);
              conflict_check(c, lst);
              // What the host had here is replaced whole.
            }
            add(std::move(c));
            walk_dir(rel + "/" + name, false, stamp_of(ust));
            continue;
          }
          if ((ust.st_mode & 07777) != (lst.st_mode & 07777)) {
            c.kind = ChangeKind::kModified;
            c.before = state_of(host, lst);
            conflict_check(c, lst);
            add(std::move(c));
          }
          if (opaque) {
            // The session replaced the directory: what the host has there and the session does not
            // is deleted.
            std::string lerr;
            for (const auto& lname : list_dir(host, lerr)) {
              struct stat u {}, l {};
              if (::lstat((up + "/" + lname).c_str(), &u) == 0) continue;
              if (::lstat((host + "/" + lname).c_str(), &l) == 0) deleted_tree(host, lname, l, stamp_of(ust));
            }
          }
          walk_dir(rel + "/" + name, !opaque, stamp_of(ust));
          continue;
        }
        if (!host_has) {
          if (is_placeholder(host, ust, up)) continue;
          c.kind = ChangeKind::kAdded;
          // Copied up from the host (the overlay marks every copy-up), yet the host no longer has
          // it here: renamed in the session, or deleted on the host meanwhile. Only the second
          // changes the host's directory after the session started.
          if (c.after.type == EntryType::kFile) binary_later(up_dir, name, ust, head);
          if (lower && has_xattr(up, "user.overlay.origin")) {
            struct stat pst {};
            const std::int64_t changed = ::lstat(host_dir.c_str(), &pst) == 0
                                             ? static_cast<std::int64_t>(pst.st_mtim.tv_sec) * 1000000000 + pst.st_mtim.tv_nsec
                                             : 0;
            if (changed >= s_.roots.started_ns)
              c.conflict = "not on the host any more, whose directory changed since the session started: deleted there?";
          }
          add(std::move(c));
          continue;
        }
        c.before = state_of(host, lst);
        c.kind = ChangeKind::kModified;
        if (c.before.type == EntryType::kDir) {
          // A file where the host has a directory: everything below it goes.
          deleted_tree_children(host, stamp_of(ust));
        } else if (c.before.type == c.after.type && c.before.mode == c.after.mode) {
          if (c.after.type == EntryType::kSymlink && c.before.target == c.after.target) continue;
          if (c.after.type == EntryType::kFile && c.before.size == c.after.size && same_bytes(up, host)) continue;
          if (c.after.type == EntryType::kOther) continue;
        }
        if (c.after.type == EntryType::kFile && c.before.type == EntryType::kFile)
          c.content_changed = c.before.size != c.after.size || !same_bytes(up, host);
        if (c.after.type == EntryType::kFile) binary_later(up_dir, name, ust, head);
        conflict_check(c, lst);
        add(std::move(c));
      }
    }
    (void)dir_stamp;
  }

  void deleted_tree_children(const std::string& host, const session::FileStamp& upper) {
    std::string err;
    for (const auto& name : list_dir(host, err)) {
      struct stat cst {};
      if (::lstat((host + "/" + name).c_str(), &cst) == 0) deleted_tree(host, name, cst, upper);
    }
  }

  const ReviewSession& s_;
  const ChangeWalkOptions& o_;
  review::ChangeSet& out_;
  std::vector<std::string> protected_absent_;
  std::set<std::string> absent_pointers_;
  std::string root_, upper_root_;
  int layer_ = 0;
  std::size_t entries_ = 0;
  struct BinaryJob {
    std::size_t change;  // its index in the change set
    std::size_t dir;     // in binary_dirs_
    std::string name;
    FileKey key;           // its stat in the walk
    signed char head = -1;  // read in the walk: 1 binary, 0 text; -1 not yet
  };
  std::vector<std::string> binary_dirs_;
  std::vector<BinaryJob> binary_jobs_;
  std::int64_t started_ns_ = 0;  // CLOCK_REALTIME when the listing began
  std::string cache_file_;
  ReviewFactsCache cached_;
  bool read_heads_in_walk_ = false;
};

// A deleted file and an added one with the same bytes: a rename (or a move). Only files, only
// where neither side conflicts, within the comparison budget.
void find_renames(review::ChangeSet& set, const ReviewSession& s, std::size_t budget) {
  std::multimap<std::int64_t, std::size_t> deleted;  // size -> index
  for (std::size_t i = 0; i < set.changes.size(); ++i) {
    const Change& c = set.changes[i];
    if (c.kind == ChangeKind::kDeleted && c.before.type == EntryType::kFile && c.conflict.empty() && c.before.size > 0)
      deleted.emplace(c.before.size, i);
  }
  if (deleted.empty()) return;
  std::vector<bool> gone(set.changes.size(), false);
  for (auto& c : set.changes) {
    if (budget == 0) break;
    if (c.kind != ChangeKind::kAdded || c.after.type != EntryType::kFile || !c.conflict.empty()) continue;
    const auto up = s.upper_path(c.path);
    if (!up) continue;
    for (auto [it, end] = deleted.equal_range(c.after.size); it != end && budget > 0; ++it) {
      if (gone[it->second]) continue;
      --budget;
      const Change& d = set.changes[it->second];
      if (d.root != c.root || !same_bytes(*up, d.path)) continue;
      c.kind = ChangeKind::kRenamed;
      c.renamed_from = d.path;
      c.before = d.before;
      c.renamed_from_stamp = d.host_stamp;
      gone[it->second] = true;
      break;
    }
  }
  std::vector<Change> kept;
  for (std::size_t i = 0; i < set.changes.size(); ++i)
    if (!gone[i]) kept.push_back(std::move(set.changes[i]));
  set.changes = std::move(kept);
}

}  // namespace

std::optional<std::string> ReviewSession::upper_path(const std::string& host_path, int* layer) const {
  const session::ReviewRoot* r = root_of(host_path);
  if (!r) return std::nullopt;
  if (layer) *layer = r->index;
  return session::review_upper(dir, r->index) + host_path.substr(r->root == "/" ? 0 : r->root.size());
}

const session::ReviewRoot* ReviewSession::root_of(const std::string& host_path) const {
  const session::ReviewRoot* best = nullptr;
  for (const auto& r : roots.roots)
    if (within(host_path, r.root) && (!best || r.root.size() > best->root.size())) best = &r;
  return best;
}

bool ReviewSession::has_layers() const {
  for (const auto& r : roots.roots) {
    struct stat st {};
    if (::lstat(session::review_upper(dir, r.index).c_str(), &st) == 0) return true;
  }
  return false;
}

Result<ReviewSession> open_review_session(const std::string& session_dir, const std::string& id) {
  ReviewSession s;
  s.id = id;
  s.dir = session_dir;
  ReadOptions record;
  record.no_follow = true;
  auto roots = read_file_if_exists(session::review_roots_file(session_dir), record);
  if (!roots) return roots.error();
  if (!*roots) return Error{ErrorCode::kNotFound, "session " + id + " did not run in review mode"};
  auto decoded = session::decode_review_roots(**roots);
  if (!decoded) return decoded.error();
  s.roots = std::move(*decoded);
  auto state = read_file_if_exists(session::review_state_file(session_dir), record);
  if (!state) return state.error();
  if (*state) {
    auto st = session::decode_review_state(**state);
    if (!st) return st.error();
    s.state = std::move(*st);
  }
  auto journal = read_file_if_exists(session::review_journal_file(session_dir), record);
  if (!journal) return journal.error();
  if (*journal) {
    auto j = session::decode_apply_journal(**journal);
    if (!j) return j.error();
    s.journal = std::move(*j);
  }
  auto ir = read_session_ir(session_dir);
  if (!ir) return ir.error();
  s.ir = std::move(*ir);
  return s;
}

Result<review::ChangeSet> compute_change_set(const ReviewSession& s, const review::Classifier& classifier, bool running,
                                             const ChangeWalkOptions& options) {
  review::ChangeSet set;
  set.session_id = s.id;
  set.running = running;
  set.started_ns = s.roots.started_ns;
  set.interrupted_apply = s.journal.has_value();
  Walker walker(s, options, set);
  // Room for 65,536 changes up front: reserving costs address space, not memory (a page is touched
  // only when a change fills it), and a growing set would otherwise move every change it holds
  // into fresh pages at each doubling, a tenth of what listing ten thousand changes cost.
  set.changes.reserve(std::size_t{1} << 16);
  for (const auto& r : s.roots.roots) walker.walk_root(r);
  if (!walker.over_budget() && options.binary_markers) walker.mark_binary();
  if (walker.over_budget())
    return Error{ErrorCode::kRefused, "session " + s.id + " changed more than " + std::to_string(options.max_entries) +
                                          " entries; the review lists no more than that"};
  find_renames(set, s, options.rename_compares);
  // The walk visits names in order, so the set is mostly sorted already ("a-b" sorts before
  // "a/b" is the exception): checking first spares moving ten thousand changes through a sort.
  const auto by_path = [](const Change& a, const Change& b) { return a.path < b.path; };
  if (!std::is_sorted(set.changes.begin(), set.changes.end(), by_path))
    std::sort(set.changes.begin(), set.changes.end(), by_path);
  std::map<std::string, review::ChangeFacts> facts = git_index_facts(s, set);
  classifier.classify(set.changes, facts);
  add_commit_offers(s, set);
  for (auto& c : set.changes)
    if (const auto* d = s.state.find(c.path); d && d->upper == c.upper_stamp) c.decision = session::to_string(d->decision);
  return set;
}

Result<LoadedReview> load_review(const std::string& session_dir, const std::string& id, const std::string& resources_dir,
                                 bool running, const ChangeWalkOptions& options) {
  auto s = open_review_session(session_dir, id);
  if (!s) return s.error();
  auto tool = load_builtin_list(resources_dir, "tool-executed");
  if (!tool) return tool.error();
  auto agent = load_builtin_list(resources_dir, "agent-config");
  if (!agent) return agent.error();
  review::Classifier classifier({s->ir.meta.project, s->ir.meta.home, &*tool, &*agent});
  auto set = compute_change_set(*s, classifier, running, options);
  if (!set) return set.error();
  return LoadedReview{std::move(*s), std::move(*set)};
}

Result<std::string> read_change_side(const ReviewSession& s, const review::Change& c, bool after, std::size_t max_bytes) {
  const EntryState& side = after ? c.after : c.before;
  if (side.type != EntryType::kFile) return std::string();
  std::string path = after ? s.upper_path(c.path).value_or("") : (c.renamed_from.empty() ? c.path : c.renamed_from);
  if (path.empty()) return bad_input(c.path + " is in no review root of session " + s.id);
  ReadOptions o;
  o.max_bytes = max_bytes;
  o.no_follow = true;
  // The session's side is in a tree the agent made: a directory it turned into a symlink while
  // it runs must not show another file as its change.
  o.no_symlinks = after;
  return read_file(path, o);
}

}  // namespace paddock::platform
