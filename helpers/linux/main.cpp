// paddock-helper: the small Linux enforcement helper. It never parses user YAML.
//   paddock-helper probe          print the kernel probe JSON
//   paddock-helper run ...        see helper_run.h
// No <iostream>: its static initialiser (the standard streams and their locale) ran on every
// start and its teardown on every exit, for three lines of output.
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/session/run_args.h"
#include "helpers/linux/helper_run.h"
#include "helpers/linux/probe.h"
#include "engine/main_guard.h"

static int program_main(int argc, char** argv) {
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
