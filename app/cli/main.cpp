#include "app/cli/commands.h"
#include "engine/main_guard.h"

static int program_main(int argc, char** argv) {
  auto ctx = paddock::cli::CliContext::from_process(argv[0]);
  return paddock::cli::run_cli(argc, argv, ctx);
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock", [&] { return program_main(argc, argv); });
}
