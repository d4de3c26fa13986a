// The frozen Sandbox IR (docs/architecture.md): the one value that explain, preview, plan and the
// helper all read. Every path is absolute and canonical, every list sorted and de-duplicated,
// every default explicit. Reading an IR back rejects unknown or missing fields.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock {

inline constexpr const char* kIrVersion = "0.1.0";

struct SourceLayer {
  std::string tier;    // e.g. "system-global", "repository-fragment" (see tier.h)
  std::string file;    // absolute path, or "builtin:profiles/default.yaml", or "cli:flags"
  std::string sha256;  // "sha256:<hex>" of the layer's raw bytes ("" for cli:flags)
  bool operator==(const SourceLayer&) const = default;
};

struct IrMeta {
  std::string ir_version = kIrVersion;
  // sha256 of a default IR's canonical bytes: it changes when a field is added, removed, renamed
  // or given another default, which is what a reader of an ir.json needs to know (the name is
  // older than this meaning and stays, as every recorded ir.json has it).
  std::string schema_hash;
  std::vector<SourceLayer> source_layers;  // in precedence order, weakest first (not sorted)
  std::string project;                     // canonical project dir
  std::string home;                        // canonical $HOME used for resolution
  std::string agent;                       // agent preset name, "" when none
  std::string agent_dir;                   // canonical $AGENT, "" when none
  std::string os;                          // linux | macos | windows: the OS the IR was resolved for
  // The Linux backend's tier (docs/capabilities.md): "namespaces", or "landlock" (Landlock and
  // seccomp only, where user namespaces are unavailable), chosen by the user with --tier.
  std::string linux_tier = "namespaces";
  bool operator==(const IrMeta&) const = default;
};

// What was at the path when the IR was frozen. kAbsentDir: absent, and its layer names a
// directory (a trailing "/"), so a placeholder kept in its place is a directory.
// kAbsentPointer: absent, and it names a file that points at a directory relative to its own
// (git's `commondir`, which git reads as an error when it is empty): a placeholder kept in its
// place points at its own directory ("."), which is what its absence means. kSymlink: a symlink,
// the name itself (what it points to is an entry of its own).
enum class PathKind { kDir, kFile, kAbsent, kAbsentDir, kAbsentPointer, kSymlink };
inline bool is_absent(PathKind k) {
  return k == PathKind::kAbsent || k == PathKind::kAbsentDir || k == PathKind::kAbsentPointer;
}

struct DenyEntry {
  std::string path;
  PathKind kind = PathKind::kAbsent;
  bool operator==(const DenyEntry&) const = default;
  auto operator<=>(const DenyEntry& o) const { return path <=> o.path; }
};

// A settings file of an agent that names commands its CLI runs on the host (the agent-config
// list), where the session can write it: the helper compares the keys before and after the
// session (engine/session/config_watch.h). The path is the one the CLI opens: its directory
// resolved, the file itself not (what is there, a symlink too, is what is compared).
struct WatchedConfig {
  std::string path;
  std::string format;             // json | jsonc | toml
  std::vector<std::string> keys;  // dot-separated key paths; "*" stands for any one key at that level
  bool operator==(const WatchedConfig&) const = default;
  auto operator<=>(const WatchedConfig& o) const { return path <=> o.path; }
};

// A setting Paddock writes into an agent's own settings in its Paddock-owned state at the start of
// every session (docs/agents.md, "What Paddock sets in the agent's state"): keys set to a value
// (the agent's nested sandbox turned off), or keys copied in from one of the user's own files
// (MCP servers kept outside the agent's directory). The user's files are never written.
struct AgentSetting {
  std::string file;                         // absolute, inside an agent state root
  std::string format;                       // json | toml
  std::map<std::string, std::string> set;   // JSON pointer (RFC 6901) -> the value as JSON text
  std::string import_from;                  // absolute, "" for none: a file of the user's
  std::vector<std::string> import_keys;     // JSON pointers into import_from
  std::string why;                          // one sentence for the user
  bool operator==(const AgentSetting&) const = default;
  auto operator<=>(const AgentSetting& o) const { return file <=> o.file; }
};

// One of the agent's own directories in own-state mode (docs/agents.md): the sandbox sees an
// overlay whose lowest layer is the user's directory (read-only, never written) and whose writes
// are kept in the agent's Paddock-owned state (fs.agent_state_dir) for its next Paddock session.
struct AgentStateRoot {
  std::string path;                     // a write root
  std::vector<std::string> hidden;      // absolute paths below path whose host entries are never shown
  std::vector<AgentSetting> settings;   // sorted by file
  bool operator==(const AgentStateRoot&) const = default;
  auto operator<=>(const AgentStateRoot& o) const { return path <=> o.path; }
};

struct IrFs {
  std::vector<std::string> write_roots;  // read + write (+ exec)
  std::vector<std::string> read_roots;   // read (+ exec), never write
  std::vector<DenyEntry> deny;           // no read, no write; masked even inside a grant
  std::vector<DenyEntry> deny_write;     // readable where a read grant covers it, never writable
  bool tmp_isolated = true;              // private /tmp
  std::string symlink_policy = "resolve_parent_then_prefix";
  std::string mount_semantics = "no_host_mounts";
  std::vector<std::string> host_mounted_paths;  // empty by default; any entry needs host_component
  std::vector<WatchedConfig> watched_configs;   // compared before and after the session
  // The write mode of each write root: a write root listed here is in review mode (its writes
  // are held in the session's overlay until the user applies them: docs/review.md); every other
  // one is written directly. Always a subset of write_roots.
  std::vector<std::string> review_roots;
  // Own agent state (docs/agents.md): where the selected agent's Paddock-owned state is kept
  // ("" without one: $XDG_DATA_HOME/paddock/agent-state/<agent>/<profile>), and its directories,
  // each a write root shown as an overlay over the user's own. Never in review_roots.
  std::string agent_state_dir;
  std::vector<AgentStateRoot> agent_state;
  // filesystem.agent_state: shared: the agent's directories written directly, by the user's
  // explicit choice; each is a write root, and its settings are watched (watched_configs).
  std::vector<std::string> shared_agent_dirs;
  bool operator==(const IrFs&) const = default;
};

enum class NetMode { kOff, kAllowlist, kStrict, kAsk };

struct IrEgress {
  NetMode mode = NetMode::kOff;
  std::vector<std::string> domains;                          // lowercase, no trailing dot, "*." allowed
  std::map<std::string, std::vector<int>> strict_ports;      // domain -> ports (mode strict)
  std::string dns = "broker_resolved_once_pinned";
  std::string tls = "opaque_passthrough_no_interception";
  std::vector<std::string> cidr;                             // separate from domains
  std::vector<int> bind_ports;
  std::vector<int> connect_ports;
  // The sandbox's network namespace is its own, with loopback only: true lets the agent bind
  // and connect there (its dev servers, test suites, login callbacks); false (a layer's
  // network.loopback_bind: false) keeps every TCP bind denied, and connects to bind_ports only.
  bool loopback_bind = true;
  // Host ports forwarded into the sandbox (network.publish, --publish): the helper listens on the
  // host's 127.0.0.1:<port> and relays each connection to 127.0.0.1:<port> in the sandbox's own
  // network namespace. One way only: nothing in the sandbox reaches the host through them.
  std::vector<int> publish;
  // Host loopback ports the sandbox may reach (network.host_ports, --host-port): the reverse of
  // publish. The sandbox's 127.0.0.1:<port> is a listener of the helper's, which relays each
  // connection to the host's 127.0.0.1:<port>; no other host port is reachable.
  std::vector<int> host_ports;
  std::string unix_ipc = "always_allowed";                   // AF_UNIX socketpair/anonymous
  std::vector<std::string> unix_socket_files;                // explicitly allowed socket paths
  std::map<std::string, std::int64_t> quotas;                // domain -> bytes
  bool git_ssh = false;
  int ask_timeout_secs = 30;
  // Absolute path of paddock-connect (the ssh ProxyCommand) when git_ssh; "" otherwise.
  std::string git_ssh_connect;
  // PADDOCK_DEBUG_RESOLVE test seam: name -> loopback addresses the broker answers with instead
  // of the host resolver (and lets through vetting for exactly these names). Empty unless that
  // debug switch is set, which taints the IR.
  std::map<std::string, std::vector<std::string>> debug_resolve;
  bool operator==(const IrEgress&) const = default;
};

struct IrProcess {
  std::string exec_scope = "allow_roots";
  std::string inheritance = "same_policy";
  std::string detach_policy = "contained_or_fail";
  bool privilege_drop = true;
  bool no_new_privs = true;
  bool operator==(const IrProcess&) const = default;
};

// How the broker writes a credential into the header its upstream reads (docs/credentials.md):
// raw "VALUE", bearer "Bearer VALUE", basic "Basic base64(basic_user:VALUE)".
enum class CredentialScheme { kRaw, kBearer, kBasic };

inline constexpr std::int64_t kDefaultCredentialRequestBytes = 64LL << 20;    // 64 MiB
inline constexpr std::int64_t kDefaultCredentialResponseBytes = 4LL << 30;    // 4 GiB

// A credential the session's broker adds to the agent's requests (docs/credentials.md). The agent
// gets a placeholder and a plain-HTTP endpoint on its own loopback through `env`; the broker, on
// the host, accepts only requests that carry the placeholder, writes the real value into `header`
// and sends the request over verified TLS to the one upstream. The IR names the credential and
// its upstream, never its value or its placeholder: ir_hash does not depend on either.
struct BrokeredCredential {
  std::string name;                 // the stored credential's name (paddock credentials add NAME)
  std::string upstream;             // the one host the credential is sent to (an LDH name)
  int port = 443;
  std::string header = "authorization";  // lowercase
  CredentialScheme scheme = CredentialScheme::kBearer;
  std::string basic_user;           // scheme basic: the user name before the credential
  // Agent-facing variables: values in which ${endpoint} (http://127.0.0.1:PORT) and
  // ${placeholder} are replaced when the agent starts.
  std::map<std::string, std::string> env;
  std::optional<std::int64_t> max_requests;  // per session; null = no budget
  std::optional<std::int64_t> max_bytes;     // per session, both directions; null = no budget
  std::int64_t max_request_bytes = kDefaultCredentialRequestBytes;    // one request's body
  std::int64_t max_response_bytes = kDefaultCredentialResponseBytes;  // one response's body
  bool operator==(const BrokeredCredential&) const = default;
  auto operator<=>(const BrokeredCredential& o) const { return name <=> o.name; }
};

struct IrSecrets {
  std::string default_ = "deny";                 // JSON key "default"
  std::vector<std::string> brokered_env;         // always stripped from the agent's environment
  std::string inherited_credentials = "deny";
  std::vector<BrokeredCredential> credentials;   // sorted by name
  // PADDOCK_DEBUG_UPSTREAM test seam: credential upstream host -> the loopback address:port the
  // broker connects to instead (TLS still verified for the host's name). Empty unless set,
  // which taints the IR.
  std::map<std::string, std::string> debug_upstreams;
  // PADDOCK_DEBUG_UPSTREAM_CA test seam: a PEM file of CA certificates the broker trusts for
  // credential upstreams besides the system's. "" unless set, which taints the IR.
  std::string debug_upstream_ca;
  bool operator==(const IrSecrets&) const = default;
};

struct IrEnv {
  std::string mode = "allowlist";                // the schema has no other value
  std::vector<std::string> pass_through;         // normalised patterns: NAME or PREFIX*
  std::vector<std::string> deny;                 // user deny patterns
  std::vector<std::string> hard_deny;            // built-in prefixes/substrings (documented form)
  std::vector<std::string> passed_names;         // names from the launch environment that pass
  std::map<std::string, std::string> set;        // values Paddock sets itself (HOME, PATH, TMPDIR)
  bool operator==(const IrEnv&) const = default;
};

struct IrResources {  // std::nullopt = no limit requested (JSON null)
  std::optional<std::int64_t> cpu_seconds;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> processes;
  std::optional<std::int64_t> open_files;
  std::optional<std::int64_t> file_size_bytes;
  std::optional<std::int64_t> wall_time_secs;
  std::string merge = "strictest_wins";
  bool operator==(const IrResources&) const = default;
};

struct IrLifecycle {
  std::string cleanup = "kill_tree";
  std::string orphan_policy = "kill";
  std::string crash_handling = "fail_closed_report";
  bool operator==(const IrLifecycle&) const = default;
};

struct FrozenIr {
  IrMeta meta;
  IrFs fs;
  IrEgress egress;
  IrProcess process;
  IrSecrets secrets;
  IrEnv env;
  IrResources resources;
  IrLifecycle lifecycle;
  nlohmann::json extensions = nlohmann::json::object();  // "linux"/"macos"/"windows" keys only
  std::vector<std::string> warnings;
  std::vector<std::string> taint;
  bool operator==(const FrozenIr&) const = default;
};

const char* to_string(NetMode mode);
std::optional<NetMode> net_mode_from_string(const std::string& s);
const char* to_string(PathKind kind);
const char* to_string(CredentialScheme scheme);
std::optional<CredentialScheme> credential_scheme_from_string(const std::string& s);

// Sorts and de-duplicates every list so that equal policies give equal bytes. freeze() calls it;
// exposed for tests and for code that builds an IR by hand.
void normalize(FrozenIr& ir);

nlohmann::json to_json(const FrozenIr& ir);
// Strict: unknown, missing or mistyped fields are errors (kBadInput, naming the JSON path).
Result<FrozenIr> ir_from_json(const nlohmann::json& j);

// Canonical bytes: UTF-8 JSON, keys sorted, no whitespace, integers only, no LF.
std::string canonical_bytes(const nlohmann::json& j);
std::string canonical_bytes(const FrozenIr& ir);
// "sha256:" + lowercase hex of SHA-256 over bytes.
std::string sha256_hex(const std::string& bytes);
std::string ir_hash(const FrozenIr& ir);

}  // namespace paddock

template <>
struct paddock::schema::EnumNames<paddock::NetMode> {
  static constexpr NameTable<NetMode, 4> values{
      {{NetMode::kOff, "off"}, {NetMode::kAllowlist, "allowlist"}, {NetMode::kStrict, "strict"}, {NetMode::kAsk, "ask"}}};
};

template <>
struct paddock::schema::EnumNames<paddock::PathKind> {
  static constexpr NameTable<PathKind, 6> values{{{PathKind::kDir, "dir"},
                                                  {PathKind::kFile, "file"},
                                                  {PathKind::kAbsent, "absent"},
                                                  {PathKind::kAbsentDir, "absent_dir"},
                                                  {PathKind::kAbsentPointer, "absent_pointer"},
                                                  {PathKind::kSymlink, "symlink"}}};
};

template <>
struct paddock::schema::EnumNames<paddock::CredentialScheme> {
  static constexpr NameTable<CredentialScheme, 3> values{
      {{CredentialScheme::kRaw, "raw"}, {CredentialScheme::kBearer, "bearer"}, {CredentialScheme::kBasic, "basic"}}};
};
