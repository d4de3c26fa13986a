#include "helpers/linux/placeholders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/ir.h"
#include "engine/session/placeholder_record.h"
#include "platform/atomic_file.h"
#include "platform/placeholders.h"
#include "platform/read_file.h"

namespace paddock::helper {
namespace {

using platform::UniqueFd;

bool lock_blocking(int fd, int how) {
  int rc;
  while ((rc = ::flock(fd, how)) != 0 && errno == EINTR) {}
  return rc == 0;
}

std::int64_t ctime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}

bool empty_dir(const std::string& path) {
  DIR* d = ::opendir(path.c_str());
  if (!d) return false;
  bool empty = true;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  ::closedir(d);
  return empty;
}

// rmdir or unlink; where the parent directory is the caller's own but not writable to it (a
// nested repository's `.git` at mode 0555: the sandbox's uid 0 could create in it, the caller
// cannot remove from it), the parent is made writable for the removal and its mode put back.
int remove_entry(const std::string& path, bool dir) {
  auto remove = [&] { return dir ? ::rmdir(path.c_str()) : ::unlink(path.c_str()); };
  if (remove() == 0) return 0;
  if (errno != EACCES && errno != EPERM) return errno;
  const std::string parent = path.substr(0, path.rfind('/'));
  struct stat pst {};
  if (parent.empty() || ::lstat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode) || pst.st_uid != ::geteuid() ||
      (pst.st_mode & S_IWUSR))
    return EACCES;
  const mode_t mode = pst.st_mode & 07777;
  if (::chmod(parent.c_str(), mode | S_IWUSR | S_IXUSR) != 0) return errno;
  const int err = remove() == 0 ? 0 : errno;
  ::chmod(parent.c_str(), mode);
  return err;
}

}  // namespace

Result<PlaceholderRegistry> PlaceholderRegistry::open(const std::string& dir) {
  if (dir.empty()) return refused("no state directory to record placeholders in (HOME is not absolute)");
  // The state directory may not exist yet on a fresh home: made as the session files' are, 0700.
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    const std::string cur = dir.substr(0, pos);
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
      return refused("cannot create " + cur + ": " + std::strerror(errno));
  }
  const std::string locks = dir + "/locks";
  if (::mkdir(locks.c_str(), 0700) != 0 && errno != EEXIST)
    return refused("cannot create " + locks + ": " + std::strerror(errno));
  PlaceholderRegistry r;
  r.dir_ = dir;
  const std::string lock = dir + "/.lock";
  r.lock_.reset(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!r.lock_.valid()) return refused("cannot open " + lock + ": " + std::strerror(errno));
  if (!lock_blocking(r.lock_.get(), LOCK_SH)) return refused("cannot lock " + lock + ": " + std::strerror(errno));
  return r;
}

std::string PlaceholderRegistry::lock_path(const std::string& path) const {
  return dir_ + "/locks/" + sha256_hex(path).substr(7, 32);
}

Status PlaceholderRegistry::hold(const std::vector<std::string>& paths) {
  if (!lock_.valid()) return refused("the placeholder registry is not open");
  for (const std::string& p : paths) {
    if (held_.count(p)) continue;
    const std::string lock = lock_path(p);
    UniqueFd fd(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) return refused("cannot open " + lock + ": " + std::strerror(errno));
    // Blocks only while another session is removing the placeholder at p (a few syscalls).
    if (!lock_blocking(fd.get(), LOCK_SH)) return refused("cannot lock " + lock + ": " + std::strerror(errno));
    held_.emplace(p, std::move(fd));
  }
  return Status::Ok();
}

Status PlaceholderRegistry::record(const std::vector<Placeholder>& made) {
  if (made.empty()) return {};
  std::vector<std::string> paths;
  std::string joined;
  for (const Placeholder& p : made) {
    paths.push_back(p.path);
    joined += p.path + '\n';
  }
  if (auto s = hold(paths); !s) return s;
  // Named by what it lists: sessions add records without a shared file to edit.
  const std::string name = dir_ + "/" + sha256_hex(joined).substr(7, 32) + ".json";
  return platform::write_file_atomic(name, session::encode_placeholder_records(made));
}

std::vector<std::string> PlaceholderRegistry::sweep() {
  std::vector<std::string> problems;
  if (!lock_.valid()) return problems;
  struct Entry {
    session::PlaceholderRecord made;
    std::size_t record;
    bool keep = false;
  };
  std::vector<std::string> records;
  std::vector<Entry> entries;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
      records.push_back(dir_ + "/" + name);
      auto text = platform::read_file(records.back());
      auto list = text ? session::decode_placeholder_records(*text) : Result<std::vector<session::PlaceholderRecord>>(
                                                                          refused("unreadable"));
      // A record that cannot be read names nothing that could be removed safely: it goes.
      if (!list) continue;
      for (auto& m : *list) entries.push_back({std::move(m), records.size() - 1});
    }
    ::closedir(d);
  }
  // Children before their parents: a placeholder directory can only go once it is empty.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.made.path > b.made.path; });
  for (Entry& e : entries) {
    const std::string& path = e.made.path;
    // Another session relies on it while it holds the path's shared lock: then that session, or
    // the last one to use it, removes it.
    UniqueFd own;
    int fd = -1;
    if (auto it = held_.find(path); it != held_.end()) {
      fd = it->second.get();
    } else {
      own.reset(::open(lock_path(path).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
      fd = own.get();
    }
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      e.keep = true;
      continue;
    }
    struct stat st {};
    // Gone, or replaced by something else: not Paddock's any more, nothing to do.
    if (::lstat(path.c_str(), &st) != 0 || st.st_dev != e.made.dev || st.st_ino != e.made.ino) continue;
    // An empty file with the inode number but not the change time is a new one (the user's own
    // made after the placeholder went): not Paddock's. (A directory's change time moves with
    // what is added to it, which the emptiness test below sees.)
    const bool recreated = !e.made.dir && e.made.ctime_ns != 0 && ctime_ns(st) != e.made.ctime_ns;
    if (recreated && S_ISREG(st.st_mode) && st.st_size == 0) continue;
    // A file placeholder holds what was put there: nothing, or a git pointer's ".".
    const bool still_empty = e.made.dir ? S_ISDIR(st.st_mode) && empty_dir(path)
                                        : platform::holds_only(path, st, e.made.content) && !recreated;
    if (!still_empty) {
      // Something wrote into it: the user's (or an agent's) now, and never removed silently.
      const bool git = path.size() >= 5 && path.compare(path.size() - 5, 5, "/.git") == 0;
      problems.push_back(path + (e.made.content.empty() ? ": the empty" : ": the") +
                         " placeholder Paddock made here for the session was written to" +
                         (git ? std::string(" (a repository was begun in it; git on this machine now reads it)") : "") +
                         ", so it was left as it is: look at it, and remove it if you did not make it");
      continue;
    }
    if (const int err = remove_entry(path, e.made.dir); err != 0) {
      e.keep = true;  // tried again by the next session that ends
      problems.push_back(path + ": the placeholder Paddock made here could not be removed (" + std::strerror(err) +
                         "); remove it by hand if it stays");
    }
  }
  // The records keep what is still in use or could not be removed.
  for (std::size_t r = 0; r < records.size(); ++r) {
    std::vector<session::PlaceholderRecord> kept;
    for (const Entry& e : entries)
      if (e.record == r && e.keep) kept.push_back(e.made);
    if (kept.empty()) ::unlink(records[r].c_str());
    else (void)platform::write_file_atomic(records[r], session::encode_placeholder_records(kept));
  }
  held_.clear();
  // With no other session left, the per-path lock files go too (a session takes the registry's
  // shared lock before any of them, so none is being opened now).
  if (::flock(lock_.get(), LOCK_EX | LOCK_NB) == 0) {
    const std::string locks = dir_ + "/locks";
    if (DIR* d = ::opendir(locks.c_str())) {
      while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') ::unlinkat(::dirfd(d), e->d_name, 0);
      ::closedir(d);
    }
  }
  lock_.reset();
  return problems;
}

std::optional<std::string> git_exclude_pattern(const std::string& rel) {
  if (rel.empty() || rel[0] != '/' || rel.find('\n') != std::string::npos) return std::nullopt;
  std::string out;
  for (char c : rel) {
    if (c == '\\' || c == '*' || c == '?' || c == '[' || c == '!' || c == '#') out += '\\';
    out += c;
  }
  // Trailing spaces are dropped by git unless escaped.
  std::size_t end = out.size();
  while (end > 0 && out[end - 1] == ' ') --end;
  std::string tail;
  for (std::size_t i = end; i < out.size(); ++i) tail += "\\ ";
  return out.substr(0, end) + tail;
}

bool makes_placeholder(linux_backend::MountOp op) {
  using linux_backend::MountOp;
  return op == MountOp::kProtectAbsentDir || op == MountOp::kProtectAbsentFile || op == MountOp::kProtectAbsentPointer ||
         op == MountOp::kMaskAbsent;
}

std::vector<std::string> placeholder_candidates(const std::vector<linux_backend::MountStep>& steps) {
  std::vector<std::string> out;
  for (const auto& m : steps) {
    if (!makes_placeholder(m.op)) continue;
    if (m.within.empty() || m.target.size() <= m.within.size() || m.target.compare(0, m.within.size(), m.within) != 0)
      continue;
    for (std::size_t pos = m.within == "/" ? 0 : m.within.size(); pos != std::string::npos;) {
      pos = m.target.find('/', pos + 1);
      out.push_back(m.target.substr(0, pos));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace paddock::helper
