// The command `run` launches, resolved on the caller's PATH before the sandbox is built, and the
// installation it needs to run: an agent installed under the home directory (npm with a user
// prefix, nvm, Claude Code's native installer) lies outside every read grant, and the sandbox
// would answer "No such file or directory" for a command `which` finds outside.
#pragma once

#include <string>
#include <vector>

#include "engine/status.h"

namespace paddock::cli {

struct LaunchCommand {
  std::string found;                 // where PATH found it (absolute, symlinks kept)
  std::string executable;            // the file it is, all symlinks resolved
  std::string interpreter;           // the shebang's program, resolved ("" when none)
  // Read+execute grants (provenance launch-command): the executable's installation (its npm
  // node_modules tree, the node version directory nvm keeps it in, or the file itself) and the
  // interpreter's.
  std::vector<std::string> grants;
};

// `command` as execvp would find it with `path_var` (relative names against `cwd`). kNotFound
// (127) names the command and the PATH searched.
Result<LaunchCommand> resolve_launch_command(const std::string& command, const std::string& path_var,
                                             const std::string& cwd);

// As execvp: a name with a slash is a path (relative to `cwd`); otherwise the first PATH entry
// holding an executable regular file of that name. Empty and relative PATH entries are skipped,
// as the sandbox's sanitised PATH skips them. "" when there is none.
std::string find_on_path(const std::string& name, const std::string& path_var, const std::string& cwd);

// The installation directory (or file) to grant for an executable's resolved path.
std::string installation_of(const std::string& executable);

}  // namespace paddock::cli
