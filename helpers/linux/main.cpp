// paddock-helper: the small Linux enforcement helper. It never parses user YAML.
//   paddock-helper probe          print the kernel probe JSON
//   paddock-helper run ...        see helper_run.h
// No <iostream>: its static initialiser (the standard streams and their locale) ran on every
// start and its teardown on every exit, for three lines of output.
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "engine/session/run_args.h"
#include "helpers/linux/helper_run.h"
#include "helpers/linux/probe.h"
#include "engine/main_guard.h"

// An install that makes the helper execute-only (mode 0111, a hardening some distributions apply)
// starts it non-dumpable, as the kernel does for any program its user may not read: its /proc
// files then belong to root, and it could not write the id maps of the sandbox it makes ("cannot
// write /proc/PID/setgroups"), nor could its probe. Being dumpable is every other install's
// default: the caller may trace their own processes anyway, and the helper's code is no secret.
// The sandbox's init makes itself non-dumpable again once its maps are written. Not for a
// set-id start, whose non-dumpable state protects the caller from themselves.
static void restore_dumpable() {
  if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 && ::getuid() == ::geteuid() && ::getgid() == ::getegid())
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int program_main(int argc, char** argv) {
  restore_dumpable();
  if (argc >= 2 && std::strcmp(argv[1], "probe") == 0) {
    const std::string json = paddock::linux_backend::to_json(paddock::helper::probe_kernel()).dump() + "\n";
    std::fputs(json.c_str(), stdout);
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return paddock::helper::helper_run_main(argc, argv);
  const std::string usage = "paddock-helper: usage: " + paddock::session::helper_usage() + "\n";
  std::fputs(usage.c_str(), stderr);
  return 2;
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-helper", [&] { return program_main(argc, argv); });
}
