// Approvals of repository-side layers (docs/policy-layers.md), in
// $XDG_STATE_HOME/paddock/approvals.json, written through the caller's FileWriter (atomically).
// One approval per (project, layer file): its tier and the content hash the user approved.
// Approving a file again replaces its hash, so bytes approved once and changed since do not come
// back approved, neither in the same file nor under another name.
// Shape (version 2):
//   {"version":2,"projects":{"<project>":{"<layer file>":{"tier":"...","sha256":"sha256:..."}}}}
// Version 1 (a set of hashes per project, each with the file and tier it was approved for) is
// read and rewritten as version 2 by the next approval: a file with one approved hash keeps it; a
// file with several, whose latest version 1 cannot tell, has none and needs approving again.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/file_writer.h"

namespace paddock {

struct Approval {
  std::string tier;
  std::string sha256;
  bool operator==(const Approval&) const = default;
};
using ProjectApprovals = std::map<std::string, Approval>;  // layer file -> approval

std::string approvals_path(const std::string& state_dir);
// The project's approvals; a missing file is none, a corrupt one is an error (kBadInput, naming
// the file; it is left as it is).
Result<ProjectApprovals> load_approvals(const std::string& state_dir, const std::string& project);
bool is_approved(const ProjectApprovals& approvals, const std::string& file, const std::string& tier,
                 const std::string& sha256);
// Records every repository-side layer in `layers` that exists and applies as approved for the
// project, replacing what was approved for the same file before.
Status record_approvals(const std::string& state_dir, const std::string& project, const std::vector<LayerInfo>& layers,
                        const FileWriter& writer);

}  // namespace paddock
