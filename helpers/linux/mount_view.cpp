#include "helpers/linux/mount_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "helpers/linux/sys_error.h"

// mount_setattr (Linux 5.12) is missing from the Debian 12 headers.
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002
#endif
#ifndef MOUNT_ATTR_NODEV
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

namespace paddock::helper {
namespace {

using linux_backend::MountOp;
using linux_backend::MountStep;

constexpr const char* kBase = "/tmp";            // where the staging tmpfs is mounted
constexpr const char* kOld = "/oldroot";         // host root after the first pivot
constexpr const char* kNew = "/newroot";         // the agent's root being built
constexpr const char* kEmptyFile = "/empty";     // source of file masks

struct MountAttrArg {
  std::uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// Creates every missing directory of path (absolute, inside the staging root).
Status mkdir_p(const std::string& path) {
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    std::string cur = path.substr(0, pos);
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return sys_error("mkdir", cur);
  }
  return Status::Ok();
}

// Makes sure target exists as a mount point of the right kind. Intermediate directories are
// created in the staging tmpfs; inside an already bound host tree they must already exist. The
// common case (the parent is there) costs one call; only a missing parent walks the path. An
// existing target is never opened (O_EXCL): a host FIFO or device there must not be touched.
Status ensure_mount_point(const std::string& target, bool as_dir) {
  auto create = [&] {
    if (as_dir) return ::mkdir(target.c_str(), 0755) == 0 || errno == EEXIST;
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0) return errno == EEXIST;
    ::close(fd);
    return true;
  };
  if (create()) return Status::Ok();
  struct stat st {};
  if (errno != ENOENT) {
    // Something of another kind or not writable is already there: mount onto what exists (the
    // mount call reports a kind mismatch).
    if (::lstat(target.c_str(), &st) == 0) return Status::Ok();
    return sys_error(as_dir ? "mkdir" : "create mount point", target);
  }
  auto slash = target.rfind('/');
  if (auto s = mkdir_p(target.substr(0, slash)); !s) return s;
  if (create()) return Status::Ok();
  return sys_error(as_dir ? "mkdir" : "create mount point", target);
}

// Fallback for kernels without mount_setattr: remount the bind read-only keeping the flags the
// kernel locked on the source (nosuid/nodev/noexec/atime) — dropping them fails with EPERM.
Status remount_ro_legacy(const std::string& target) {
  struct statvfs sv {};
  if (::statvfs(target.c_str(), &sv) != 0) return sys_error("statvfs", target);
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  if (::mount(nullptr, target.c_str(), nullptr, flags, nullptr) != 0)
    return sys_error("remount read-only", target);
  return Status::Ok();
}

// Read-only (and nosuid, nodev) for the whole tree at target, submounts included: a recursive
// bind may carry host submounts that would otherwise stay writable.
Status make_tree_readonly(const std::string& target, bool recursive) {
  MountAttrArg attr{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0};
  if (::syscall(SYS_mount_setattr, AT_FDCWD, target.c_str(),
                recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0)
    return Status::Ok();
  if (errno != ENOSYS) return sys_error("mount_setattr read-only", target);
  // Old kernel: top mount and every submount below it, one by one.
  std::ifstream mi("/proc/self/mountinfo");
  std::string line;
  std::vector<std::string> points;
  while (std::getline(mi, line)) {
    std::istringstream f(line);
    std::string a, b, c, d, mp;
    f >> a >> b >> c >> d >> mp;
    if (mp == target || (recursive && mp.rfind(target + "/", 0) == 0)) points.push_back(mp);
  }
  for (const auto& p : points)
    if (auto s = remount_ro_legacy(p); !s) return s;
  return Status::Ok();
}

Status bind(const std::string& source, const std::string& target, bool read_only) {
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) return sys_error("bind source", source.substr(std::strlen(kOld)));
  if (auto s = ensure_mount_point(target, S_ISDIR(st.st_mode)); !s) return s;
  // MS_REC: in a user namespace the host's submounts are locked to their parents; a
  // non-recursive bind of a tree that has them is refused by the kernel (EINVAL).
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
    return sys_error("bind", target.substr(std::strlen(kNew)));
  if (read_only) return make_tree_readonly(target, /*recursive=*/true);
  MountAttrArg attr{MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0};
  if (::syscall(SYS_mount_setattr, AT_FDCWD, target.c_str(), AT_RECURSIVE, &attr, sizeof attr) != 0 &&
      errno != ENOSYS)
    return sys_error("mount_setattr nosuid", target);
  return Status::Ok();
}

Status mask(const std::string& target, bool as_dir) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    // Nothing at that path in the view (absent, or its parent is not bound): there is nothing to
    // read. It cannot be created either where its parent is a read-only bind.
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return sys_error("mask target", target.substr(std::strlen(kNew)));
  }
  // Mask what is really there (the IR recorded the kind at freeze time; the disk may differ now).
  bool dir = S_ISDIR(st.st_mode);
  (void)as_dir;
  if (dir) {
    if (::mount("tmpfs", target.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0000,size=4k") != 0)
      return sys_error("mask directory", target.substr(std::strlen(kNew)));
    return Status::Ok();
  }
  if (::mount(kEmptyFile, target.c_str(), nullptr, MS_BIND, nullptr) != 0)
    return sys_error("mask file", target.substr(std::strlen(kNew)));
  return make_tree_readonly(target, /*recursive=*/false);
}

Status tmpfs(const std::string& target, const char* options, unsigned long flags) {
  if (auto s = ensure_mount_point(target, true); !s) return s;
  if (::mount("tmpfs", target.c_str(), "tmpfs", flags, options) != 0)
    return sys_error("mount tmpfs", target.substr(std::strlen(kNew)));
  return Status::Ok();
}

Status proc(const std::string& target) {
  if (auto s = ensure_mount_point(target, true); !s) return s;
  if (::mount("proc", target.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    return sys_error("mount proc", target.substr(std::strlen(kNew)));
  return Status::Ok();
}

// A minimal /dev: device nodes bound from the host (a user namespace cannot mknod), a private
// devpts instance, /dev/shm, and the usual symlinks.
Status dev(const std::string& target) {
  if (auto s = tmpfs(target, "mode=0755", MS_NOSUID | MS_NOEXEC); !s) return s;
  for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
    std::string src = std::string(kOld) + "/dev/" + node, dst = target + "/" + node;
    if (auto s = ensure_mount_point(dst, false); !s) return s;
    if (::mount(src.c_str(), dst.c_str(), nullptr, MS_BIND, nullptr) != 0)
      return sys_error("bind device", std::string("/dev/") + node);
  }
  std::string pts = target + "/pts", shm = target + "/shm";
  if (auto s = ensure_mount_point(pts, true); !s) return s;
  if (::mount("devpts", pts.c_str(), "devpts", MS_NOSUID | MS_NOEXEC,
              "newinstance,ptmxmode=0666,mode=620") != 0)
    return sys_error("mount devpts", "/dev/pts");
  if (auto s = tmpfs(shm, "mode=1777", MS_NOSUID | MS_NODEV | MS_NOEXEC); !s) return s;
  const std::pair<const char*, const char*> links[] = {
      {"pts/ptmx", "ptmx"}, {"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
      {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
  for (const auto& [to, name] : links) {
    std::string at = target + "/" + name;
    if (::symlink(to, at.c_str()) != 0) return sys_error("symlink", std::string("/dev/") + name);
  }
  return Status::Ok();
}

Status apply_step(const MountStep& step) {
  const std::string target = std::string(kNew) + step.target;
  const std::string source = std::string(kOld) + step.source;
  switch (step.op) {
    case MountOp::kBindRo: return bind(source, target, /*read_only=*/true);
    case MountOp::kBindRw: return bind(source, target, /*read_only=*/false);
    case MountOp::kMaskFile: return mask(target, /*as_dir=*/false);
    case MountOp::kMaskDir: return mask(target, /*as_dir=*/true);
    case MountOp::kTmpfs: return tmpfs(target, "mode=1777", MS_NOSUID | MS_NODEV);
    case MountOp::kProc: return proc(target);
    case MountOp::kDev: return dev(target);
  }
  return refused("unknown mount step");
}

// Merged-/usr systems reach /bin, /lib, /lib64 (the ELF interpreter path) through top-level
// symlinks that the plan, holding canonical paths only, never names. Recreate each host top-level
// symlink where the view has nothing of that name: a symlink grants nothing by itself, its target
// is reachable only if a bind put it in the view.
Status copy_top_level_symlinks() {
  DIR* d = ::opendir(kOld);
  if (!d) return sys_error("opendir", "/");
  Status result;
  while (dirent* e = ::readdir(d)) {
    if (e->d_type != DT_LNK) continue;
    std::string src = std::string(kOld) + "/" + e->d_name, dst = std::string(kNew) + "/" + e->d_name;
    struct stat st {};
    if (::lstat(dst.c_str(), &st) == 0) continue;
    char target[4096];
    ssize_t n = ::readlink(src.c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = 0;
    if (::symlink(target, dst.c_str()) != 0) {
      result = sys_error("symlink", std::string("/") + e->d_name);
      break;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

Status build_mount_view(const std::vector<MountStep>& steps) {
  // Nothing we mount may propagate back to the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return sys_error("make mounts private", "/");
  // Staging root: a tmpfs that becomes "/" with the host root at /oldroot, so host paths stay
  // reachable as sources (including the host's /tmp) while the new view is assembled.
  if (::mount("tmpfs", kBase, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return sys_error("mount staging tmpfs", kBase);
  if (::chdir(kBase) != 0) return sys_error("chdir", kBase);
  if (::mkdir("oldroot", 0755) != 0 || ::mkdir("newroot", 0755) != 0)
    return sys_error("mkdir staging", kBase);
  if (::syscall(SYS_pivot_root, kBase, "/tmp/oldroot") != 0) return sys_error("pivot_root", kBase);
  if (::chdir("/") != 0) return sys_error("chdir", "/");
  int fd = ::open(kEmptyFile, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
  if (fd < 0) return sys_error("create", kEmptyFile);
  ::close(fd);
  if (::mount("tmpfs", kNew, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return sys_error("mount root tmpfs", kNew);

  for (const auto& step : steps)
    if (auto s = apply_step(step); !s) return s;

  if (auto s = copy_top_level_symlinks(); !s) return s;
  // Enter the new root and drop every path to the host's. pivot_root(".", ".") stacks the
  // staging root on top of the new one; detaching it detaches its whole subtree with it, the
  // host root at /oldroot and every host submount included. One detach, not two: each lazy
  // unmount that frees mounts waits for an RCU grace period (issue 5).
  if (::chdir(kNew) != 0) return sys_error("chdir", kNew);
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return sys_error("pivot_root", kNew);
  if (::umount2(".", MNT_DETACH) != 0) return sys_error("detach staging and host root", "/");
  if (::chdir("/") != 0) return sys_error("chdir", "/");
  // The skeleton (mount point directories) is read-only too.
  return make_tree_readonly("/", /*recursive=*/false);
}

}  // namespace paddock::helper
