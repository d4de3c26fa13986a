// Agent configuration that runs on the host: an agent's own settings can name commands its CLI
// runs later, outside Paddock (Claude Code's hooks and status line, the MCP servers of every
// agent, Codex's notify program, ...). A session whose agent may write those files changes what
// runs on the host next time. The IR lists the files the session can write (fs.watched_configs,
// built from the agent-config list); the helper reads each one before the sandbox exists and
// again once it is gone (helpers/linux/agent_config_watch.h), and this snapshot of the keys that
// name such commands names each key that changed: one agent_config_changed event per change, and
// the report's config_changes, which `paddock sessions` and the app show (docs/trust-posture.md).
//
// A snapshot keeps digests, never values: an MCP server's entry may hold a token.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir.h"

namespace paddock::session {

// One watched file, as the IR lists it (engine/ir.h): the path, its format ("json", "jsonc" or
// "toml") and the key paths to compare. A key path is dot-separated; "*" stands for any one key
// at that level ("projects.*.mcpServers": every project's MCP servers).
using WatchedConfig = paddock::WatchedConfig;

struct ConfigSnapshot {
  bool exists = false;
  bool parsed = false;                        // false: only `whole` can be compared
  std::string whole;                          // digest of the file's bytes
  std::map<std::string, std::string> values;  // concrete key -> digest of its value
};

// `bytes`: the file's contents, std::nullopt when there is no file.
ConfigSnapshot snapshot_config(const WatchedConfig& w, const std::optional<std::string>& bytes);

struct ConfigChange {
  std::string file;
  std::string key;     // the concrete key ("hooks", "projects[\"/home/u/p\"].mcpServers"), or "(file)"
  std::string change;  // added | changed | removed | unparseable
  bool operator==(const ConfigChange&) const = default;
};

// Sorted by key. Where either side could not be parsed, the whole file is compared.
std::vector<ConfigChange> compare_configs(const WatchedConfig& w, const ConfigSnapshot& before,
                                          const ConfigSnapshot& after);

}  // namespace paddock::session
