#include "app/cli/commands.h"

namespace paddock::cli {

// Registers: plan (capability/plan issue). Until those land, the commands do not exist and the CLI answers
// "unknown command" with exit 2.
void add_plan_command(CLI::App& /*app*/, CliContext& /*ctx*/) {}

}  // namespace paddock::cli
