#include "helpers/linux/agent_config_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <set>

#include "engine/ir.h"
#include "platform/read_file.h"
#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

// Agents' settings are kilobytes; Claude Code's state file grows with every project it has seen,
// to a few megabytes at most. Past this a file is compared as "too large" by its size.
constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;
// A named file (a script) and a watched tree (commands, plugins): bounded the same way, and a
// tree by its number of entries too.
constexpr std::size_t kMaxNamedFiles = 64;
constexpr std::size_t kMaxTreeEntries = 4096;
constexpr std::size_t kMaxTreeBytes = std::size_t{64} << 20;
constexpr int kMaxTreeDepth = 16;

// Every entry below dir (sorted): its relative path, type, mode and contents' digest (a symlink's
// target), one line each. An error when a bound is passed.
Result<std::string> tree_listing(const std::string& dir) {
  std::string out;
  std::size_t entries = 0, bytes = 0;
  std::function<Status(const std::string&, int)> walk = [&](const std::string& rel, int depth) -> Status {
    if (depth > kMaxTreeDepth) return bad_input("deeper than " + std::to_string(kMaxTreeDepth) + " directories");
    const std::string path = rel.empty() ? dir : dir + "/" + rel;
    DIR* d = ::opendir(path.c_str());
    if (!d) return bad_input("cannot list " + path + ": " + std::strerror(errno));
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      if (++entries > kMaxTreeEntries) return bad_input("more than " + std::to_string(kMaxTreeEntries) + " entries");
      const std::string r = rel.empty() ? n : rel + "/" + n, p = dir + "/" + r;
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0) continue;
      char mode[16];
      std::snprintf(mode, sizeof mode, "%o", st.st_mode & 07777);
      if (S_ISDIR(st.st_mode)) {
        out += "d " + std::string(mode) + " " + r + "\n";
        if (auto s = walk(r, depth + 1); !s.ok()) return s;
      } else if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        const ssize_t k = ::readlink(p.c_str(), target, sizeof target);
        out += "l " + r + " -> " + std::string(target, k > 0 ? static_cast<std::size_t>(k) : 0) + "\n";
      } else if (S_ISREG(st.st_mode)) {
        bytes += static_cast<std::size_t>(st.st_size);
        if (bytes > kMaxTreeBytes) return bad_input("more than " + std::to_string(kMaxTreeBytes >> 20) + " MiB of files");
        platform::ReadOptions o;
        o.max_bytes = kMaxConfigBytes;
        o.no_follow = true;
        auto b = platform::read_file(p, o);
        out += "f " + std::string(mode) + " " + r + " " + (b ? sha256_hex(*b) : "unreadable") + "\n";
      } else {
        out += "o " + std::string(mode) + " " + r + "\n";
      }
    }
    return Status::Ok();
  };
  if (auto s = walk("", 0); !s.ok()) return s.error();
  return out;
}

}  // namespace

AgentConfigWatch::AgentConfigWatch(std::vector<session::WatchedConfig> files, const std::string& home)
    : files_(std::move(files)) {
  for (const auto& w : files_) before_.push_back(read(w));
  // The files the watched keys name, as they are now: a script rewritten while the key that
  // names it stays the same is a change too. A file named only after the session comes with a
  // change of its key, reported already.
  std::set<std::string> watched;
  for (const auto& w : files_) watched.insert(w.path);
  const std::size_t listed = files_.size();
  for (std::size_t i = 0; i < listed; ++i) {
    if (files_[i].keys.empty() || !before_[i].bytes) continue;
    for (const auto& p : session::named_files(files_[i], *before_[i].bytes, home, kMaxNamedFiles)) {
      if (!watched.insert(p).second) continue;
      files_.push_back({p, "text", {}});
      before_.push_back(read(files_.back()));
    }
  }
}

AgentConfigWatch::Reading AgentConfigWatch::read(const session::WatchedConfig& w) {
  Reading r;
  struct stat st {};
  if (::lstat(w.path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) r.unreadable = std::strerror(errno);
    return r;  // no file
  }
  char resolved[PATH_MAX];
  if (!::realpath(w.path.c_str(), resolved)) {
    r.unreadable = std::string("resolves nowhere (") + std::strerror(errno) + ")";
    return r;
  }
  r.resolved = resolved;
  if (w.format == "tree") {
    struct stat ts {};
    if (::stat(resolved, &ts) != 0 || !S_ISDIR(ts.st_mode)) {
      r.unreadable = "not a directory";
      return r;
    }
    auto listing = tree_listing(resolved);
    if (listing) r.bytes = std::move(*listing);
    else r.unreadable = listing.error().message;
    return r;
  }
  platform::ReadOptions o;
  o.max_bytes = kMaxConfigBytes;
  o.no_symlinks = true;  // resolved already: one that appears now is a race, read as such
  auto bytes = platform::read_file(r.resolved, o);
  if (bytes) r.bytes = std::move(*bytes);
  else r.unreadable = bytes.error().message;
  return r;
}

session::ConfigSnapshot AgentConfigWatch::snapshot(const session::WatchedConfig& w, const Reading& r) {
  if (r.unreadable.empty()) return session::snapshot_config(w, r.bytes);
  // Compared as the file's state: what the agent's CLI makes of it is unknown.
  session::ConfigSnapshot s;
  s.exists = true;
  s.whole = sha256_hex("unreadable: " + r.unreadable);
  return s;
}

std::vector<session::ConfigChange> AgentConfigWatch::changes() const {
  std::vector<session::ConfigChange> out;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    const Reading after = read(files_[i]);
    const Reading& before = before_[i];
    // Compared by where the path resolves to at both ends: a symlink re-pointed anywhere along
    // the way (to a file of the same bytes, even) is a change of the file the CLI reads.
    if (before.resolved != after.resolved && !before.resolved.empty() && !after.resolved.empty())
      out.push_back({files_[i].path, "(resolves to)", "changed: " + after.resolved});
    for (auto& c : session::compare_configs(files_[i], snapshot(files_[i], before), snapshot(files_[i], after)))
      out.push_back(std::move(c));
  }
  return out;
}

}  // namespace paddock::helper
