#include "platform/bundles.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "backends/oci/oci_plan.h"
#include "platform/atomic_file.h"

namespace paddock::platform {
namespace {

Error os_error(const std::string& what, const std::string& path) {
  return bad_input("cannot " + what + " " + path + ": " + std::strerror(errno));
}

Status ensure_empty_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0) return Status::Ok();
  if (errno != EEXIST) return os_error("create the bundle directory", dir);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return os_error("open the bundle directory", dir);
  bool empty = true;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  ::closedir(d);
  if (!empty) return bad_input("the bundle directory " + dir + " is not empty: give a new or empty directory");
  return Status::Ok();
}

// The host's top-level symlinks that no mount of the config takes the place of: a symlink grants
// nothing by itself, its target is reachable only if a bind put it in the root.
Status copy_top_level_symlinks(const std::string& rootfs, const nlohmann::json& config) {
  std::set<std::string> mounted;
  for (const auto& m : config["mounts"]) mounted.insert(m["destination"].get<std::string>());
  DIR* d = ::opendir("/");
  if (!d) return os_error("list", "/");
  Status result;
  while (dirent* e = ::readdir(d)) {
    if (e->d_type != DT_LNK || mounted.count(std::string("/") + e->d_name)) continue;
    char target[4096];
    const std::string src = std::string("/") + e->d_name;
    ssize_t n = ::readlink(src.c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = 0;
    const std::string dst = rootfs + "/" + e->d_name;
    if (::symlink(target, dst.c_str()) != 0) {
      result = os_error("make the symlink", dst);
      break;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

Status write_oci_bundle(const std::string& dir, const nlohmann::json& config) {
  if (Status s = ensure_empty_dir(dir); !s.ok()) return s;
  const std::string rootfs = dir + "/rootfs";
  if (::mkdir(rootfs.c_str(), 0755) != 0) return os_error("create", rootfs);
  if (Status s = copy_top_level_symlinks(rootfs, config); !s.ok()) return s;
  for (const auto& f : oci_backend::bundle_files()) {
    const std::string path = dir + "/" + f.path;
    if (f.directory) {
      if (::mkdir(path.c_str(), 0755) != 0) return os_error("create", path);
    } else {
      WriteOptions w;
      w.mode = 0644;
      if (Status s = write_file_atomic(path, f.content, w); !s.ok()) return s;
    }
  }
  // Modes last: a directory of mode 0555 takes no new entry, and a mask file is mode 0.
  for (const auto& f : oci_backend::bundle_files()) {
    const std::string path = dir + "/" + f.path;
    if (::chmod(path.c_str(), static_cast<mode_t>(f.mode)) != 0) return os_error("set the mode of", path);
  }
  auto text = oci_backend::config_text(config);
  if (!text.ok()) return text.error();
  return write_file_atomic(dir + "/config.json", *text);
}

Status write_kubernetes_bundle(const std::string& dir, const nlohmann::json& step) {
  if (Status s = ensure_empty_dir(dir); !s.ok()) return s;
  const std::string profile = step["seccomp_profile"]["path"].get<std::string>();
  if (profile.find("..") != std::string::npos || profile.empty() || profile[0] == '/')
    return internal_error("seccomp profile path " + profile + " is not a relative name");
  WriteOptions w;
  w.mode = 0644;
  w.create_dirs = true;
  if (Status s = write_file_atomic(dir + "/seccomp/" + profile, step["seccomp_profile"]["profile"].dump(2) + "\n", w);
      !s.ok())
    return s;
  return write_file_atomic(dir + "/manifests.json", step["manifests"].dump(2) + "\n");
}

unsigned current_uid() { return ::getuid(); }
unsigned current_gid() { return ::getgid(); }

}  // namespace paddock::platform
