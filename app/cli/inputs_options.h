// The INPUTS options shared by explain, hash, plan, lint, run and approve (docs/cli.md): the CLI's
// parser fills a session::LaunchRequest (engine/session/launch_request.h), from which the engine's
// Inputs are derived, as they are for a launch from the app.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/cli_context.h"
#include "engine/engine.h"
#include "engine/session/launch_request.h"

namespace paddock::cli {

// Adds --project --agent --profile --preset --policy --net --allow-domain --allow-read
// --allow-write --limits --git-ssh --review --timeout --publish --host-port --tier to cmd; values
// land in the returned request.
std::shared_ptr<session::LaunchRequest> add_inputs_options(CLI::App* cmd);

// `run`'s own: the inputs, --allow-tainted and the command after "--".
std::shared_ptr<session::LaunchRequest> add_launch_options(CLI::App* run_cmd);

// `paddock run`'s arguments (after "paddock") read by the same parser as `paddock run` reads them:
// what session::run_arguments wrote reads back as the request it was written from.
Result<session::LaunchRequest> parse_run_arguments(const std::vector<std::string>& args);

// Builds engine Inputs: environment from ctx, resources from the install layout, relative paths
// from the working directory (bad value: kBadInput naming what is expected).
Result<Inputs> to_engine_inputs(const session::LaunchRequest& r, const CliContext& ctx);

}  // namespace paddock::cli
