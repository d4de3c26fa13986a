// no_userns CMD [ARGS...]: runs CMD where user namespaces cannot be created, as a container's
// default seccomp profile makes it: unshare(2) and clone(2) with CLONE_NEWUSER fail with EPERM,
// clone3(2) (whose flags seccomp cannot read) with ENOSYS. The landlock tier's tests start the
// probe and the helper under it.
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: no_userns CMD [ARGS...]\n", stderr);
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0 || seccomp_load(ctx) != 0) {
    std::perror("no_userns: seccomp");
    return 125;
  }
  seccomp_release(ctx);
  execvp(argv[1], argv + 1);
  std::perror("no_userns: exec");
  return 127;
}
