// Reads the placeholder records the helper keeps (engine/session/placeholder_record.h) for the
// front ends, which hand the paths to the engine (Inputs::placeholders): a path counts only
// while it is still the inode that was made and holds only what was put there (nothing, or a
// git pointer's "."), so that nothing the user (or an
// agent) put there is ever hidden from the policy.
#pragma once

#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

namespace paddock::platform {

// `st` (lstat of `path`) is a regular file holding exactly `content` (read without following a
// symlink on the way: the helper reads what an agent may have arranged).
bool holds_only(const std::string& path, const struct stat& st, const std::string& content);
// Under `dir` (session::Layout::placeholders_dir()); sorted. Unreadable records are skipped.
std::vector<std::string> live_placeholders(const std::string& dir);
// Under the placeholder directory of the layout this environment names (none when it names none).
std::vector<std::string> live_placeholders(const std::map<std::string, std::string>& environment);

}  // namespace paddock::platform
