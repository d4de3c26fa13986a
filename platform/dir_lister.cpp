#include "platform/dir_lister.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "platform/read_file.h"
#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

EntryKind kind_of(unsigned char type) {
  switch (type) {
    case DT_DIR: return EntryKind::kDirectory;
    case DT_LNK: return EntryKind::kSymlink;
    case DT_SOCK: return EntryKind::kSocket;
    default: return EntryKind::kOther;
  }
}

class GetdentsLister final : public DirectoryLister {
 public:
  Result<std::optional<std::string>> read_regular(const std::string& path, std::size_t max, bool prefix,
                                                  bool follow) const override {
    ReadOptions o;
    o.max_bytes = max;
    o.prefix = prefix;
    o.no_follow = !follow;
    return read_file_if_exists(path, o);
  }

  std::error_code list(const std::string& dir, Visitor& visitor) const override {
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return {errno == ELOOP ? ENOTDIR : errno, std::generic_category()};
    thread_local std::vector<char> buf(1 << 16);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd.get(), buf.data(), buf.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return {errno, std::generic_category()};
      }
      if (n == 0) return {};
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buf.data() + off);
        off += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
        unsigned char type = d->d_type;
        if (type == DT_UNKNOWN) {
          struct stat st {};
          if (::fstatat(fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : S_ISSOCK(st.st_mode) ? DT_SOCK : DT_REG;
        }
        if (!visitor.entry(std::string_view(name, std::strlen(name)), kind_of(type))) return {};
      }
    }
  }
};

}  // namespace

const DirectoryLister& fast_lister() {
  static const GetdentsLister lister;
  return lister;
}

}  // namespace paddock::platform
