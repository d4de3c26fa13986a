#include "helpers/linux/placeholders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "helpers/common/atomic_file.h"

namespace paddock::helper {

using nlohmann::json;

std::string placeholder_dir_for(const std::string& session_dir) {
  // "<state>/sessions/<id>" -> "<state>/placeholders"; any other layout: beside the session dir.
  std::string s = session_dir;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  auto slash = s.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  s.resize(slash);
  slash = s.rfind('/');
  if (slash != std::string::npos && slash > 0 && s.compare(slash + 1, std::string::npos, "sessions") == 0) s.resize(slash);
  return s + "/placeholders";
}

Result<PlaceholderRegistry> PlaceholderRegistry::open(const std::string& dir) {
  if (dir.empty()) return refused("no state directory to record placeholders in");
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return refused("cannot create " + dir + ": " + std::strerror(errno));
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
  return write_file_atomic(name, j.dump() + "\n");
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
      auto text = read_file(rec);
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
