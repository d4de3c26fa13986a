// A parsed policy layer (docs/policy-layers.md, schema version 1): what one YAML file says, with
// the file:line:column of every entry so that errors, provenance and `--why` can name the rule.
// Nothing here is resolved yet: paths still carry $PROJECT, ~/ and globs. Every member that holds
// a key's value is declared in engine/layer_schema.h, which the parser, the lockdown check and
// the documentation are derived from.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir.h"

namespace paddock {

// Tier names, weakest first (docs/policy-layers.md).
inline constexpr const char* kTierSystem = "system-global";
inline constexpr const char* kTierUser = "user-global";
inline constexpr const char* kTierProfile = "builtin-profile";
inline constexpr const char* kTierPreset = "preset";
inline constexpr const char* kTierAgent = "agent-preset";
inline constexpr const char* kTierRepo = "repository";
inline constexpr const char* kTierFragment = "repository-fragment";
inline constexpr const char* kTierLocal = "local-override";
inline constexpr const char* kTierCliFile = "cli-explicit-file";
inline constexpr const char* kTierCliFlags = "cli-flags";
// Not a layer: the provenance of the read grants `run` adds for the launched command's own
// installation (Inputs::launch_reads).
inline constexpr const char* kTierLaunchCommand = "launch-command";

// The agent presets that ship (resources/agents): what --agent and when.agent_is accept.
const std::vector<std::string>& agent_preset_names();

// Repository-side tiers come with the code: untrusted, approval-gated, no dangerous writes.
bool is_repository_side(const std::string& tier);
// Tiers shipped inside Paddock's own resources (part of the installation, like the binary).
bool is_builtin(const std::string& tier);

// Where one rule came from: "filesystem.deny[2]" at file:line:col of tier.
struct Origin {
  std::string tier;
  std::string file;
  std::string key;
  int line = 0;  // 1-based; 0 for rules that have no line (cli flags, built-in invariants)
  int col = 0;
  std::string where() const { return pos().where(); }  // "file:line:col" (or just file)
  ErrorOrigin pos() const { return {file, line, col, key}; }
  bool operator==(const Origin&) const = default;
};

struct Item {  // one list entry or scalar, with where it was written
  std::string text;
  Origin at;
  bool operator==(const Item&) const = default;
};

enum class LimitKey { kCpu, kMemory, kProcesses, kOpenFiles, kFileSize, kWallTime };
inline constexpr int kLimitCount = 6;

struct LimitValue {
  std::optional<std::int64_t> value;
  Origin at;
  bool operator==(const LimitValue&) const = default;
};

struct Layer {
  std::string tier;
  std::string file;
  std::string sha256;
  std::string name;
  std::string description;

  struct When {
    std::optional<Item> branch, file_exists, project_contains, os, agent_is;
    bool empty() const { return !branch && !file_exists && !project_contains && !os && !agent_is; }
    bool operator==(const When&) const = default;
  } when;

  std::optional<bool> immutable;
  Origin immutable_at;
  std::optional<bool> require_signed;
  Origin require_signed_at;

  std::vector<Item> allow_write, allow_read, deny, deny_write, deny_preset;
  std::vector<Item> deny_write_preset;  // built-in deny_write lists (resources/lists)
  // Paths whose built-in write protection (the tool-executed list) this layer lifts; only the
  // system, user and --policy tiers may (the builder refuses the others).
  std::vector<Item> unprotect;
  std::optional<bool> tmpfs_tmp;
  // Keep the agents' settings that name host commands read-only (lists/agent-config.json); any
  // tier may turn it on, as it only narrows.
  std::optional<bool> protect_agent_config;
  Origin protect_agent_config_at;
  // Hold the agent's writes for review (docs/review.md): every write root becomes an overlay
  // whose changes reach the host only through `paddock apply`. Any tier may turn it on, as it
  // only narrows; false turns nothing off.
  std::optional<bool> review;
  Origin review_at;
  // filesystem.agent_state: "own" (the default: the agent's directories are overlays over the
  // user's own, its writes kept in Paddock's agent state, docs/agents.md) or "shared" (the old
  // way: it writes the user's real directories, watched). Only the system, user and --policy
  // tiers may choose shared, as it widens; any tier may say own.
  std::optional<std::string> agent_state;
  Origin agent_state_at;
  Origin tmpfs_at;

  std::optional<NetMode> net_mode;
  Origin net_mode_at;
  std::vector<Item> allow_domains;
  std::vector<std::pair<Item, std::vector<int>>> strict_ports;
  std::vector<Item> allow_cidr;
  std::vector<std::pair<Item, std::int64_t>> quotas;
  std::vector<Item> net_presets;

  // false forbids binding TCP ports inside the sandbox's private network namespace.
  std::optional<bool> loopback_bind;
  Origin loopback_bind_at;
  // network.publish: host loopback ports forwarded to the sandbox's (port, where it was written).
  std::vector<std::pair<int, Origin>> publish;
  // network.host_ports: host loopback ports the sandbox may reach (port, where it was written).
  std::vector<std::pair<int, Origin>> host_ports;

  std::vector<Item> unix_sockets_allow;

  std::vector<Item> pass_through, env_deny;
  // The user's opt-in to let the agent preset's own API key variables through the hard-deny.
  std::optional<bool> agent_credentials;
  Origin agent_credentials_at;

  std::vector<Item> brokered_env;

  // credentials: the brokered credentials this layer declares, in file order
  // (docs/credentials.md). Checked further (names, hosts, variables) when merged.
  struct Credential {
    Item name;
    Item upstream;                  // host or host:port, as written
    std::optional<Item> header;     // default "authorization"
    std::optional<CredentialScheme> scheme;  // default bearer
    std::optional<Item> basic_user;
    std::vector<std::pair<std::string, Item>> env;  // variable -> value template, in file order
    std::optional<std::int64_t> max_requests, max_bytes, max_request_bytes, max_response_bytes;
    Origin budget_at;               // where the first budget or bound was written
    bool operator==(const Credential&) const = default;
  };
  std::vector<Credential> credentials;

  std::array<LimitValue, kLimitCount> limits{};

  // sandbox.linux_tier: the Linux backend's tier, "namespaces" or "landlock" (docs/capabilities.md).
  // Only the system, user and --policy tiers may choose it: a repository's layer could otherwise
  // trade the namespaces away.
  std::optional<std::string> linux_tier;
  Origin linux_tier_at;

  // `agent:` — only in agent-preset files (resources/agents).
  struct Agent {
    bool present = false;
    Item data_dir;
    // The program the preset's agent CLI is started as (the app's agent list finds it on PATH);
    // "" for a preset that runs whatever command it is given (custom).
    std::string command;
    std::optional<NetMode> default_net;
    Origin default_net_at;
    std::vector<Item> credential_env;
    // Directories the agent writes its state to (config, data, cache, state): created by `run`
    // (mode 0700) when absent, and granted read+write like allow_write.
    std::vector<Item> state_dirs;
    // Variables the agent reads its settings from (e.g. CLAUDE_CONFIG_DIR: $AGENT); values
    // may use $AGENT, $HOME and ~/.
    std::vector<std::pair<std::string, Item>> env;
    // Own agent state (docs/agents.md): paths in the agent's directories that the sandbox never
    // sees of the user's own copy (its history, sessions, caches, logs), so that the agent
    // starts those fresh in its Paddock-owned state. The stored logins of the agent-logins list
    // are hidden too, without being listed here.
    std::vector<Item> hidden_state;
    // Settings Paddock writes into the agent's own settings in its Paddock-owned state for each
    // session: keys set to a value (its nested sandbox turned off), or keys copied in from one
    // of the user's files (MCP servers kept outside the agent's directory).
    struct Setting {
      Item file;
      std::string format;                               // json | toml
      std::vector<std::pair<std::string, Item>> set;   // JSON pointer -> JSON text of the value
      std::optional<Item> import_from;
      std::vector<Item> import_keys;                    // JSON pointers; $PROJECT allowed
      std::string why;
      bool operator==(const Setting&) const = default;
    };
    std::vector<Setting> settings;
    bool operator==(const Agent&) const = default;
  } agent;

  bool operator==(const Layer&) const = default;
};

// Every layer's bounds, checked before and while YAML reads it (docs/policy-layers.md, "Limits"):
// a repository's layer comes with the code, and the app evaluates it as you type.
inline constexpr std::size_t kLayerFileMax = std::size_t{1} << 20;  // bytes
inline constexpr std::size_t kLayerNodeMax = 100000;                // YAML nodes visited, aliases counted each time

// Parses one layer's bytes. Errors: kBadInput "file:line:col: key 'a.b': <what is allowed>".
Result<Layer> parse_layer(const std::string& text, const std::string& tier, const std::string& file);

}  // namespace paddock
