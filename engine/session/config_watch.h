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

#include <nlohmann/json.hpp>

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

// A settings file's bytes as a JSON document (TOML tables as objects, dates as their text);
// std::nullopt when it does not parse. format: json, jsonc or toml.
std::optional<nlohmann::json> parse_config_document(const std::string& format, const std::string& bytes);

// The files that the values under the watched keys name (a hook's script, the status line's
// command, an MCP server's program, Codex's notify program): every word of every string there
// that is a path, absolute or from the home directory (~/, $HOME/, ${HOME}/), or from the
// settings file's own directory ($CLAUDE_CONFIG_DIR/, $CODEX_HOME/, their ${} forms), lexically
// normal, sorted, at most `max` (the first ones in key order). A program named without a path is
// found on PATH: not a file of the agent's, not listed.
std::vector<std::string> named_files(const WatchedConfig& w, const std::string& bytes, const std::string& home,
                                     std::size_t max);

// `bytes`: the file's contents, std::nullopt when there is no file. A "text" or "tree" entry has
// one key, "(contents)": the bytes (for a tree, the listing the helper makes of it) compared whole.
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
