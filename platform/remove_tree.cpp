#include "platform/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "platform/unique_fd.h"

namespace paddock::platform {

Status remove_tree_at(int dirfd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status::Ok() : internal_error(name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    ::fchmodat(dirfd, name.c_str(), 0700, 0);
    UniqueFd d(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!d.valid()) return internal_error("cannot open " + name + ": " + std::strerror(errno));
    DIR* dir = ::fdopendir(::fcntl(d.get(), F_DUPFD_CLOEXEC, 0));
    if (!dir) return internal_error("cannot list " + name);
    std::vector<std::string> names;
    while (dirent* e = ::readdir(dir)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(dir);
    for (const auto& n : names)
      if (auto s = remove_tree_at(d.get(), n); !s.ok()) return s;
    if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0)
      return internal_error("cannot remove " + name + ": " + std::strerror(errno));
    return Status::Ok();
  }
  if (::unlinkat(dirfd, name.c_str(), 0) != 0) return internal_error("cannot remove " + name + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace paddock::platform
