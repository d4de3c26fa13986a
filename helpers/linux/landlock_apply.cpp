#include "helpers/linux/landlock_apply.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "platform/unique_fd.h"
#include "helpers/linux/sys_error.h"

// The Debian 12 headers stop at ABI 2; the constants below are the kernel's UAPI values.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT 2
#endif

namespace paddock::helper {
namespace {

// The full ruleset attribute (ABI 6+ layout); the size passed tells the kernel which fields exist.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) NetPortAttr {
  std::uint64_t allowed_access;
  std::uint64_t port;
};

using linux_backend::LandlockFsRight;
using linux_backend::LandlockNetRight;
using linux_backend::LandlockScope;

std::uint64_t bit(LandlockFsRight right) {
  switch (right) {
    case LandlockFsRight::kExecute: return LANDLOCK_ACCESS_FS_EXECUTE;
    case LandlockFsRight::kWriteFile: return LANDLOCK_ACCESS_FS_WRITE_FILE;
    case LandlockFsRight::kReadFile: return LANDLOCK_ACCESS_FS_READ_FILE;
    case LandlockFsRight::kReadDir: return LANDLOCK_ACCESS_FS_READ_DIR;
    case LandlockFsRight::kRemoveDir: return LANDLOCK_ACCESS_FS_REMOVE_DIR;
    case LandlockFsRight::kRemoveFile: return LANDLOCK_ACCESS_FS_REMOVE_FILE;
    case LandlockFsRight::kMakeChar: return LANDLOCK_ACCESS_FS_MAKE_CHAR;
    case LandlockFsRight::kMakeDir: return LANDLOCK_ACCESS_FS_MAKE_DIR;
    case LandlockFsRight::kMakeReg: return LANDLOCK_ACCESS_FS_MAKE_REG;
    case LandlockFsRight::kMakeSock: return LANDLOCK_ACCESS_FS_MAKE_SOCK;
    case LandlockFsRight::kMakeFifo: return LANDLOCK_ACCESS_FS_MAKE_FIFO;
    case LandlockFsRight::kMakeBlock: return LANDLOCK_ACCESS_FS_MAKE_BLOCK;
    case LandlockFsRight::kMakeSym: return LANDLOCK_ACCESS_FS_MAKE_SYM;
    case LandlockFsRight::kRefer: return LANDLOCK_ACCESS_FS_REFER;
    case LandlockFsRight::kTruncate: return LANDLOCK_ACCESS_FS_TRUNCATE;
    case LandlockFsRight::kIoctlDev: return LANDLOCK_ACCESS_FS_IOCTL_DEV;
  }
  return 0;
}

std::uint64_t bit(LandlockNetRight right) {
  switch (right) {
    case LandlockNetRight::kBindTcp: return LANDLOCK_ACCESS_NET_BIND_TCP;
    case LandlockNetRight::kConnectTcp: return LANDLOCK_ACCESS_NET_CONNECT_TCP;
  }
  return 0;
}

std::uint64_t bit(LandlockScope scope) {
  switch (scope) {
    case LandlockScope::kAbstractUnixSocket: return LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
    case LandlockScope::kSignal: return LANDLOCK_SCOPE_SIGNAL;
  }
  return 0;
}

// File system rights each ABI knows (1: bits 0-12, 2: +refer, 3: +truncate, 5: +ioctl_dev).
std::uint64_t fs_mask_for_abi(int abi) {
  if (abi <= 0) return 0;
  std::uint64_t m = (1ULL << 13) - 1;
  if (abi >= 2) m |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) m |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return m;
}

// Rights that make sense on a non-directory (the kernel rejects the others with EINVAL).
constexpr std::uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                                      LANDLOCK_ACCESS_FS_IOCTL_DEV;

template <typename Right>
Result<std::uint64_t> to_bits(const std::vector<Right>& rights, std::uint64_t valid, const char* what) {
  std::uint64_t bits = 0;
  for (const Right r : rights) {
    if (!(bit(r) & valid))
      return refused(std::string("Landlock ") + what + " right '" + linux_backend::to_string(r) +
                     "' needs a newer ABI than the plan's");
    bits |= bit(r);
  }
  return bits;
}

}  // namespace

int landlock_runtime_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

Status apply_landlock(const linux_backend::LandlockPlan& plan) {
  if (plan.abi == 0) return Status::Ok();
  int abi = landlock_runtime_abi();
  if (abi < plan.abi)
    return refused("the plan needs Landlock ABI " + std::to_string(plan.abi) + " but this kernel has " +
                   std::to_string(abi));
  // Use exactly the plan's ABI: the plan hash covers it, so the same IR gives the same rules.
  const std::uint64_t fs_valid = fs_mask_for_abi(plan.abi);
  const std::uint64_t net_valid = plan.abi >= 4 ? 3 : 0;
  const std::uint64_t scope_valid = plan.abi >= 6 ? 3 : 0;

  auto handled_fs = to_bits(plan.handled_fs, fs_valid, "file system");
  if (!handled_fs) return handled_fs.error();
  auto handled_net = to_bits(plan.handled_net, net_valid, "network");
  if (!handled_net) return handled_net.error();
  auto scoped = to_bits(plan.scoped, scope_valid, "scope");
  if (!scoped) return scoped.error();

  RulesetAttr attr{*handled_fs, *handled_net, *scoped};
  // Older ABIs know a shorter struct; pass only the fields they have.
  std::size_t size = plan.abi >= 6 ? sizeof(RulesetAttr) : plan.abi >= 4 ? 16 : 8;
  platform::UniqueFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
  if (!ruleset.valid()) return sys_error("landlock_create_ruleset");

  for (const auto& rule : plan.path_rules) {
    auto bits = to_bits(rule.access, fs_valid, "file system");
    if (!bits) return bits.error();
    platform::UniqueFd fd(::open(rule.path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd.valid()) return sys_error("Landlock rule path", rule.path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return sys_error("stat", rule.path);
    landlock_path_beneath_attr pb{};
    pb.allowed_access = *bits & *handled_fs;
    if (!S_ISDIR(st.st_mode)) pb.allowed_access &= kFileRights;
    pb.parent_fd = fd.get();
    if (pb.allowed_access == 0) continue;
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
      return sys_error("landlock_add_rule", rule.path);
  }
  for (const auto& rule : plan.net_rules) {
    auto bits = to_bits(rule.access, net_valid, "network");
    if (!bits) return bits.error();
    NetPortAttr np{*bits & *handled_net, static_cast<std::uint64_t>(rule.port)};
    if (np.allowed_access == 0) continue;
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_NET_PORT, &np, 0) != 0)
      return sys_error("landlock_add_rule port", std::to_string(rule.port));
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) return sys_error("landlock_restrict_self");
  return Status::Ok();
}

}  // namespace paddock::helper
