// The INPUTS options shared by explain, hash, plan, lint, run and approve (docs/cli.md), mapped
// onto engine::Inputs in one place.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/cli_context.h"
#include "engine/engine.h"

namespace paddock::cli {

struct InputsOptions {
  std::string project = ".";
  std::string agent;
  std::string profile = "default";
  std::string preset = "balanced";
  std::vector<std::string> policy_files;
  std::string net;
  std::vector<std::string> allow_domains;
  std::vector<std::string> allow_reads;
  std::vector<std::string> allow_writes;
  std::string limits;
  // Launch options that shape the IR too, so `hash`, `explain` and `plan` take them as well and
  // reproduce exactly what `run` with the same flags attests.
  bool git_ssh = false;
  bool review = false;
  std::string timeout;
  std::vector<int> publish;
  std::vector<int> host_ports;
  std::string tier;  // --tier: the Linux backend's tier ("" = namespaces)
};

// Adds --project --agent --profile --preset --policy --net --allow-domain --allow-read
// --allow-write --limits --git-ssh --review --timeout --publish --host-port --tier to cmd; values land in the
// returned object.
std::shared_ptr<InputsOptions> add_inputs_options(CLI::App* cmd);

// Builds engine Inputs: environment from ctx, resources from the install layout, --net and
// --timeout parsed (bad value: kBadInput naming what is expected).
Result<Inputs> to_engine_inputs(const InputsOptions& o, const CliContext& ctx);

}  // namespace paddock::cli
