// The helper's side of watching an agent's host-executed settings (engine/session/config_watch.h):
// snapshots taken before the sandbox exists, compared once it is gone. Files are read on the
// host, as the user, like any file the agent's CLI would read there.
#pragma once

#include <vector>

#include "engine/session/config_watch.h"

namespace paddock::helper {

class AgentConfigWatch {
 public:
  explicit AgentConfigWatch(std::vector<session::WatchedConfig> files);
  // Reads the files again and names each watched key that differs from the first snapshot.
  std::vector<session::ConfigChange> changes() const;

 private:
  std::vector<session::WatchedConfig> files_;
  std::vector<session::ConfigSnapshot> before_;
};

}  // namespace paddock::helper
