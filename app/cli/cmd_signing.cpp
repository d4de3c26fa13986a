#include "app/cli/commands.h"

namespace paddock::cli {

// Registers: keygen, sign, verify-signature (policy engine issue). Until those land, the commands do not exist and the CLI answers
// "unknown command" with exit 2.
void add_signing_commands(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace paddock::cli
