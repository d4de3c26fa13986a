#include "platform/audit/audit_walk.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

constexpr unsigned kStatxMask = STATX_TYPE | STATX_MODE | STATX_INO | STATX_SIZE | STATX_CTIME | STATX_BTIME;
constexpr int kStatxFlags = AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT;

std::int64_t ns(const statx_timestamp& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

review::EntryType type_of(std::uint16_t mode) {
  if (S_ISREG(mode)) return review::EntryType::kFile;
  if (S_ISDIR(mode)) return review::EntryType::kDir;
  if (S_ISLNK(mode)) return review::EntryType::kSymlink;
  return review::EntryType::kOther;
}

void fill(WalkEntry& e, const struct statx& st, std::int64_t since_ns) {
  e.type = type_of(st.stx_mode);
  e.mode = st.stx_mode & 07777;
  e.stamp = {st.stx_ino, static_cast<std::int64_t>(st.stx_size), ns(st.stx_ctime)};
  e.born = (st.stx_mask & STATX_BTIME) != 0 && ns(st.stx_btime) >= since_ns;
}

int open_beneath(int root_fd, const std::string& rel) {
  open_how how{};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, root_fd, rel.empty() ? "." : rel.c_str(), &how, sizeof how));
}

struct Item {
  std::size_t root = 0;
  std::string rel;  // "" = the root itself
  std::size_t depth = 0;
};

class Walk {
 public:
  Walk(const std::vector<std::string>& roots, const AuditWalkOptions& o) : roots_(roots), o_(o) {
    for (const auto& s : o.skip) skip_.insert(s);
  }

  AuditWalkResult run() {
    for (std::size_t i = 0; i < roots_.size(); ++i) {
      open_how how{};
      how.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW;
      how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
      UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, roots_[i].c_str(), &how, sizeof how)));
      struct statx st {};
      if (!fd.valid() || ::statx(fd.get(), "", AT_EMPTY_PATH | kStatxFlags, kStatxMask, &st) != 0) {
        if (errno != ENOENT) problem(roots_[i] + ": cannot be read (" + std::strerror(errno) + "): not audited");
        root_fds_.emplace_back();
        continue;
      }
      ++visited_;
      WalkEntry e;
      e.path = roots_[i];
      e.root = roots_[i];
      fill(e, st, o_.since_ns);
      if (st.stx_ctime.tv_sec * 1000000000LL + st.stx_ctime.tv_nsec >= o_.since_ns && !skip_.count(roots_[i]))
        results_.push_back(std::move(e));
      const bool dir = S_ISDIR(st.stx_mode);
      root_fds_.push_back(std::move(fd));
      if (dir && !skip_.count(roots_[i])) queue_.push_back({i, "", 0});
    }
    unsigned n = o_.threads ? o_.threads : std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n; ++t) threads.emplace_back([this] { work(); });
    work();
    for (auto& t : threads) t.join();
    AuditWalkResult out;
    out.changed = std::move(results_);
    std::sort(out.changed.begin(), out.changed.end(), [](const WalkEntry& a, const WalkEntry& b) { return a.path < b.path; });
    out.visited = visited_.load();
    out.problems = std::move(problems_);
    if (dropped_problems_)
      out.problems.push_back(std::to_string(dropped_problems_) + " more directories could not be audited (not listed)");
    return out;
  }

 private:
  void problem(std::string p) {
    std::lock_guard<std::mutex> l(m_);
    if (problems_.size() < 100) problems_.push_back(std::move(p));
    else ++dropped_problems_;
  }

  void work() {
    std::vector<WalkEntry> found;
    std::vector<Item> pushed;
    std::vector<char> buf(std::size_t{64} << 10);
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return !queue_.empty() || active_ == 0 || stop_; });
        if (stop_ || queue_.empty()) break;
        item = std::move(queue_.back());
        queue_.pop_back();
        ++active_;
      }
      list(item, buf, found, pushed);
      {
        std::lock_guard<std::mutex> l(m_);
        for (auto& p : pushed) queue_.push_back(std::move(p));
        pushed.clear();
        --active_;
      }
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> l(m_);
    for (auto& e : found) results_.push_back(std::move(e));
    cv_.notify_all();
  }

  void list(const Item& item, std::vector<char>& buf, std::vector<WalkEntry>& found, std::vector<Item>& pushed) {
    const std::string& root = roots_[item.root];
    const std::string dir_path = item.rel.empty() ? root : (root == "/" ? "" : root) + "/" + item.rel;
    UniqueFd dir(open_beneath(root_fds_[item.root].get(), item.rel));
    if (!dir.valid()) {
      // Gone since it was listed (the host removed it): nothing to audit there.
      if (errno != ENOENT) problem(dir_path + ": cannot be read (" + std::strerror(errno) + "): not audited");
      return;
    }
    for (;;) {
      const long n = ::syscall(SYS_getdents64, dir.get(), buf.data(), buf.size());
      if (n < 0) {
        problem(dir_path + ": cannot be listed (" + std::strerror(errno) + "): not audited");
        return;
      }
      if (n == 0) return;
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buf.data() + off);
        off += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
        if (visited_.fetch_add(1) + 1 > o_.budget) {
          std::lock_guard<std::mutex> l(m_);
          if (!stop_) {
            stop_ = true;
            problems_.push_back("the walk of " + join_roots() + " stopped after " + std::to_string(o_.budget) +
                                " entries (its budget): what lies beyond was not audited");
          }
          cv_.notify_all();
          return;
        }
        struct statx st {};
        if (::statx(dir.get(), name, kStatxFlags, kStatxMask, &st) != 0) {
          if (errno != ENOENT) problem(dir_path + "/" + name + ": cannot be looked at (" + std::strerror(errno) + ")");
          continue;
        }
        const std::string rel = item.rel.empty() ? std::string(name) : item.rel + "/" + name;
        const bool changed = ns(st.stx_ctime) >= o_.since_ns;
        const bool is_dir = S_ISDIR(st.stx_mode);
        if (!changed && !is_dir) continue;
        std::string path = (root == "/" ? "" : root) + "/" + rel;
        if (skip_.count(path)) continue;
        if (is_dir) {
          if (item.depth + 1 > o_.depth)
            problem(path + ": deeper than " + std::to_string(o_.depth) + " levels below " + root + ": not audited");
          else
            pushed.push_back({item.root, rel, item.depth + 1});
        }
        if (changed) {
          WalkEntry e;
          e.path = std::move(path);
          e.root = root;
          fill(e, st, o_.since_ns);
          found.push_back(std::move(e));
        }
      }
    }
  }

  std::string join_roots() const {
    std::string s;
    for (const auto& r : roots_) s += (s.empty() ? "" : ", ") + r;
    return s;
  }

  const std::vector<std::string>& roots_;
  const AuditWalkOptions& o_;
  std::unordered_set<std::string> skip_;
  std::vector<UniqueFd> root_fds_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Item> queue_;
  int active_ = 0;
  bool stop_ = false;
  std::atomic<std::size_t> visited_{0};
  std::vector<WalkEntry> results_;
  std::vector<std::string> problems_;
  std::size_t dropped_problems_ = 0;
};

}  // namespace

AuditWalkResult walk_changed(const std::vector<std::string>& roots, const AuditWalkOptions& options) {
  return Walk(roots, options).run();
}

bool stat_entry(const std::string& path, WalkEntry& out, std::int64_t since_ns) {
  struct statx st {};
  if (::statx(AT_FDCWD, path.c_str(), kStatxFlags, kStatxMask, &st) != 0) return false;
  out.path = path;
  fill(out, st, since_ns);
  return true;
}

}  // namespace paddock::platform
