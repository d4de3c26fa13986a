#include "helpers/linux/placeholders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/json_text.h"
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

Status PlaceholderRegistry::record(const std::vector<Placeholder>& made) {
  if (made.empty()) return {};
  json list = json::array();
  std::string paths;
  for (const Placeholder& p : made) {
    // A placeholder's path is the bytes the IR names, UTF-8 or not (engine/json_text.h).
    json entry = {{"path", encode_json_text(p.path)}, {"dir", p.dir}, {"dev", p.dev}, {"ino", p.ino}};
    if (!p.content.empty()) entry["content"] = p.content;  // "." and a newline: plain text
    list.push_back(std::move(entry));
    paths += p.path + '\n';
  }
  // Named by what it lists: sessions add records without a shared file to edit, and two
  // sessions that made the same placeholders write the same record.
  const std::string name = dir_ + "/" + sha256_hex(paths).substr(7, 32) + ".json";
  return platform::write_file_atomic(name, list.dump() + "\n");
}

void PlaceholderRegistry::sweep() {
  if (!lock_.valid()) return;
  // Another session still running may have any placeholder bound: then the last one out sweeps.
  if (::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    lock_.reset();
    return;
  }
  struct Made {
    std::string path;
    bool dir;
    std::uint64_t dev, ino;
    std::string content;
  };
  std::vector<Made> made;
  std::vector<std::string> records;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
      records.push_back(dir_ + "/" + name);
      auto text = platform::read_file(records.back());
      json j = text ? json::parse(*text, nullptr, false) : json();
      if (j.is_object()) j = json::array({j});  // a record of one placeholder, as older helpers wrote
      if (!j.is_array()) continue;
      for (const json& p : j) {
        if (!p.is_object() || !p["path"].is_string() || !p["dir"].is_boolean() || !p["dev"].is_number_unsigned() ||
            !p["ino"].is_number_unsigned())
          continue;
        if (auto path = decode_json_text(p["path"].get_ref<const std::string&>()))
          made.push_back({std::move(*path), p["dir"], p["dev"], p["ino"], p.value("content", std::string())});
      }
    }
    ::closedir(d);
  }
  // Children before their parents: a placeholder directory can only go once it is empty.
  std::sort(made.begin(), made.end(), [](const Made& a, const Made& b) { return a.path > b.path; });
  for (const Made& m : made) {
    struct stat st {};
    // Removed only if it is still the placeholder that was made and holds what was put there
    // (nothing, or a pointer's "."): a directory someone filled, or a file someone wrote to, is
    // theirs now.
    if (::lstat(m.path.c_str(), &st) != 0 || st.st_dev != m.dev || st.st_ino != m.ino) continue;
    if (m.dir && S_ISDIR(st.st_mode)) ::rmdir(m.path.c_str());
    else if (!m.dir && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) == m.content.size() &&
             (m.content.empty() || [&] {
               auto text = platform::read_file(m.path, platform::ReadOptions{64, false, true, false, false});
               return text.ok() && *text == m.content;
             }()))
      ::unlink(m.path.c_str());
  }
  for (const std::string& r : records) ::unlink(r.c_str());
  lock_.reset();
}

}  // namespace paddock::helper
