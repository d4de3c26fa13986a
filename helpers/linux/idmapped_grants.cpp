#include "helpers/linux/idmapped_grants.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "helpers/linux/sys_error.h"

namespace paddock::helper {
namespace {

using linux_backend::MountOp;

Status write_map(const std::string& path, const std::string& value) {
  platform::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || ::write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size()))
    return sys_error("write", path);
  return Status::Ok();
}

// A user namespace whose only ids are 0, standing for the host's nobody (65534): an idmapped
// mount through it shows on-disk owner 0 as nobody, and every other owner, unmapped, as the
// overflow id (nobody too). Made by a short-lived child, which holds it until it is opened.
Result<platform::UniqueFd> nobody_userns() {
  int ready[2], hold[2];
  if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(hold, O_CLOEXEC) != 0) return sys_error("pipe");
  platform::UniqueFd ready_r(ready[0]), ready_w(ready[1]), hold_r(hold[0]), hold_w(hold[1]);
  const pid_t pid = ::fork();
  if (pid < 0) return sys_error("fork for the idmap namespace");
  if (pid == 0) {
    ready_r.reset();
    hold_w.reset();
    const char ok = ::unshare(CLONE_NEWUSER) == 0 ? '1' : '0';
    if (::write(ready_w.get(), &ok, 1) != 1) _exit(1);
    char c;
    while (::read(hold_r.get(), &c, 1) < 0 && errno == EINTR) {}  // EOF: the parent is done
    _exit(0);
  }
  ready_w.reset();
  hold_r.reset();
  auto finish = [&] {
    hold_w.reset();
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
  };
  char ok = 0;
  if (::read(ready_r.get(), &ok, 1) != 1 || ok != '1') {
    finish();
    return refused("cannot make a user namespace for the idmapped grants");
  }
  const std::string base = "/proc/" + std::to_string(pid);
  Status maps = write_map(base + "/uid_map", "0 65534 1\n");
  if (maps) maps = write_map(base + "/gid_map", "0 65534 1\n");
  platform::UniqueFd ns(maps ? ::open((base + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC) : -1);
  const int saved = errno;
  finish();
  if (!maps) return maps.error();
  if (!ns.valid()) {
    errno = saved;
    return sys_error("open the idmap namespace");
  }
  return ns;
}

}  // namespace

Result<std::vector<platform::UniqueFd>> prepare_idmapped_grants(const std::vector<linux_backend::MountStep>& steps) {
  std::vector<platform::UniqueFd> out(steps.size());
  bool any = false;
  for (const auto& s : steps) any = any || s.op == MountOp::kBindRo;
  if (!any) return out;
  auto ns = nobody_userns();
  if (!ns) return ns.error();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].op != MountOp::kBindRo) continue;
    const std::string& src = steps[i].source;
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC | O_NOFOLLOW;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    platform::UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, src.c_str(), &how, sizeof how)));
    if (!fd.valid())
      return refused(src + " (granted) is gone or became a symlink since the policy was resolved; nothing was run (run again)");
    platform::UniqueFd tree(::open_tree(fd.get(), "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE));
    if (!tree.valid()) return sys_error("clone mount for", src);
    mount_attr attr{MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_IDMAP, 0, 0,
                    static_cast<std::uint64_t>(ns->get())};
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
      return refused("as root, Paddock shows read-only grants through an idmapped mount so that the agent "
                     "cannot read root-only files, but " + src + " (or a mount below it) cannot be idmapped (" +
                     std::strerror(errno) + "); run Paddock as an unprivileged user, or drop that grant");
    out[i] = std::move(tree);
  }
  return out;
}

}  // namespace paddock::helper
