#include "platform/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

Error read_error(const std::string& path, const std::string& why) { return bad_input("cannot read " + path + ": " + why); }

int open_for_read(const std::string& path, int flags, bool no_symlinks) {
  if (!no_symlinks) return ::open(path.c_str(), flags);
#ifdef __linux__
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags);
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
#elif defined(O_NOFOLLOW_ANY)
  return ::open(path.c_str(), flags | O_NOFOLLOW_ANY);
#else
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

Result<std::optional<std::string>> read_file_if_exists(const std::string& path, const ReadOptions& o) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (o.no_follow ? O_NOFOLLOW : 0);
  UniqueFd fd(open_for_read(path, flags, o.no_symlinks));
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    if (errno == ELOOP && o.no_symlinks) return read_error(path, "a symlink is in its path");
    if (errno == ELOOP && o.no_follow) return read_error(path, "it is a symlink");
    return read_error(path, std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return read_error(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return read_error(path, "not a regular file");
  if (o.private_only && (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0))
    return read_error(path, "not a private file of this user (owner or mode)");
  if (!o.prefix && static_cast<std::size_t>(st.st_size) > o.max_bytes)
    return read_error(path, std::to_string(st.st_size) + " bytes, more than " + std::to_string(o.max_bytes));
  std::string out;
  // Kernel files report size 0 and are read until EOF; regular files of known size in one go.
  out.reserve(std::min<std::size_t>(st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 4096, o.max_bytes));
  char buf[65536];
  for (;;) {
    const std::size_t room = o.max_bytes - std::min(o.max_bytes, out.size());
    if (room == 0) {
      if (o.prefix) break;
      // Grown past the limit while being read (or a size-0 kernel file that large).
      char probe;
      ssize_t n;
      while ((n = ::read(fd.get(), &probe, 1)) < 0 && errno == EINTR) {}
      if (n == 0) break;
      return read_error(path, "more than " + std::to_string(o.max_bytes) + " bytes");
    }
    const ssize_t n = ::read(fd.get(), buf, std::min(sizeof buf, room));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return read_error(path, std::strerror(errno));
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return std::optional<std::string>(std::move(out));
}

Result<std::string> read_file(const std::string& path, const ReadOptions& o) {
  auto r = read_file_if_exists(path, o);
  if (!r.ok()) return r.error();
  if (!*r) return read_error(path, std::strerror(ENOENT));
  return std::move(**r);
}

}  // namespace paddock::platform
