#include "helpers/linux/probe.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>

#include "platform/read_file.h"

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

namespace paddock::helper {
namespace {

std::string errno_name(int e) {
  if (const char* name = strerrorname_np(e)) return name;
  return "errno " + std::to_string(e);
}

// Runs fn in a forked child; true when the child exits 0. The child never returns.
template <class Fn>
bool in_child(Fn fn) {
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) _exit(fn() ? 0 : 1);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int landlock_abi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

// Runs fn in a forked child that exits with the errno fn leaves (0 = success); returns that
// errno's name, "" on success. The child never returns.
template <class Fn>
std::string child_error(Fn fn) {
  pid_t pid = fork();
  if (pid < 0) return errno_name(errno);
  if (pid == 0) _exit(fn() ? 0 : (errno > 0 && errno < 256 ? errno : 255));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(status)) return "child killed by signal " + std::to_string(WTERMSIG(status));
  return WEXITSTATUS(status) == 0 ? std::string() : errno_name(WEXITSTATUS(status));
}

std::string unshare_error(int flag, bool with_user) {
  return child_error([&] {
    int flags = flag | (with_user ? CLONE_NEWUSER : 0);
    return unshare(flags) == 0;
  });
}

bool seccomp_works() {
  return in_child([] {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return false;
    bool ok = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(acct), 0) == 0 && seccomp_load(ctx) == 0;
    seccomp_release(ctx);
    return ok;
  });
}

// RLIMIT_DATA is tried, not inferred from the release: a kernel booted with ignore_rlimit_data
// only logs. With the soft limit at one page, a one-page private writable mapping must fail
// (this process already has more). In-process, no child: the probe runs single-threaded, so
// nothing else allocates before the soft limit is restored (lowering and restoring a soft limit
// below the hard one needs no privilege).
bool rlimit_data_enforced() {
  rlimit old{};
  if (getrlimit(RLIMIT_DATA, &old) != 0) return false;
  const rlim_t page = static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
  rlimit tiny{std::min(page, old.rlim_max), old.rlim_max};
  if (setrlimit(RLIMIT_DATA, &tiny) != 0) return false;
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool refused = p == MAP_FAILED && errno == ENOMEM;
  setrlimit(RLIMIT_DATA, &old);
  if (p != MAP_FAILED) munmap(p, page);
  return refused;
}

// Writes the whole value in one write(2), as /proc's id map files need.
bool write_proc(const char* path, const std::string& value) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  close(fd);
  return ok;
}

// Review mode mounts an overlay inside the sandbox's user namespace (docs/review.md): tried here
// the same way, in a child with new user and mount namespaces, over a tmpfs of its own (nothing
// on the host is touched). Returns the errno name of the first step that failed, "" when the
// overlay mounted.
std::string overlay_userns_error() {
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  return child_error([&] {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    if (!write_proc("/proc/self/setgroups", "deny") ||
        !write_proc("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") ||
        !write_proc("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n"))
      return false;
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,size=64k") != 0) return false;
    for (const char* d : {"/tmp/l", "/tmp/u", "/tmp/w", "/tmp/m"})
      if (mkdir(d, 0700) != 0) return false;
    return mount("overlay", "/tmp/m", "overlay", MS_NOSUID | MS_NODEV,
                 "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w,userxattr") == 0;
  });
}

// A kernel file's text, "" when it cannot be read (the fact it would give is then absent).
std::string read_file(const std::string& path) {
  auto text = platform::read_file(path);
  return text.ok() ? *text : std::string();
}

// A child directory can be made (and removed again) under dir.
bool can_make_child(const std::string& dir) {
  if (dir.empty()) return false;
  std::string probe = dir + "/paddock-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0) return false;
  rmdir(probe.c_str());
  return true;
}

void probe_cgroups(linux_backend::CgroupProbe& cg) {
  // mountinfo: "... <mount point> <options> - <fstype> <source> <super options>"
  std::istringstream mounts(read_file("/proc/self/mountinfo"));
  std::string line;
  std::vector<std::pair<std::string, std::string>> v1;  // (mount point, super options)
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string f, mount_point;
    for (int i = 0; i < 5 && fields >> f; ++i)
      if (i == 4) mount_point = f;
    std::string tok;
    while (fields >> tok && tok != "-") {}
    std::string fstype, source, super_opts;
    fields >> fstype >> source >> super_opts;
    if (fstype == "cgroup2" && cg.v2_mount.empty()) cg.v2_mount = mount_point;
    if (fstype == "cgroup") v1.emplace_back(mount_point, super_opts);
  }
  for (const auto& [mp, opts] : v1) {
    std::istringstream o(opts);
    std::string opt;
    while (std::getline(o, opt, ','))
      if (opt == "cpu" || opt == "memory" || opt == "pids" || opt == "cpuacct")
        cg.v1_controllers.push_back(opt);
  }
  std::sort(cg.v1_controllers.begin(), cg.v1_controllers.end());
  cg.v1_controllers.erase(std::unique(cg.v1_controllers.begin(), cg.v1_controllers.end()),
                          cg.v1_controllers.end());

  std::istringstream self(read_file("/proc/self/cgroup"));
  std::string memory_v1, pids_v1;
  while (std::getline(self, line)) {
    auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    std::string ctrl = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    if (line.compare(0, 2, "0:") == 0 && ctrl.empty()) cg.own_v2_path = path;
    if (ctrl == "memory") memory_v1 = path;
    if (ctrl == "pids") pids_v1 = path;
  }
  bool has_v2 = !cg.v2_mount.empty();
  bool has_v1 = !cg.v1_controllers.empty();
  cg.version = has_v2 && has_v1 ? "hybrid" : has_v2 ? "v2" : has_v1 ? "v1" : "none";
  if (has_v2) {
    std::string dir = cg.v2_mount + (cg.own_v2_path == "/" ? "" : cg.own_v2_path);
    cg.v2_delegated_writable = can_make_child(dir);
    std::istringstream ctrls(read_file(dir + "/cgroup.subtree_control"));
    std::string c;
    while (ctrls >> c) cg.v2_controllers.push_back(c);
    std::sort(cg.v2_controllers.begin(), cg.v2_controllers.end());
  }
  if (has_v1) {
    auto mount_of = [&](const std::string& ctrl) -> std::string {
      for (const auto& [mp, opts] : v1)
        if (("," + opts + ",").find("," + ctrl + ",") != std::string::npos) return mp;
      return {};
    };
    std::string mem = mount_of("memory"), pids = mount_of("pids");
    cg.v1_writable = !mem.empty() && !pids.empty() &&
                     can_make_child(mem + (memory_v1 == "/" ? "" : memory_v1)) &&
                     can_make_child(pids + (pids_v1 == "/" ? "" : pids_v1));
  }
}

// A sysctl's value, trimmed; "" when this kernel has no such file.
std::string sysctl(const std::string& path) {
  std::string v = read_file(path);
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

bool exists(const char* path) {
  struct stat st {};
  return lstat(path, &st) == 0;
}

// The initial user namespace maps every uid to itself; any other mapping means this process
// already runs inside a user namespace (a rootless container, another sandbox).
bool in_initial_user_ns() {
  std::istringstream m(read_file("/proc/self/uid_map"));
  std::string inside, outside, count, more;
  m >> inside >> outside >> count;
  return inside == "0" && outside == "0" && count == "4294967295" && !(m >> more);
}

// Only read when a namespace could not be created, to say why (the probe is on every launch's
// path while nothing fails).
linux_backend::UsernsEvidence userns_evidence(const std::string& user_error,
                                              const std::string& mount_error) {
  linux_backend::UsernsEvidence e;
  e.user_error = user_error;
  e.mount_error = mount_error;
  const bool initial_ns = in_initial_user_ns();
  e.privileged = geteuid() == 0 && initial_ns;
  e.max_user_namespaces = sysctl("/proc/sys/user/max_user_namespaces");
  e.unprivileged_userns_clone = sysctl("/proc/sys/kernel/unprivileged_userns_clone");
  e.apparmor_restrict_unprivileged_userns =
      sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  // The markers Docker, Podman and systemd-nspawn (and systemd for any container) leave.
  e.in_container = !initial_ns || exists("/.dockerenv") || exists("/run/.containerenv") ||
                   exists("/run/systemd/container");
  std::istringstream status(read_file("/proc/self/status"));
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Seccomp:", 0) == 0) e.seccomp_filtered = line.find('2') != std::string::npos;
  return e;
}

}  // namespace

bool is_host_root() {
  if (geteuid() != 0) return false;
  std::istringstream in(read_file("/proc/self/uid_map"));
  std::uint64_t inside = 1, outside = 1, count = 0;
  in >> inside >> outside >> count;
  return inside == 0 && outside == 0 && count == 4294967295ull;
}

linux_backend::KernelProbe probe_kernel() {
  linux_backend::KernelProbe p;
  struct utsname u {};
  if (uname(&u) == 0) p.kernel_release = u.release;
  p.landlock_abi = landlock_abi();
  p.seccomp_filter = seccomp_works();
  p.unprivileged = geteuid() != 0;
  p.host_root = is_host_root();
  p.rlimit_data = rlimit_data_enforced();
  const std::string user_error = unshare_error(0, /*with_user=*/true);
  p.user_ns = user_error.empty();
  // Unprivileged users get the other namespaces only inside a new user namespace; root
  // gets them either way. Paddock always creates a user namespace first, so probe that way.
  bool with_user = p.user_ns;
  // One child for the common case where everything works (the probe is on every launch's path);
  // one child per namespace only when that fails, to say which one is missing.
  const int all = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
  std::string mount_error;
  if (unshare_error(all, with_user).empty()) {
    p.mount_ns = p.pid_ns = p.net_ns = p.ipc_ns = p.uts_ns = true;
  } else {
    mount_error = unshare_error(CLONE_NEWNS, with_user);
    p.mount_ns = mount_error.empty();
    p.pid_ns = unshare_error(CLONE_NEWPID, with_user).empty();
    p.net_ns = unshare_error(CLONE_NEWNET, with_user).empty();
    p.ipc_ns = unshare_error(CLONE_NEWIPC, with_user).empty();
    p.uts_ns = unshare_error(CLONE_NEWUTS, with_user).empty();
  }
  if (!p.user_ns || !p.mount_ns) {
    p.userns_blocked_by = linux_backend::classify_userns(userns_evidence(user_error, mount_error));
    p.userns_error = !user_error.empty() ? user_error : mount_error;
  }
  p.overlay_userns_error = p.user_ns && p.mount_ns ? overlay_userns_error() : "no user or mount namespace";
  probe_cgroups(p.cgroup);
  return p;
}

}  // namespace paddock::helper
