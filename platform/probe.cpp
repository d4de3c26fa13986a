#include "platform/probe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "backends/linux/kernel_probe.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/subprocess.h"
#include "platform/unique_fd.h"

namespace paddock::platform {
namespace {

using nlohmann::json;

// Bump when the key or the file layout changes: older files then simply miss.
constexpr int kCacheFormat = 2;

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
  auto out = run_capture(helper_path, {"probe"}, std::nullopt, "(reinstall Paddock, or build the paddock-helper target)");
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
