#include "helpers/linux/mount_view_fd.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "helpers/linux/sys_error.h"
#include "platform/unique_fd.h"

namespace paddock::helper::view_fd {

using platform::UniqueFd;

namespace {
constexpr std::uint64_t kResolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
}  // namespace

int open_beneath(int dirfd, const std::string& rel, int flags) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = kResolve;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how));
}

std::string relative_to(const std::string& path, const std::string& root) {
  if (path == root) return ".";
  if (root == "/") return path.substr(1);
  return path.substr(root.size() + 1);
}

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < rel.size()) {
    std::size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    if (j > i && rel.compare(i, j - i, ".") != 0) out.push_back(rel.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

Error changed(const std::string& path, const std::string& what) {
  return refused(path + " " + what + " since the policy was resolved; nothing was run (run again)");
}

Error open_failed(const std::string& path, const std::string& subject) {
  if (errno == ENOENT || errno == ENOTDIR) return changed(path, subject + "is gone");
  if (errno == ELOOP || errno == EXDEV) return changed(path, subject + "became a symlink");
  return sys_error("open", path);
}

Status attach_clone(int src, int target, unsigned attrs, const std::string& what) {
  UniqueFd tree(::open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
  if (!tree.valid()) return sys_error("clone mount for", what);
  mount_attr attr{attrs, 0, 0, 0};
  if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
    return sys_error("set mount attributes of", what);
  if (::move_mount(tree.get(), "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
    return sys_error("mount", what);
  return Status::Ok();
}

bool is_dir(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

session::PlaceholderRecord made_placeholder(const std::string& path, bool dir, const struct stat& st, std::string content) {
  return {path, dir, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, std::move(content)};
}

bool is_empty_file(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

std::optional<std::string> read_small(int dirfd, const std::string& rel, std::size_t limit) {
  UniqueFd fd(open_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  char buf[8192];
  while (out.size() <= limit) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

bool is_symlink(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace paddock::helper::view_fd
