// The helper's side of watching the agents' host-executed settings (engine/session/config_watch.h):
// each file the IR lists (fs.watched_configs) is read before the sandbox exists and again once
// nothing of it runs, on the host, as the caller. The reads follow no symlink, anywhere in the
// path, are bounded and never block: a file the agent replaced by a symlink (to /etc/shadow or
// anywhere), a FIFO, a directory or a file too large to read is a change of the whole file, never
// a hang, a crash or a read of what a symlink points at.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/session/config_watch.h"

namespace paddock::helper {

class AgentConfigWatch {
 public:
  AgentConfigWatch() = default;
  // Reads the files as they are now; only their bytes: parsing waits for the comparison, so that
  // it is not on the way to the agent's start.
  explicit AgentConfigWatch(std::vector<session::WatchedConfig> files);
  // Reads the files again and names each watched key that differs from the first reading.
  std::vector<session::ConfigChange> changes() const;

 private:
  struct Reading {
    std::optional<std::string> bytes;  // std::nullopt: no file
    std::string unreadable;            // why it could not be read ("" when it was)
  };
  static Reading read(const std::string& path);
  static session::ConfigSnapshot snapshot(const session::WatchedConfig& w, const Reading& r);

  std::vector<session::WatchedConfig> files_;
  std::vector<Reading> before_;
};

}  // namespace paddock::helper
