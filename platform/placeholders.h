// Reads the placeholder records the helper keeps (engine/session/placeholder_record.h) for the
// front ends, which hand the paths to the engine (Inputs::placeholders): a path counts only
// while it is still the inode that was made and still empty, so that nothing the user (or an
// agent) put there is ever hidden from the policy.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace paddock::platform {

// Under `dir` (session::Layout::placeholders_dir()); sorted. Unreadable records are skipped.
std::vector<std::string> live_placeholders(const std::string& dir);
// Under the placeholder directory of the layout this environment names (none when it names none).
std::vector<std::string> live_placeholders(const std::map<std::string, std::string>& environment);

}  // namespace paddock::platform
