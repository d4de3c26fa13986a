#include "platform/placeholders.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "engine/session/layout.h"
#include "engine/session/placeholder_record.h"
#include "platform/read_file.h"

namespace paddock::platform {
namespace {

}  // namespace

bool holds_only(const std::string& path, const struct stat& st, const std::string& content) {
  if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) != content.size()) return false;
  if (content.empty()) return true;
  auto text = read_file(path, ReadOptions{session::kMaxPlaceholderContent, false, true, false, false});
  return text.ok() && *text == content;
}

namespace {

bool still_as_made(const session::PlaceholderRecord& p) {
  struct stat st {};
  if (::lstat(p.path.c_str(), &st) != 0 || st.st_dev != p.dev || st.st_ino != p.ino) return false;
  // A reused inode number (the user's own file made where the placeholder was) has a new ctime.
  // (A directory's moves with its entries; an empty one is all a placeholder directory can be.)
  const std::int64_t ctime = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  if (!p.dir && p.ctime_ns != 0 && ctime != p.ctime_ns) return false;
  if (!p.dir) return holds_only(p.path, st, p.content);
  if (!S_ISDIR(st.st_mode)) return false;
  DIR* d = ::opendir(p.path.c_str());
  if (!d) return false;
  bool empty = true;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  ::closedir(d);
  return empty;
}

}  // namespace

std::vector<std::string> live_placeholders(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    auto text = read_file(dir + "/" + name);
    if (!text) continue;
    auto list = session::decode_placeholder_records(*text);
    if (!list) continue;
    for (const auto& p : *list)
      if (still_as_made(p)) out.push_back(p.path);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> live_placeholders(const std::map<std::string, std::string>& environment) {
  auto layout = session::from_env(environment);
  if (!layout.ok()) return {};
  return live_placeholders(layout->placeholders_dir());
}

}  // namespace paddock::platform
