// The resolved facts every stage needs: canonical project and home, the agent's data dir and
// Paddock's own directories (session::from_env), all derived from Inputs (never from getenv).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <system_error>

#include "engine/dir_lister.h"
#include "engine/engine.h"
#include "engine/path_cache.h"

namespace paddock {

struct EvalContext {
  std::string project;      // canonical
  std::string home;         // canonical
  std::string agent;        // preset name or ""
  std::string agent_dir;    // canonical $AGENT, "" until the agent preset is parsed
  std::string config_dir;   // $XDG_CONFIG_HOME/paddock
  std::string state_dir;    // $XDG_STATE_HOME/paddock
  std::string data_dir;     // $XDG_DATA_HOME/paddock (the agents' Paddock-owned state)
  std::string profile;      // the built-in profile's name (the agent state is kept per profile)
  std::string system_dir;   // /etc/paddock or $PADDOCK_SYSTEM_DIR
  std::string runtime_dir;  // $XDG_RUNTIME_DIR/paddock, "" when XDG_RUNTIME_DIR is not absolute
  std::string xdg_runtime_dir;  // $XDG_RUNTIME_DIR itself, "" when not absolute
  std::string tmp = "/tmp";
  std::string os;
  const std::map<std::string, std::string>* env = nullptr;
  // This evaluation's memo of stat/canonical answers (shared by copies of the context).
  std::shared_ptr<PathCache> paths = std::make_shared<PathCache>();
  // How the glob walks list directories and the small files someone else may have arranged are
  // read: Inputs::lister (or the portable one), behind a filter that leaves out (and reads as
  // absent) Inputs::placeholders when there are any.
  std::shared_ptr<const DirectoryLister> lister;

  std::string getenv(const std::string& name) const {
    auto it = env->find(name);
    return it == env->end() ? std::string() : it->second;
  }
};

Result<EvalContext> make_context(const Inputs& in);

// Who the evaluation runs as, for messages: $USER, else $LOGNAME, else "the user running Paddock".
std::string reader_name(const std::map<std::string, std::string>& env);
// Why `dir` cannot be listed or entered (permission denied, ...), or no error.
std::error_code directory_read_error(const std::string& dir);
// "the project folder DIR cannot be read by USER (why); give USER read access ...": the engine
// refuses such a project with it, and the app says it when the folder is picked.
std::string unreadable_project_message(const std::string& dir, std::error_code why,
                                       const std::map<std::string, std::string>& env);

// Is `path` equal to `root` or below it, component-wise?
bool path_within(const std::string& path, const std::string& root);

// "$PROJECT/x", "~/x", "$HOME", "$AGENT/y", "$TMP" -> absolute lexical path. Relative paths and
// unknown variables are errors (the label names file:line:col and key). For a glob (`pattern`),
// the variable's value is escaped (glob_escape), so that it matches only itself: a project in
// "/home/u/[WIP] app" is that directory, not a character class.
Result<std::string> expand_vars(const std::string& text, const EvalContext& ctx, const std::string& label,
                                bool pattern = false);
// A layer's path entry as a path: a literal one expanded (its escapes removed, glob_unescape), a
// glob's the directory its walk starts from (glob_base).
Result<std::string> expand_base(const std::string& text, const EvalContext& ctx, const std::string& label);

}  // namespace paddock
