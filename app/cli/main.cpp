#include "app/cli/commands.h"

int main(int argc, char** argv) {
  auto ctx = paddock::cli::CliContext::from_process(argv[0]);
  return paddock::cli::run_cli(argc, argv, ctx);
}
