// Approvals of repository-side layers (docs/policy-layers.md): per project path + layer content hash, in
// $XDG_STATE_HOME/paddock/approvals.json, written atomically.
// Shape: {"version":1,"projects":{"<project>":{"<sha256:...>":{"file":"...","tier":"..."}}}}
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/file_writer.h"

namespace paddock {

std::string approvals_path(const std::string& state_dir);
// Approved hashes for a project; a missing file is none, a corrupt one is an error.
Result<std::set<std::string>> load_approvals(const std::string& state_dir, const std::string& project);
// Records every repository-side layer in `layers` that applies as approved for the project.
Status record_approvals(const std::string& state_dir, const std::string& project, const std::vector<LayerInfo>& layers,
                        const FileWriter& out);

}  // namespace paddock
