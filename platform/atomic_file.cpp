#include "platform/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

namespace paddock::platform {
namespace {

Error io_error(const std::string& what, const std::string& path, int err = errno) {
  return internal_error(what + " " + path + ": " + std::strerror(err));
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Unique among this process's temporaries; O_EXCL settles a clash with anyone else's.
std::string temp_suffix() {
  static std::atomic<unsigned> counter{0};
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(static_cast<unsigned long>(ts.tv_nsec) & 0xffffu);
}

}  // namespace

AtomicFile::AtomicFile(AtomicFile&& o) noexcept { *this = std::move(o); }

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
  if (this != &o) {
    discard();
    path_ = std::move(o.path_);
    tmp_ = std::move(o.tmp_);
    fd_ = std::move(o.fd_);
    dir_fd_ = std::move(o.dir_fd_);
    mode_ = o.mode_;
    dirty_ = o.dirty_;
    durable_ = o.durable_;
    o.tmp_.clear();
  }
  return *this;
}

Status AtomicFile::open(const std::string& path, const WriteOptions& options) {
  discard();
  if (path.empty() || path.back() == '/') return bad_input("cannot write '" + path + "': not a file name");
  const std::string dir = dir_of(path), base = base_of(path);
  if (options.create_dirs)
    if (auto s = make_dirs(dir); !s.ok()) return s;
  mode_ = options.mode & 07777;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return bad_input(path + " is a symlink; Paddock does not write through or replace symlinks");
    if (!S_ISREG(st.st_mode)) return bad_input(path + " exists and is not a regular file");
    if (options.keep_mode) mode_ = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    return io_error("cannot write", path);
  }
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd.valid()) return io_error("cannot open the directory of", path);
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string tmp = "." + base + temp_suffix();
    // 0600 while it fills: nobody else can open the file before its final mode is set.
    UniqueFd fd(::openat(dir_fd.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid() && errno == EEXIST) continue;
    if (!fd.valid()) return io_error("cannot create a temporary file for", path);
    path_ = path;
    tmp_ = tmp;
    fd_ = std::move(fd);
    dir_fd_ = std::move(dir_fd);
    dirty_ = false;
    durable_ = options.durable;
    return Status::Ok();
  }
  return internal_error("cannot create a temporary file for " + path + ": names kept clashing");
}

Status AtomicFile::write(std::string_view bytes) {
  if (!fd_.valid()) return internal_error("write to " + path_ + " that is not open");
  if (!write_all(fd_.get(), bytes)) {
    Error e = io_error("cannot write", path_);
    discard();
    return e;
  }
  dirty_ = dirty_ || !bytes.empty();
  return Status::Ok();
}

Status AtomicFile::sync() {
  if (!fd_.valid()) return internal_error("sync of " + path_ + " that is not open");
  if (::fsync(fd_.get()) != 0) {
    Error e = io_error("cannot sync", path_);
    discard();
    return e;
  }
  dirty_ = false;
  return Status::Ok();
}

Status AtomicFile::commit(DirSync dir_sync) {
  if (!fd_.valid()) return internal_error("commit of " + path_ + " that is not open");
  if (mode_ != 0600) {
    if (::fchmod(fd_.get(), mode_) != 0) {
      Error e = io_error("cannot set the mode of", path_);
      discard();
      return e;
    }
    dirty_ = true;  // the mode is metadata the sync must carry too
  }
  if (dirty_ && durable_)
    if (auto s = sync(); !s.ok()) return s;
  fd_.reset();
  if (::renameat(dir_fd_.get(), tmp_.c_str(), dir_fd_.get(), base_of(path_).c_str()) != 0) {
    Error e = io_error("cannot replace", path_);
    discard();
    return e;
  }
  tmp_.clear();
  if (dir_sync == DirSync::kByCaller || !durable_) {
    dir_fd_.reset();
    return Status::Ok();
  }
  // The rename is durable only once the directory is; a file system without directory fsync
  // (EINVAL) has nothing more to offer.
  const bool synced = ::fsync(dir_fd_.get()) == 0 || errno == EINVAL;
  const int err = errno;
  dir_fd_.reset();
  if (!synced) return io_error("cannot sync the directory of", path_, err);
  return Status::Ok();
}

void AtomicFile::discard() {
  fd_.reset();
  if (!tmp_.empty() && dir_fd_.valid()) ::unlinkat(dir_fd_.get(), tmp_.c_str(), 0);
  tmp_.clear();
  dir_fd_.reset();
}

Status sync_all(std::initializer_list<AtomicFile*> files) {
  std::vector<AtomicFile*> open;
  for (AtomicFile* f : files)
    if (f && f->is_open()) open.push_back(f);
  std::vector<Status> results(open.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < open.size(); ++i) {
    try {
      threads.emplace_back([&results, &open, i] { results[i] = open[i]->sync(); });
    } catch (const std::system_error&) {
      results[i] = open[i]->sync();  // no thread to spare: in turn, then
    }
  }
  if (!open.empty()) results[0] = open[0]->sync();
  for (auto& t : threads) t.join();
  for (const auto& r : results)
    if (!r.ok()) return r;
  return Status::Ok();
}

Status sync_directory(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return io_error("cannot open directory", dir);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) return io_error("cannot sync directory", dir);
  return Status::Ok();
}

Status write_file_atomic(const std::string& path, std::string_view bytes, const WriteOptions& options) {
  AtomicFile f;
  if (auto s = f.open(path, options); !s.ok()) return s;
  if (auto s = f.write(bytes); !s.ok()) return s;
  return f.commit();
}

Status stage_copy(int dirfd, const std::string& tmp, int src_fd, const StageOptions& options) {
  struct stat src {};
  if (::fstat(src_fd, &src) != 0) return io_error("cannot read the source of", tmp);
  UniqueFd fd(::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return io_error("cannot create", tmp);
  const auto fail = [&](const std::string& what) {
    Error e = io_error(what, tmp);
    fd.reset();
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return e;
  };
  // copy_file_range shares extents where the file system can (reflinks) and copies in the kernel
  // otherwise; across file systems older kernels refuse it, and read/write does the copy.
  off_t left = src.st_size;
  bool kernel_copy = true;
  while (left > 0 && kernel_copy) {
    const ssize_t n = ::copy_file_range(src_fd, nullptr, fd.get(), nullptr, static_cast<std::size_t>(left), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) kernel_copy = false;
    else if (n < 0) return fail("cannot write");
    else if (n == 0) break;  // the source shrank meanwhile
    else left -= n;
  }
  if (!kernel_copy) {
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(src_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail("cannot read the source of");
      if (n == 0) break;
      if (!write_all(fd.get(), std::string_view(buf, static_cast<std::size_t>(n)))) return fail("cannot write");
    }
  }
  if (options.keep_owner && ::fchown(fd.get(), src.st_uid, src.st_gid) != 0) return fail("cannot set the owner of");
  if (::fchmod(fd.get(), options.mode & 07777) != 0) return fail("cannot set the mode of");
  if (options.keep_times) {
    const timespec times[2] = {src.st_atim, src.st_mtim};
    if (::futimens(fd.get(), times) != 0) return fail("cannot set the times of");
  }
  return Status::Ok();
}

Status sync_filesystem(int fd) {
  if (::syncfs(fd) != 0) return io_error("cannot sync the file system of", "a staged batch");
  return Status::Ok();
}

Status make_dirs(const std::string& path, unsigned mode) {
  if (path.empty()) return bad_input("empty directory path");
  for (std::size_t pos = 0; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    const std::string cur = path.substr(0, pos);
    if (cur.empty() || cur == "/") continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return io_error("cannot create directory", cur);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return internal_error("not a directory: " + path);
  return Status::Ok();
}

}  // namespace paddock::platform
