// The helper's side of watching the agents' host-executed settings (engine/session/config_watch.h)
// where a session can still write them (filesystem.agent_state: shared, or a grant that reaches
// them; docs/agents.md): each file the IR lists (fs.watched_configs) is read before the sandbox
// exists and again once nothing of it runs, on the host, as the caller. Both readings resolve the
// path through every symlink first (bounded by the kernel's own limit), so that a chain re-pointed
// anywhere along the way is a change of where the file resolves to, and what is compared is what
// the agent's CLI would read there. A settings file's watched keys are compared, and the files
// those keys name (a hook's script, the status line's command: at most 64 per file) by their
// bytes; a "text" entry is compared whole, a "tree" entry (a directory of commands, plugins,
// extensions) entry by entry. Reads are bounded and never block: a FIFO, a device or a file too
// large to read is a change of that file's state, never a hang or a crash.
//
// What is not seen: a change the agent makes and restores before the session ends (docs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/session/config_watch.h"

namespace paddock::helper {

class AgentConfigWatch {
 public:
  AgentConfigWatch() = default;
  // Reads the files as they are now, and the files their keys name; `home` expands ~ there.
  AgentConfigWatch(std::vector<session::WatchedConfig> files, const std::string& home);
  // Reads the files again and names each watched key, named file or resolution that differs.
  std::vector<session::ConfigChange> changes() const;

  // Exposed for the unit test.
  struct Reading {
    std::optional<std::string> bytes;  // std::nullopt: no file
    std::string unreadable;            // why it could not be read ("" when it was)
    std::string resolved;              // the path with every symlink resolved ("" : no file)
  };
  static Reading read(const session::WatchedConfig& w);

 private:
  static session::ConfigSnapshot snapshot(const session::WatchedConfig& w, const Reading& r);

  std::vector<session::WatchedConfig> files_;  // the IR's, then the files their keys name
  std::vector<Reading> before_;
};

}  // namespace paddock::helper
