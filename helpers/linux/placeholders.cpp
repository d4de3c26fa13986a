#include "helpers/linux/placeholders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"

namespace paddock::helper {

using nlohmann::json;

Result<PlaceholderRegistry> PlaceholderRegistry::open(const std::string& dir) {
  if (dir.empty()) return refused("no state directory to record placeholders in (HOME is not absolute)");
  // The state directory may not exist yet on a fresh home: made as the session files' are, 0700.
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    const std::string cur = dir.substr(0, pos);
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
      return refused("cannot create " + cur + ": " + std::strerror(errno));
  }
  PlaceholderRegistry r;
  r.dir_ = dir;
  const std::string lock = dir + "/.lock";
  r.lock_.reset(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!r.lock_.valid()) return refused("cannot open " + lock + ": " + std::strerror(errno));
  int rc;
  while ((rc = ::flock(r.lock_.get(), LOCK_SH)) != 0 && errno == EINTR) {}
  if (rc != 0) return refused("cannot lock " + lock + ": " + std::strerror(errno));
  return r;
}

Status PlaceholderRegistry::record(const Placeholder& p) {
  // One record per path, named by its hash: sessions add records without a shared file to edit.
  const std::string name = dir_ + "/" + sha256_hex(p.path).substr(7, 32) + ".json";
  const json j = {{"path", p.path}, {"dir", p.dir}, {"dev", p.dev}, {"ino", p.ino}};
  return platform::write_file_atomic(name, j.dump() + "\n");
}

void PlaceholderRegistry::sweep() {
  if (!lock_.valid()) return;
  // Another session still running may have any placeholder bound: then the last one out sweeps.
  if (::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    lock_.reset();
    return;
  }
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
      const std::string rec = dir_ + "/" + name;
      auto text = platform::read_file(rec);
      json j = text ? json::parse(*text, nullptr, false) : json();
      if (j.is_object() && j["path"].is_string() && j["dir"].is_boolean() && j["dev"].is_number_unsigned() &&
          j["ino"].is_number_unsigned()) {
        const std::string path = j["path"];
        struct stat st {};
        // Removed only if it is still the placeholder that was made and holds nothing: a
        // directory that someone filled, or a file someone wrote to, is theirs now.
        if (::lstat(path.c_str(), &st) == 0 && st.st_dev == j["dev"].get<std::uint64_t>() &&
            st.st_ino == j["ino"].get<std::uint64_t>()) {
          if (j["dir"].get<bool>() && S_ISDIR(st.st_mode)) ::rmdir(path.c_str());
          else if (S_ISREG(st.st_mode) && st.st_size == 0) ::unlink(path.c_str());
        }
      }
      ::unlink(rec.c_str());
    }
    ::closedir(d);
  }
  lock_.reset();
}

}  // namespace paddock::helper
