#include "helpers/linux/agent_config_watch.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/ir.h"
#include "platform/read_file.h"
#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

// Agents' settings are kilobytes; Claude Code's state file grows with every project it has seen,
// to a few megabytes at most. Past this a file is compared as "too large" by its size.
constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;

// Where the symlink at `path` points, when there is one (its directories resolved without
// symlinks): a symlink replaced by another one pointing elsewhere is a change too.
std::optional<std::string> link_target(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  platform::UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how)));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
  char buf[4096];
  const ssize_t n = ::readlinkat(fd.get(), "", buf, sizeof buf);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

AgentConfigWatch::AgentConfigWatch(std::vector<session::WatchedConfig> files) : files_(std::move(files)) {
  for (const auto& w : files_) before_.push_back(read(w.path));
}

AgentConfigWatch::Reading AgentConfigWatch::read(const std::string& path) {
  platform::ReadOptions o;
  o.max_bytes = kMaxConfigBytes;
  o.no_symlinks = true;
  auto bytes = platform::read_file_if_exists(path, o);
  if (bytes.ok()) return {std::move(*bytes), ""};
  Reading r;
  r.unreadable = bytes.error().message;
  if (auto target = link_target(path)) r.unreadable += " (a symlink to " + *target + ")";
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
  for (std::size_t i = 0; i < files_.size(); ++i)
    for (auto& c : session::compare_configs(files_[i], snapshot(files_[i], before_[i]), snapshot(files_[i], read(files_[i].path))))
      out.push_back(std::move(c));
  return out;
}

}  // namespace paddock::helper
