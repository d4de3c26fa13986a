// Which of a session's changes a tool on the host would run, or that point git or a tool somewhere
// the review cannot see, and why (docs/review.md, "What is flagged"). Pure: it reads the changes
// and the built-in lists (resources/lists: tool-executed, agent-config), never the file system;
// what only a file's bytes can tell (the gitlinks an index adds) comes in as facts. Review mode
// uses it on the overlay's change set; the direct-mode audit and the agent-state review call the
// same rules on theirs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/builtin_lists.h"
#include "engine/review/change.h"
#include "engine/review/git_config.h"

namespace paddock::review {

struct ClassifyContext {
  std::string project;  // $PROJECT of the lists' patterns (canonical; "": those patterns match nothing)
  std::string home;     // ~ and $HOME
  const BuiltinList* tool_executed = nullptr;  // effect deny_write: files the user's tools run
  const BuiltinList* agent_config = nullptr;   // effect watch: the agents' settings naming commands
};

// What the file's bytes say, keyed by the change's path.
struct ChangeFacts {
  std::vector<std::string> added_gitlinks;  // a .git/index: gitlink paths the host's index lacks
  std::string unreadable;                   // a .git/index that could not be parsed: why
  // Said after the gitlinks: what each one's repository runs, or why which were added is unknown.
  std::string gitlink_note;
  // A git config file, or (keyed by its .git directory) a new repository's config: the settings
  // that name programs git runs (git_config.h), and why it could not be read, if it could not.
  std::vector<GitCommandKey> config_commands;
  std::string config_problem;
  // A .git file: the directory its gitdir: line sends git to.
  std::string gitdir_target;
  // A watched agent settings file (engine/session/config_watch.h): the keys naming host commands
  // that changed during the session. Set, the agent-config rule flags the file only when one
  // did (a state file the agent rewrites at every start is not a finding); unset, any change is.
  std::optional<std::vector<std::string>> agent_config_keys;
  // An agent's settings file (the agent-config list): the keys naming host commands that differ.
  std::vector<std::string> changed_keys;
  // A file an agent's settings name (a hook's script, the status line's command): "statusLine in
  // /home/u/.claude/settings.json". The agent-state review computes both.
  std::string named_by;
};

class Classifier {
 public:
  explicit Classifier(ClassifyContext ctx);

  // The role of a path under a .git directory (kNone elsewhere), for a change of this kind.
  static GitRole git_role(const std::string& path, ChangeKind kind);
  // The innermost .git directory around path and the rest of the path below it
  // ("/p/.git", "hooks/pre-commit"); empty when the path is in no .git directory.
  static std::pair<std::string, std::string> git_path(const std::string& path);
  // A git index: a .git directory's, or that of a submodule or worktree git directory in it.
  static bool is_index(const std::string& path);

  // Sets flags and git role on every change. `facts`: by path, where known.
  void classify(std::vector<Change>& changes, const std::map<std::string, ChangeFacts>& facts = {}) const;

  // The flags of one change, given whether the repository its path is in is new (a .git
  // directory the session added) and, then, what that repository's config runs.
  std::vector<Flag> flags_of(const Change& c, const ChangeFacts* facts, const std::string& new_repository,
                             const ChangeFacts* repository_facts = nullptr) const;

 private:
  struct Pattern {
    std::string glob;  // absolute, variables expanded, no trailing '/'
    std::vector<std::string> segments;  // glob, split once
    std::string source;
    std::string rule;
    std::string why;
    std::string tool;
  };
  std::vector<Pattern> patterns_;
  // Patterns by their last component: a literal one is tried only on a name equal to it (one
  // lookup per directory level), those whose last component is a glob on every name.
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_tail_;
  std::vector<std::size_t> glob_tails_;
  ClassifyContext ctx_;
};

}  // namespace paddock::review
