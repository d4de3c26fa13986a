#include "platform/probe.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "backends/linux/kernel_probe.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/unique_fd.h"

extern char** environ;

namespace paddock::platform {
namespace {

using nlohmann::json;

// Bump when the key or the file layout changes: older files then simply miss.
constexpr int kCacheFormat = 2;

struct Captured {
  int exit_code = 0;
  std::string out, err;
};

// Runs helper with args, stdin from /dev/null, capturing stdout and stderr. posix_spawn, not
// fork: the app calls this from a worker thread of a multi-threaded process.
Result<Captured> run_capture(const std::string& helper, const std::vector<std::string>& args) {
  if (::access(helper.c_str(), X_OK) != 0)
    return refused("paddock-helper not found or not executable at " + helper +
                   " (reinstall Paddock, or build the paddock-helper target)");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  UniqueFd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return internal_error(std::string("pipe: ") + std::strerror(errno));
  UniqueFd err_r(err_pipe[0]), err_w(err_pipe[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_w.get(), STDERR_FILENO);
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  std::string h = helper;
  argv.push_back(h.data());
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, h.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return refused("cannot start " + helper + ": " + std::strerror(rc));
  out_w.reset();
  err_w.reset();
  Captured c;
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open_fds;
      } else if (sinks[i]->size() < (std::size_t{1} << 20)) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

// A small file's bytes for the key; absence (and any other failure) is part of the key too.
std::string key_text(const std::string& path) {
  ReadOptions o;
  o.max_bytes = 1 << 16;
  auto r = read_file_if_exists(path, o);
  if (!r.ok()) return "<unreadable>";
  if (!*r) return "<absent>";
  return **r;
}

// A file's identity. with_times: a rebuilt or replaced helper binary misses even at the same
// inode; a directory is keyed by owner and mode only (creating session leaves in it must not
// invalidate the cache on file systems that update a directory's times).
json stat_key(const std::string& path, bool with_times) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return json(nullptr);
  json k = json::array({static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                        static_cast<std::int64_t>(st.st_mode), static_cast<std::int64_t>(st.st_uid),
                        static_cast<std::int64_t>(st.st_gid)});
  if (with_times)
    for (std::int64_t v : {static_cast<std::int64_t>(st.st_size), static_cast<std::int64_t>(st.st_mtim.tv_sec),
                           static_cast<std::int64_t>(st.st_mtim.tv_nsec), static_cast<std::int64_t>(st.st_ctim.tv_sec),
                           static_cast<std::int64_t>(st.st_ctim.tv_nsec)})
      k.push_back(v);
  return k;
}

// Everything the probed facts depend on that can change without a reboot, plus the boot itself.
// The own cgroup directory is located through the probe being keyed (its cgroup2 mount point):
// if that mount moved, the directory's identity changes and the key misses.
json cache_key(const std::string& helper, const json& probe) {
  struct utsname u {};
  ::uname(&u);
  std::string own_cgroup_dir;
  if (probe.contains("cgroup") && probe["cgroup"].is_object()) {
    const json& cg = probe["cgroup"];
    if (cg.contains("v2_mount") && cg["v2_mount"].is_string() && cg.contains("own_v2_path") &&
        cg["own_v2_path"].is_string() && !cg["v2_mount"].get<std::string>().empty()) {
      std::string own = cg["own_v2_path"].get<std::string>();
      own_cgroup_dir = cg["v2_mount"].get<std::string>() + (own == "/" ? "" : own);
    }
  }
  return json{{"format", kCacheFormat},
              {"boot_id", key_text("/proc/sys/kernel/random/boot_id")},
              {"euid", static_cast<std::int64_t>(::geteuid())},
              {"egid", static_cast<std::int64_t>(::getegid())},
              {"kernel", std::string(u.release) + " " + u.version},
              {"helper", stat_key(helper, true)},
              {"cgroup", key_text("/proc/self/cgroup")},
              {"own_cgroup_dir", own_cgroup_dir.empty() ? json(nullptr) : stat_key(own_cgroup_dir, false)},
              {"subtree_control", own_cgroup_dir.empty() ? std::string() : key_text(own_cgroup_dir + "/cgroup.subtree_control")},
              {"max_user_namespaces", key_text("/proc/sys/user/max_user_namespaces")},
              {"unprivileged_userns_clone", key_text("/proc/sys/kernel/unprivileged_userns_clone")}};
}

// Only a regular file of ours that nobody else can write.
std::optional<json> read_cache(const std::string& path) {
  ReadOptions o;
  o.max_bytes = 1 << 20;
  o.no_follow = true;
  o.private_only = true;
  auto text = read_file(path, o);
  if (!text.ok()) return std::nullopt;
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace

Result<json> run_probe(const std::string& helper_path) {
  auto out = run_capture(helper_path, {"probe"});
  if (!out.ok()) return out.error();
  json probe = json::parse(out->out, nullptr, /*allow_exceptions=*/false);
  if (out->exit_code != 0 || !probe.is_object()) {
    std::string why = out->err.substr(0, out->err.find('\n'));
    return refused("paddock-helper probe failed (exit " + std::to_string(out->exit_code) + ")" +
                   (why.empty() ? "" : ": " + why) + "; run '" + helper_path + " probe' to see why");
  }
  return probe;
}

Result<CachedProbe> ProbeCache::load(bool fresh) const {
  if (!fresh && !path_.empty()) {
    if (auto cached = read_cache(path_)) {
      const json& c = *cached;
      if (c.contains("probe") && c.contains("key") && linux_backend::probe_from_json(c["probe"]).ok() &&
          c["key"] == cache_key(helper_, c["probe"]))
        return CachedProbe{c["probe"], ProbeSource::kCache};
    }
  }
  auto probe = run_probe(helper_);
  if (!probe.ok()) return probe.error();
  store(*probe);
  return CachedProbe{std::move(*probe), ProbeSource::kHelper};
}

void ProbeCache::store(const json& probe) const {
  if (path_.empty()) return;
  const std::string dir = path_.substr(0, path_.rfind('/'));
  if (dir.empty() || (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)) return;
  struct stat st {};
  // Only into a private directory of ours (the runtime dir is per user; make sure of it).
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    return;
  // A cache someone replaced by a symlink is removed, not written through.
  if (::lstat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) ::unlink(path_.c_str());
  json c = {{"key", cache_key(helper_, probe)}, {"probe", probe}};
  (void)write_file_atomic(path_, c.dump() + "\n", WriteOptions{.mode = 0600});
}

void ProbeCache::drop() const { drop_probe_cache(path_); }

void drop_probe_cache(const std::string& path) {
  if (path.empty()) return;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid()) ::unlink(path.c_str());
}

}  // namespace paddock::platform
