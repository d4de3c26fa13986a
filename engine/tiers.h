// Tier discovery (docs/policy-layers.md): the candidate file of every tier, weakest first, with its
// bytes (or the GUI's overlay text). Reading never modifies anything.
#pragma once

#include <string>
#include <vector>

#include "engine/context.h"
#include "engine/engine.h"

namespace paddock {

struct LayerSource {
  std::string tier;
  std::string file;       // absolute path, "builtin:profiles/default.yaml" or "cli:flags"
  std::string fs_path;    // where it was read from ("" for cli:flags)
  bool exists = false;
  std::string bytes;
  std::string sha256;     // "" when it does not exist
};

Result<std::vector<LayerSource>> discover_layers(const Inputs& in, const EvalContext& ctx);

// Where the tiers that are one file live, spelled only here: relative to the project for
// repository and local-override, to Paddock's config or system directory for user-global and
// system-global. "" for the other tiers. The app names, opens and watches these through it.
std::string tier_file_name(const std::string& tier);
// That file's absolute path, from the project, config_dir or system_dir as the tier says; "" for
// the other tiers and where that base is "".
std::string tier_file(const std::string& tier, const std::string& project, const std::string& config_dir,
                      const std::string& system_dir = {});
// The repository's fragments directory (each *.yaml in it is a repository-fragment tier).
std::string fragments_dir(const std::string& project);

// Reads a whole policy file, at most kLayerFileMax bytes (a larger one is an error naming the line
// at the limit), never waiting on it (a FIFO is not a regular file); a symlinked policy file is an
// error (kBadInput). `lister`: how the file is read (platform's in the front ends).
Result<std::string> read_policy_file(const std::string& path, bool refuse_symlink, const DirectoryLister* lister = nullptr);

// The built-in profiles (resources/profiles) and presets (resources/presets), as --profile and
// --preset name them; the files are checked against these by agent_presets_test.
const std::vector<std::string>& profile_names();
const std::vector<std::string>& preset_names();

// A built-in agent preset as its file in resources/agents says: its name (the --agent value),
// description, and the program its agent CLI is started as (agent.command; "" for custom, which
// runs the command it is given).
struct AgentPreset {
  std::string name;
  std::string description;
  std::string command;
};
// Every built-in preset, in agent_preset_names() order (the app's agent list reads these).
Result<std::vector<AgentPreset>> agent_presets(const std::string& resources_dir);

}  // namespace paddock
