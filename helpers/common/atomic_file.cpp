#include "helpers/common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "helpers/common/unique_fd.h"

namespace paddock::helper {
namespace {

std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

Status write_file_atomic(const std::string& path, const std::string& bytes, unsigned mode) {
  std::string tmp = path + ".tmp-" + std::to_string(getpid());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd.valid()) return internal_error(errno_text("cannot create", tmp));
  // No fsync: rename(2) already makes the file appear whole or not at all if the process dies,
  // which is the promise (DESIGN §9); an fsync per file would dominate session start-up.
  if (!write_all(fd.get(), bytes.data(), bytes.size())) {
    Error e = internal_error(errno_text("cannot write", tmp));
    ::unlink(tmp.c_str());
    return e;
  }
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = internal_error(errno_text("cannot rename into", path));
    ::unlink(tmp.c_str());
    return e;
  }
  return Status::Ok();
}

Status append_line(const std::string& path, const std::string& line) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return internal_error(errno_text("cannot open", path));
  std::string with_lf = line + "\n";
  if (!write_all(fd.get(), with_lf.data(), with_lf.size()))
    return internal_error(errno_text("cannot append to", path));
  return Status::Ok();
}

Result<std::string> read_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return bad_input(errno_text("cannot read", path));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return bad_input(errno_text("cannot read", path));
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

Status make_dirs(const std::string& path, unsigned mode) {
  if (path.empty()) return bad_input("empty directory path");
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST)
      return internal_error(errno_text("cannot create directory", cur));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return internal_error("not a directory: " + path);
  return Status::Ok();
}

}  // namespace paddock::helper
