// Each group of subcommands registers itself on the CLI11 app. One file per group, so that
// commands stay independent: the callbacks set ctx.exit_code.
#pragma once

#include <CLI/CLI.hpp>

#include "app/cli/cli_context.h"

namespace paddock::cli {

void add_version_and_doctor(CLI::App& app, CliContext& ctx);  // cmd_doctor.cpp
void add_policy_commands(CLI::App& app, CliContext& ctx);     // cmd_policy.cpp: explain hash lint approve
void add_signing_commands(CLI::App& app, CliContext& ctx);    // cmd_signing.cpp: keygen sign verify-signature
void add_plan_command(CLI::App& app, CliContext& ctx);        // cmd_plan.cpp: plan
void add_session_commands(CLI::App& app, CliContext& ctx);    // cmd_run.cpp: run sessions stop verify

// Runs the CLI: parse, dispatch, return the exit code (DESIGN §10). Usage errors print one
// line and return 2.
int run_cli(int argc, char** argv, CliContext& ctx);

}  // namespace paddock::cli
