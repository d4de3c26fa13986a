#include "app/cli/commands.h"

namespace paddock::cli {

// Registers: explain, hash, lint, approve (policy engine issue). Until those land, the commands do not exist and the CLI answers
// "unknown command" with exit 2.
void add_policy_commands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace paddock::cli
