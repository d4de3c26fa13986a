// Which of a session's changes a tool on the host would run, or that point git or a tool somewhere
// the review cannot see, and why (docs/review.md, "What is flagged"). Pure: it reads the changes
// and the built-in lists (resources/lists: tool-executed, agent-config), never the file system;
// what only a file's bytes can tell (the gitlinks an index adds) comes in as facts. Review mode
// uses it on the overlay's change set; the direct-mode audit and the agent-state review call the
// same rules on theirs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/builtin_lists.h"
#include "engine/review/change.h"

namespace paddock::review {

struct ClassifyContext {
  std::string project;  // $PROJECT of the lists' patterns (canonical)
  std::string home;     // ~ and $HOME
  const BuiltinList* tool_executed = nullptr;  // effect deny_write: files the user's tools run
  const BuiltinList* agent_config = nullptr;   // effect watch: the agents' settings naming commands
};

// What the file's bytes say, keyed by the change's path.
struct ChangeFacts {
  std::vector<std::string> added_gitlinks;  // a .git/index: gitlink paths the host's index lacks
  std::string unreadable;                   // a .git/index that could not be parsed: why
};

class Classifier {
 public:
  explicit Classifier(ClassifyContext ctx);

  // The role of a path under a .git directory (kNone elsewhere), for a change of this kind.
  static GitRole git_role(const std::string& path, ChangeKind kind);

  // Sets flags and git role on every change. `facts`: by path, where known.
  void classify(std::vector<Change>& changes, const std::map<std::string, ChangeFacts>& facts = {}) const;

  // The flags of one change, given whether the repository its path is in is new (a .git
  // directory the session added).
  std::vector<Flag> flags_of(const Change& c, const ChangeFacts* facts, const std::string& new_repository) const;

 private:
  struct Pattern {
    std::string glob;  // absolute, variables expanded, no trailing '/'
    std::vector<std::string> segments;  // glob, split once
    std::string source;
    std::string rule;
    std::string why;
  };
  std::vector<Pattern> patterns_;
  // Patterns by their last component: a literal one is tried only on a name equal to it (one
  // lookup per directory level), those whose last component is a glob on every name.
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_tail_;
  std::vector<std::size_t> glob_tails_;
  ClassifyContext ctx_;
};

}  // namespace paddock::review
