#include "app/cli/probe_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "app/cli/helper_process.h"
#include "backends/linux/kernel_probe.h"
#include "engine/atomic_file.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

// Bump when the key or the file layout changes: older files then simply miss.
constexpr int kCacheFormat = 1;

std::string read_small(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "<" + std::to_string(errno) + ">";  // absence is part of the key too
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

std::string cache_dir(const CliContext& ctx) {
  std::string runtime = ctx.env("XDG_RUNTIME_DIR");
  if (runtime.empty() || runtime[0] != '/') return {};
  return runtime + "/paddock";
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
json cache_key(const CliContext& ctx, const json& probe) {
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
              {"boot_id", read_small("/proc/sys/kernel/random/boot_id")},
              {"euid", static_cast<std::int64_t>(::geteuid())},
              {"egid", static_cast<std::int64_t>(::getegid())},
              {"kernel", std::string(u.release) + " " + u.version},
              {"helper", stat_key(ctx.helper_path().string(), true)},
              {"cgroup", read_small("/proc/self/cgroup")},
              {"own_cgroup_dir", own_cgroup_dir.empty() ? json(nullptr) : stat_key(own_cgroup_dir, false)},
              {"subtree_control", own_cgroup_dir.empty() ? std::string() : read_small(own_cgroup_dir + "/cgroup.subtree_control")},
              {"max_user_namespaces", read_small("/proc/sys/user/max_user_namespaces")},
              {"unprivileged_userns_clone", read_small("/proc/sys/kernel/unprivileged_userns_clone")}};
}

// Reads the cache only if it is a regular file of ours that nobody else can write.
std::optional<json> read_cache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string text;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0 &&
      st.st_size < (1 << 20)) {
    char buf[8192];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace

Result<json> probe_with_helper(const CliContext& ctx) {
  auto out = run_helper_capture(ctx.helper_path(), {"probe"});
  if (!out.ok()) return out.error();
  json probe = json::parse(out->out, nullptr, false);
  if (out->exit_code != 0 || probe.is_discarded())
    return refused("paddock-helper probe failed (exit " + std::to_string(out->exit_code) + "); run '" +
                   ctx.helper_path().string() + " probe' to see why");
  return probe;
}

Result<CachedProbe> load_probe(const CliContext& ctx, bool fresh) {
  const std::string dir = cache_dir(ctx);
  if (!fresh && !dir.empty()) {
    if (auto cached = read_cache(dir + "/probe-cache.json")) {
      const json& c = *cached;
      if (c.contains("probe") && c.contains("key") && linux_backend::probe_from_json(c["probe"]).ok() &&
          c["key"] == cache_key(ctx, c["probe"]))
        return CachedProbe{c["probe"], ProbeSource::kCache};
    }
  }
  auto probe = probe_with_helper(ctx);
  if (!probe.ok()) return probe.error();
  store_probe(ctx, *probe);
  return CachedProbe{*probe, ProbeSource::kHelper};
}

void store_probe(const CliContext& ctx, const json& probe) {
  const std::string dir = cache_dir(ctx);
  if (dir.empty()) return;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  struct stat st {};
  // Only into a private directory of ours (the runtime dir is per user; make sure of it).
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    return;
  json c = {{"key", cache_key(ctx, probe)}, {"probe", probe}};
  (void)write_file_atomic(dir + "/probe-cache.json", c.dump() + "\n", /*private_file=*/true);
}

std::string probe_cache_path(const CliContext& ctx) {
  const std::string dir = cache_dir(ctx);
  return dir.empty() ? std::string() : dir + "/probe-cache.json";
}

void drop_probe_cache(const CliContext& ctx) {
  if (const std::string path = probe_cache_path(ctx); !path.empty()) ::unlink(path.c_str());
}

}  // namespace paddock::cli
