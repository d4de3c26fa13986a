// Lint (docs/policy-layers.md, "Lint"): R1 home write root, R2 home blanket read, R3 useless deny,
// R4 secret-shaped files present but unmasked, R5 no limits, R6 credentials in the project's git
// config, R7 write protection of tool-executed files lifted, ESC escape-equivalent unix socket and
// directory grants.
#pragma once

#include <string>
#include <vector>

#include "engine/builtin_lists.h"
#include "engine/context.h"
#include "engine/engine.h"
#include "engine/provenance.h"

namespace paddock {

inline constexpr std::size_t kLintScanBudget = 20000;

// What lint needs beyond the IR: the builder's unprotects, and the project-secrets list whose
// names R4 looks for in every granted tree that holds user data.
struct LintInputs {
  std::vector<Unprotect> unprotects;
  const BuiltinList* secret_names = nullptr;
};

std::vector<LintFinding> lint_ir(const FrozenIr& ir, const Provenance& prov, const EvalContext& ctx,
                                 const LintInputs& extra);

// Does `rel` (a path's components, last one the file's name) end in a name the list matches?
// Only the list's "$PROJECT/**/..." patterns are names; the rest are places.
bool matches_secret_name(const BuiltinList& list, const std::vector<std::string>& rel);

// Container engine, ssh-agent, D-Bus, gpg-agent and similar sockets: a grant to one is a grant
// to the host.
bool is_escape_socket(const std::string& path);
// Directories that hold the host's control sockets (the user's runtime directory, the X11
// socket directory, /run): "" or why a file grant reaching into or over one is escape-equivalent.
std::string escape_directory_reason(const std::string& grant, const EvalContext& ctx);

// Credentials stored in the project's git configuration (its .git directory, or the git dir a
// worktree's .git file names): one finding per remote URL with userinfo and per stored
// http.*.extraheader, each with the fix.
std::vector<LintFinding> git_config_credentials(const std::string& project);

}  // namespace paddock
