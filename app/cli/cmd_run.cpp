#include "app/cli/commands.h"

namespace paddock::cli {

// Registers: run, sessions, stop, verify (Linux helper issue). Until those land, the commands do not exist and the CLI answers
// "unknown command" with exit 2.
void add_session_commands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace paddock::cli
