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
void add_session_commands(CLI::App& app, CliContext& ctx);    // cmd_run.cpp: run sessions stop ask verify
void add_run_command(CLI::App& app, CliContext& ctx);         // cmd_run.cpp: run alone
void add_review_commands(CLI::App& app, CliContext& ctx);     // cmd_review.cpp: review apply discard
void add_generate_command(CLI::App& app, CliContext& ctx);    // cmd_generate.cpp: __generate (hidden)
void add_credentials_command(CLI::App& app, CliContext& ctx); // cmd_credentials.cpp: credentials

// Which subcommands run_cli registers. kForArgs registers only `run` when `run` is the first
// argument: building the whole CLI11 tree was a measurable share of every session's start, and
// nothing after `run` can reach a sibling (its command positional takes every non-option token;
// options do not fall through). kWhole always registers everything; tests compare the two.
enum class CliTree { kForArgs, kWhole };

// Runs the CLI: parse, dispatch, return the exit code (docs/cli.md, "Exit codes"). Usage errors
// print one line and return 2.
int run_cli(int argc, char** argv, CliContext& ctx, CliTree tree = CliTree::kForArgs);

}  // namespace paddock::cli
