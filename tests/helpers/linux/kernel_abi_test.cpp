// The ABI numbers the plan compiler spells out (backends/linux/kernel_abi.h, which includes no
// Linux headers) are the kernel's: compared with the headers here, where the helper has them.
#include <errno.h>
#include <sched.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <QtTest>

#include "backends/linux/kernel_abi.h"

namespace abi = paddock::linux_backend::abi;

static_assert(abi::kEperm == EPERM);
static_assert(abi::kEacces == EACCES);
static_assert(abi::kEnosys == ENOSYS);
static_assert(abi::kEprotonosupport == EPROTONOSUPPORT);
static_assert(abi::kEsocktnosupport == ESOCKTNOSUPPORT);
static_assert(abi::kSockStream == SOCK_STREAM);
static_assert(abi::kIpprotoTcp == IPPROTO_TCP);
static_assert(abi::kMsgFastopen == MSG_FASTOPEN);
// The type bits are below the flags socket(2) also takes.
static_assert((abi::kSockTypeMask & (SOCK_NONBLOCK | SOCK_CLOEXEC)) == 0);
static_assert(abi::kEafnosupport == EAFNOSUPPORT);
static_assert(abi::kCloneNewns == CLONE_NEWNS);
static_assert(abi::kCloneNewcgroup == CLONE_NEWCGROUP);
static_assert(abi::kCloneNewuts == CLONE_NEWUTS);
static_assert(abi::kCloneNewipc == CLONE_NEWIPC);
static_assert(abi::kCloneNewuser == CLONE_NEWUSER);
static_assert(abi::kCloneNewpid == CLONE_NEWPID);
static_assert(abi::kCloneNewnet == CLONE_NEWNET);
static_assert(abi::kTiocsti == TIOCSTI);
static_assert(abi::kTioclinux == TIOCLINUX);

class KernelAbiTest : public QObject {
  Q_OBJECT
 private slots:
  // The compile-time checks above are the test; this one says the flag list holds every namespace
  // clone(2) can create, once each (CLONE_NEWTIME only unshare and clone3 take, and the plan
  // refuses both outright).
  void the_namespace_clone_flags_are_every_namespace_clone_can_create_once_each() {
    std::uint64_t all = 0;
    for (std::uint64_t f : abi::kNamespaceCloneFlags) {
      QVERIFY((all & f) == 0);
      all |= f;
    }
    const std::uint64_t kernel = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                                 CLONE_NEWPID | CLONE_NEWNET;
    QCOMPARE(all, kernel);
  }
};

QTEST_GUILESS_MAIN(KernelAbiTest)
#include "kernel_abi_test.moc"
