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

// Reads a whole policy file, at most kLayerFileMax bytes (a larger one is an error naming the line
// at the limit), never waiting on it (a FIFO is not a regular file); a symlinked policy file is an
// error (kBadInput). `lister`: how the file is read (platform's in the front ends).
Result<std::string> read_policy_file(const std::string& path, bool refuse_symlink, const DirectoryLister* lister = nullptr);

}  // namespace paddock
