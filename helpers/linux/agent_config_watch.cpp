#include "helpers/linux/agent_config_watch.h"

#include "engine/ir.h"
#include "platform/read_file.h"

namespace paddock::helper {
namespace {

session::ConfigSnapshot take(const session::WatchedConfig& w) {
  auto bytes = platform::read_file_if_exists(w.path);
  if (bytes.ok()) return session::snapshot_config(w, *bytes);
  // Unreadable (not a regular file, too large, no permission): compared as "the file's state".
  session::ConfigSnapshot s;
  s.exists = true;
  s.whole = sha256_hex("unreadable: " + bytes.error().message);
  return s;
}

}  // namespace

AgentConfigWatch::AgentConfigWatch(std::vector<session::WatchedConfig> files) : files_(std::move(files)) {
  for (const auto& w : files_) before_.push_back(take(w));
}

std::vector<session::ConfigChange> AgentConfigWatch::changes() const {
  std::vector<session::ConfigChange> out;
  for (std::size_t i = 0; i < files_.size(); ++i)
    for (auto& c : session::compare_configs(files_[i], before_[i], take(files_[i]))) out.push_back(std::move(c));
  return out;
}

}  // namespace paddock::helper
