#include "platform/audit/preserve.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "platform/atomic_file.h"
#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

bool within(const std::string& p, const std::string& root) {
  return root == "/" || p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/');
}

std::string parent_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_name(const std::string& p) { return p.substr(p.rfind('/') + 1); }

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

session::FileStamp stamp_of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

int open_no_symlinks(const std::string& path) {
  open_how how{};
  how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
}

bool read_all(int fd, std::size_t size, std::string& out) {
  out.resize(size);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return done == size;
}

}  // namespace

std::vector<std::string> files_to_preserve(const FrozenIr& ir, const std::vector<std::string>& direct_roots) {
  auto in_roots = [&](const std::string& p) {
    return std::any_of(direct_roots.begin(), direct_roots.end(), [&](const std::string& r) { return within(p, r); });
  };
  // Git directories: each root's .git, and every directory whose config and hooks the engine
  // protects (nested repositories, submodules' and worktrees' git directories).
  std::set<std::string> git_dirs;
  for (const auto& r : direct_roots)
    if (is_dir(r + "/.git")) git_dirs.insert(r + "/.git");
  std::set<std::string> protected_paths;
  for (const auto& d : ir.fs.deny_write) protected_paths.insert(d.path);
  for (const auto& d : ir.fs.deny_write)
    if (base_name(d.path) == "config" && protected_paths.count(parent_of(d.path) + "/hooks") && in_roots(d.path))
      git_dirs.insert(parent_of(d.path));
  std::set<std::string> files;
  for (const auto& g : git_dirs) {
    // The index (a gitlink added to it), and config (its command settings) where the engine
    // leaves it writable.
    for (const char* name : {"index", "config", "config.worktree"}) files.insert(g + "/" + name);
    // info/ holds a few small files (exclude, attributes, sparse-checkout); a directory with more
    // is not git's.
    if (DIR* d = ::opendir((g + "/info").c_str())) {
      int n = 0;
      while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
        if (++n > 32) break;
        files.insert(g + "/info/" + e->d_name);
      }
      ::closedir(d);
    }
  }
  for (const auto& w : ir.fs.watched_configs)
    if (in_roots(w.path)) files.insert(w.path);
  return {files.begin(), files.end()};
}

Preserver Preserver::open(const std::vector<std::string>& paths, std::size_t file_max, std::size_t total_max,
                          std::size_t max_files) {
  Preserver p;
  std::size_t total = 0;
  for (const auto& path : paths) {
    if (p.entries_.size() >= max_files) break;
    UniqueFd fd(open_no_symlinks(path));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    Entry e;
    e.path = path;
    e.stamp = stamp_of(st);
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size <= file_max && total + size <= total_max) {
      std::string bytes;
      struct stat again {};
      // Read whole and unchanged meanwhile (the agent does not run yet; the user might).
      if (read_all(fd.get(), size, bytes) && ::fstat(fd.get(), &again) == 0 && stamp_of(again) == e.stamp) {
        total += size;
        e.bytes = std::move(bytes);
      }
    }
    p.entries_.push_back(std::move(e));
  }
  return p;
}

std::vector<session::PreservedFile> Preserver::stamps() const {
  std::vector<session::PreservedFile> out;
  for (const auto& e : entries_) out.push_back({e.path, e.stamp});
  return out;
}

std::map<std::string, PreservedOutcome> Preserver::save_changed(const std::string& session_dir) const {
  std::map<std::string, PreservedOutcome> out;
  const std::string dir = session::audit_preserved_dir(session_dir);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    struct stat now {};
    if (::lstat(e.path.c_str(), &now) != 0) continue;  // gone: nothing of it to report
    if (stamp_of(now) == e.stamp) continue;
    PreservedOutcome o;
    o.before = e.stamp;
    if (!e.bytes) {
      o.note = "larger than Paddock keeps in memory at the start: its content before the session was not kept";
      out.emplace(e.path, std::move(o));
      continue;
    }
    const std::string name = "preserved/" + std::to_string(i);
    WriteOptions w;
    w.create_dirs = true;
    if (auto s = write_file_atomic(dir + "/" + std::to_string(i), *e.bytes, w); !s) {
      o.note = "its content before the session could not be saved: " + s.error().message;
    } else {
      o.name = name;
    }
    out.emplace(e.path, std::move(o));
  }
  return out;
}

}  // namespace paddock::platform
