// The policy language, declared once: every key a layer file may hold (docs/policy-layers.md),
// one line each, naming its section, its YAML type, how the tiers merge it, what the system's
// security.immutable forbids, the IR field it feeds, and its line in the documentation. Derived
// from these lines: the strict parser (layer_parser.cpp: the allowed keys of every section, the
// types, closed sets and file:line:column errors), the lockdown check and what each layer adds
// (layer_schema.cpp, used by ir_builder.cpp), `--limits` keys (limits.cpp), the limits' IR fields
// and the key table of docs/policy-layers.md. tests/engine/layer_schema_test checks that every
// Layer member is declared here and that the documentation is current. docs/architecture.md,
// "How to add a policy key", is the recipe.
//
// The IR has its own declaration (engine/ir_schema.h); a key names its IR field through it, so a
// field that is not declared there does not compile here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/builtin_lists.h"
#include "engine/ir_schema.h"
#include "engine/layer.h"

namespace paddock::layer_schema {

// The one schema version there is: `version: 1`, required.
inline constexpr std::string_view kVersion = "1";

// The sections of a layer file, in the order the parser's messages and the documentation list
// them.
struct Section {
  std::string_view name;
  std::string_view doc;
  bool agent_preset_only = false;  // allowed only in the agent-preset tier, and required there
};
inline constexpr Section kSections[] = {
    {"metadata", "describes the layer; no effect on the policy"},
    {"when", "conditions: the layer applies only if every one holds (bounded, no process runs)"},
    {"security", "the administrator's switches, honoured from the system-global layer only"},
    {"filesystem", "what the agent may read and write"},
    {"network", "where the agent may connect"},
    {"unix_sockets", "socket files the agent may connect to"},
    {"environment", "which variables reach the agent"},
    {"secrets", "variables never passed, whatever a tier says"},
    {"credentials", "brokered credentials: the key stays on the host, the agent gets a placeholder"},
    {"limits", "resource limits"},
    {"sandbox", "how the sandbox is built where the OS offers more than one way"},
    {"agent", "what the agent preset says about its agent (resources/agents only)", true},
};

// How the tiers combine a key (the words are in docs/policy-layers.md, "Merging").
enum class Merge {
  kUnion,           // every tier's entries together
  kStrictest,       // the lowest value any tier gives
  kOnIfAnyOn,       // true as soon as one tier says true (it only narrows)
  kOnUnlessOff,     // true unless a tier says false and none says true
  kOffIfAnyOff,     // false as soon as one tier says false (it only narrows)
  kNetMode,         // one source (--net, agent preset, user, system); other tiers may only force off
  kLatestTrusted,   // the last of the system, user and --policy tiers that says it
  kSystemOnly,      // honoured from the system-global layer; a warning elsewhere
  kCondition,       // decides whether the layer applies; merges nothing
  kDescribes,       // describes the layer; merges nothing
  kAgentPreset,     // the selected agent preset's, read from resources/agents
  kNarrowestWord,   // the narrower word wins as soon as one tier says it (agent_state: own)
};

// What security.immutable in the system-global layer forbids a later tier (other than the
// shipped ones) to say with this key; a key without a rule only narrows, or is not policy.
enum class LockRule {
  kNone,
  kAdds,          // any entry
  kForbidsFalse,  // the value false
  kForbidsTrue,   // the value true
  kNoRaise,       // a value above the system layer's (a limit, a domain's quota)
  kNetMode,       // a mode other than off and other than the system layer's own
  kForbidsWord,   // one word of a closed set (agent_state: shared)
};
struct Lock {
  LockRule rule = LockRule::kNone;
  std::string_view what{};  // completes "tier X may not ...": "add write paths"
  std::string_view word{};  // kForbidsWord: the word forbidden
};
inline constexpr Lock unlocked{};
constexpr Lock locks_adding(std::string_view what) { return {LockRule::kAdds, what}; }
constexpr Lock locks_false(std::string_view what) { return {LockRule::kForbidsFalse, what}; }
constexpr Lock locks_true(std::string_view what) { return {LockRule::kForbidsTrue, what}; }
constexpr Lock locks_raising(std::string_view what) { return {LockRule::kNoRaise, what}; }
constexpr Lock locks_mode(std::string_view what) { return {LockRule::kNetMode, what}; }
constexpr Lock locks_word(std::string_view word, std::string_view what) { return {LockRule::kForbidsWord, what, word}; }

// The IR field a key feeds ("fs", "write_roots"), named through the IR's own schema.
struct Target {
  std::string_view section{}, key{};
  bool empty() const { return key.empty(); }
};
template <auto Member>
constexpr Target target_of() {
  constexpr auto parts = ir_schema::field_path_parts<Member>();
  static_assert(!parts.second.empty(), "a policy key feeds an IR field that engine/ir_schema.h does not declare");
  return {parts.first, parts.second};
}
template <auto Member>
inline constexpr Target feeds = target_of<Member>();
inline constexpr Target feeds_nothing{};

// The YAML types (how a value is written, parsed and stored). Messages name what is expected.
struct Text {};                                   // a string                      -> std::string
struct Condition {                                // a non-empty string            -> optional<Item>
  const std::vector<std::string>& (*allowed)() = nullptr;  // a closed set, or any string
};
struct Flag {};                                   // true or false                 -> optional<bool>
struct Mode {};                                   // off|allowlist|strict|ask      -> optional<NetMode>
struct Strings {                                  // a list of non-empty strings   -> vector<Item>
  bool literal = false;                           //   no globs (each names one directory)
};
struct Names {                                    // a list of names of a closed set -> vector<Item>
  const std::vector<std::string>& (*allowed)() = nullptr;
};
struct Ports {};                                  // a list of ports 1..65535      -> vector<pair<int, Origin>>
struct DomainPorts {};                            // domain: [port, ...]           -> vector<pair<Item, vector<int>>>
struct DomainSizes {};                            // domain: size                  -> vector<pair<Item, int64>>
enum class Unit { kDuration, kSize, kCount };
struct Limit {                                    // a duration, size or count     -> Layer::limits[which]
  LimitKey which;
  Unit unit;
  std::string_view cli_key;                       // its name in `--limits cpu=...`
  std::optional<std::int64_t> IrResources::*ir;   // the IR field
};
struct RequiredPath {                             // a path, required in its section -> Item
  std::string_view missing;                       //   what the error says is missing
};
struct EnvValues {};                              // NAME: value                   -> vector<pair<string, Item>>
struct Choice {                                   // one word of a closed set      -> optional<string>
  const std::vector<std::string>& (*allowed)() = nullptr;
};
struct AgentSettings {};                          // a list of {file, format, set | import_from, import_keys, why}
                                                  //                               -> vector<Layer::Agent::Setting>
struct Credentials {};                            // the whole section: NAME: {upstream, header, scheme, basic_user,
                                                  //   env, max_requests, max_bytes, max_request, max_response}
                                                  //                               -> vector<Layer::Credential>

// What every walker needs to know about a key, whatever its type.
struct KeyInfo {
  std::string_view section, name;
  Merge merge;
  Lock lock;
  Target target;
  std::string_view doc;
  // A key without a name is its whole section (credentials: a mapping of names).
  std::string path() const { return name.empty() ? std::string(section) : std::string(section) + "." + std::string(name); }
  // The key contributes to the policy (what `paddock approve` shows a layer adds).
  bool adds() const {
    return merge != Merge::kSystemOnly && merge != Merge::kCondition && merge != Merge::kDescribes &&
           merge != Merge::kAgentPreset;
  }
};

// One declaration: the key, its type, and where a Layer keeps its value (a member of Layer, or of
// the section struct Layer::When or Layer::Agent), with the origin of a scalar when the value
// itself does not carry one.
template <class C, class T, class Type>
struct Key {
  using Part = C;
  KeyInfo info;
  Type type;
  T C::*member;
  Origin C::*at = nullptr;
};

template <class C, class T, class Type>
constexpr Key<C, T, Type> key(std::string_view section, std::string_view name, Type type, T C::*member, Merge merge,
                              Lock lock, Target target, std::string_view doc, Origin C::*at = nullptr) {
  return {{section, name, merge, lock, target, doc}, type, member, at};
}

template <class C>
constexpr auto flag(std::string_view section, std::string_view name, std::optional<bool> C::*member, Origin C::*at,
                    Merge merge, Lock lock, Target target, std::string_view doc) {
  return key(section, name, Flag{}, member, merge, lock, target, doc, at);
}

template <auto IrField>
constexpr auto limit(std::string_view name, LimitKey which, Unit unit, std::string_view cli_key, std::string_view doc) {
  return key("limits", name, Limit{which, unit, cli_key, IrField}, &Layer::limits, Merge::kStrictest,
             locks_raising("raise a limit above the system's"), feeds<IrField>, doc);
}

const std::vector<std::string>& os_names();
const std::vector<std::string>& agent_state_words();
// sandbox.linux_tier and --tier: "namespaces" (the default) or "landlock" (docs/capabilities.md).
const std::vector<std::string>& linux_tier_words();

// The declarations. Within a section, the order is the order of the parser's "allowed here" list
// and of the documentation.
inline constexpr auto kKeys = std::make_tuple(
    key("metadata", "name", Text{}, &Layer::name, Merge::kDescribes, unlocked, feeds_nothing, "the layer's name"),
    key("metadata", "description", Text{}, &Layer::description, Merge::kDescribes, unlocked, feeds_nothing,
        "what the layer is for"),

    key("when", "branch", Condition{}, &Layer::When::branch, Merge::kCondition, unlocked, feeds_nothing,
        "the project's current git branch is this one (read from .git/HEAD, no git process)"),
    key("when", "file_exists", Condition{}, &Layer::When::file_exists, Merge::kCondition, unlocked, feeds_nothing,
        "this file exists in the project (relative, no `..`, no symlink components)"),
    key("when", "project_contains", Condition{}, &Layer::When::project_contains, Merge::kCondition, unlocked,
        feeds_nothing, "a file matching this name pattern is in the project (at most 4,096 entries / 8 MiB of names scanned)"),
    key("when", "os", Condition{&os_names}, &Layer::When::os, Merge::kCondition, unlocked, feeds_nothing,
        "the OS the policy is resolved for"),
    key("when", "agent_is", Condition{&agent_preset_names}, &Layer::When::agent_is, Merge::kCondition, unlocked,
        feeds_nothing, "the selected agent preset"),

    flag("security", "immutable", &Layer::immutable, &Layer::immutable_at, Merge::kSystemOnly,
         locks_false("lift the lockdown"), feeds_nothing,
         "locks the never-overridable set against every later tier but the shipped ones (see Lockdown)"),
    flag("security", "require_signed", &Layer::require_signed, &Layer::require_signed_at, Merge::kSystemOnly, unlocked,
         feeds_nothing, "every later file layer must carry a signature that verifies (see Signing)"),

    key("filesystem", "allow_write", Strings{}, &Layer::allow_write, Merge::kUnion, locks_adding("add write paths"),
        feeds<&IrFs::write_roots>, "paths or globs the agent may read, write and execute"),
    key("filesystem", "allow_read", Strings{}, &Layer::allow_read, Merge::kUnion, locks_adding("add read paths"),
        feeds<&IrFs::read_roots>, "paths or globs the agent may read and execute, never write"),
    key("filesystem", "deny", Strings{}, &Layer::deny, Merge::kUnion, unlocked, feeds<&IrFs::deny>,
        "paths or globs masked: no read, no write, whatever grant covers them"),
    key("filesystem", "deny_write", Strings{}, &Layer::deny_write, Merge::kUnion, unlocked, feeds<&IrFs::deny_write>,
        "paths or globs readable where a grant covers them, never writable"),
    key("filesystem", "deny_preset", Names{&deny_list_names}, &Layer::deny_preset, Merge::kUnion, unlocked,
        feeds<&IrFs::deny>, "built-in lists masked like `deny` ([credentials.md](credentials.md))"),
    key("filesystem", "deny_write_preset", Names{&deny_write_list_names}, &Layer::deny_write_preset, Merge::kUnion,
        unlocked, feeds<&IrFs::deny_write>, "built-in lists kept read-only like `deny_write`"),
    key("filesystem", "unprotect", Strings{}, &Layer::unprotect, Merge::kUnion,
        locks_adding("lift the write protection of files your tools execute"), feeds<&IrFs::deny_write>,
        "literal paths below which the `tool-executed` list's protection is lifted (system, user and --policy "
        "tiers only)"),
    flag("filesystem", "tmpfs_tmp", &Layer::tmpfs_tmp, &Layer::tmpfs_at, Merge::kOnUnlessOff,
         locks_false("turn off the private /tmp"), feeds<&IrFs::tmp_isolated>, "a private /tmp"),
    flag("filesystem", "protect_agent_config", &Layer::protect_agent_config, &Layer::protect_agent_config_at,
         Merge::kOnIfAnyOn, unlocked, feeds<&IrFs::deny_write>,
         "the agents' settings that name host commands stay read-only (the `agent-config` list)"),
    flag("filesystem", "review", &Layer::review, &Layer::review_at, Merge::kOnIfAnyOn, unlocked,
         feeds<&IrFs::review_roots>,
         "the agent's writes are held for review, reaching the host only through `paddock apply` "
         "([review.md](review.md))"),
    key("filesystem", "agent_state", Choice{&agent_state_words}, &Layer::agent_state, Merge::kNarrowestWord,
        locks_word("shared", "let the agent write your own agent directories (agent_state: shared)"),
        feeds<&IrFs::agent_state>,
        "`own` (default): the agent's directories are overlays kept in Paddock's agent state; `shared`: it "
        "writes yours, watched (system, user and --policy tiers only) ([agents.md](agents.md))",
        &Layer::agent_state_at),

    key("network", "mode", Mode{}, &Layer::net_mode, Merge::kNetMode, locks_mode("change the network mode"),
        feeds<&IrEgress::mode>, "`off` only, outside the system and user tiers (see Network mode)", &Layer::net_mode_at),
    key("network", "allow_domains", Strings{}, &Layer::allow_domains, Merge::kUnion, locks_adding("add domains"),
        feeds<&IrEgress::domains>, "domain names, `*.` allowed; no IP literals"),
    key("network", "strict_ports", DomainPorts{}, &Layer::strict_ports, Merge::kUnion,
        locks_adding("add domains or ports"), feeds<&IrEgress::strict_ports>,
        "domains and the only ports they may be reached on (mode strict)"),
    key("network", "allow_cidr", Strings{}, &Layer::allow_cidr, Merge::kUnion, locks_adding("add CIDR ranges"),
        feeds<&IrEgress::cidr>, "address ranges, kept apart from domains; refused where they cannot be enforced"),
    key("network", "quotas", DomainSizes{}, &Layer::quotas, Merge::kStrictest,
        locks_raising("raise a quota above the system's"), feeds<&IrEgress::quotas>, "bytes each domain may transfer"),
    key("network", "presets", Names{&network_preset_names}, &Layer::net_presets, Merge::kUnion,
        locks_adding("add domains"), feeds<&IrEgress::domains>, "package registries' domains by name"),
    flag("network", "loopback_bind", &Layer::loopback_bind, &Layer::loopback_bind_at, Merge::kOffIfAnyOff, unlocked,
         feeds<&IrEgress::loopback_bind>, "`false` denies binding TCP ports on the sandbox's own loopback"),
    key("network", "publish", Ports{}, &Layer::publish, Merge::kUnion, locks_adding("publish host ports"),
        feeds<&IrEgress::publish>, "host 127.0.0.1 ports forwarded to the sandbox's ([network.md](network.md))"),
    key("network", "host_ports", Ports{}, &Layer::host_ports, Merge::kUnion, locks_adding("reach host ports"),
        feeds<&IrEgress::host_ports>, "host 127.0.0.1 ports the sandbox may reach ([network.md](network.md))"),

    key("unix_sockets", "allow", Strings{}, &Layer::unix_sockets_allow, Merge::kUnion,
        locks_adding("allow unix sockets"), feeds<&IrEgress::unix_socket_files>,
        "socket files left connectable where a grant shows them"),

    key("environment", "pass_through", Strings{}, &Layer::pass_through, Merge::kUnion,
        locks_adding("add pass-through environment"), feeds<&IrEnv::pass_through>, "`NAME` or `PREFIX*` patterns"),
    key("environment", "deny", Strings{}, &Layer::env_deny, Merge::kUnion, unlocked, feeds<&IrEnv::deny>,
        "patterns that never pass, beating `pass_through`"),
    flag("environment", "agent_credentials", &Layer::agent_credentials, &Layer::agent_credentials_at,
         Merge::kLatestTrusted, locks_true("pass agent credentials"), feeds<&IrEnv::passed_names>,
         "opt in: the agent preset's own key variables and stored login pass (system, user and --policy tiers only)"),

    key("secrets", "brokered_env", Strings{}, &Layer::brokered_env, Merge::kUnion, unlocked,
        feeds<&IrSecrets::brokered_env>, "variables always stripped from the agent's environment"),

    key("credentials", "", Credentials{}, &Layer::credentials, Merge::kUnion,
        locks_adding("declare brokered credentials"), feeds<&IrSecrets::credentials>,
        "each stored credential the agent may use through the broker, and the one host it goes to "
        "(system, user, agent-preset and --policy tiers only; [credentials.md](credentials.md))"),

    limit<&IrResources::cpu_seconds>("cpu_seconds", LimitKey::kCpu, Unit::kDuration, "cpu", "CPU time"),
    limit<&IrResources::memory_bytes>("memory", LimitKey::kMemory, Unit::kSize, "mem", "memory of the whole tree"),
    limit<&IrResources::processes>("processes", LimitKey::kProcesses, Unit::kCount, "procs", "processes and threads"),
    limit<&IrResources::open_files>("open_files", LimitKey::kOpenFiles, Unit::kCount, "nofile", "open files per process"),
    limit<&IrResources::file_size_bytes>("file_size", LimitKey::kFileSize, Unit::kSize, "fsize",
                                         "largest file a process may write"),
    limit<&IrResources::wall_time_secs>("wall_time", LimitKey::kWallTime, Unit::kDuration, "wall",
                                        "wall-clock time; the session ends with 124"),

    key("sandbox", "linux_tier", Choice{&linux_tier_words}, &Layer::linux_tier, Merge::kLatestTrusted,
        locks_word("landlock", "choose the landlock tier (sandbox.linux_tier: landlock)"), feeds<&IrMeta::linux_tier>,
        "`namespaces` (default) or `landlock`: Landlock and seccomp only, for machines without user namespaces, "
        "with the losses [capabilities.md](capabilities.md) lists (system, user and --policy tiers only; "
        "`--tier` overrides it)",
        &Layer::linux_tier_at),

    key("agent", "data_dir", RequiredPath{"the agent's data directory, e.g. ~/.claude"}, &Layer::Agent::data_dir, Merge::kAgentPreset, unlocked,
        feeds<&IrMeta::agent_dir>, "the agent's data directory, `$AGENT` in paths (required)"),
    key("agent", "command", Text{}, &Layer::Agent::command, Merge::kAgentPreset, unlocked, feeds_nothing,
        "the program its agent CLI is started as (the app's agent list looks for it on PATH)"),
    key("agent", "default_net", Mode{}, &Layer::Agent::default_net, Merge::kAgentPreset, unlocked,
        feeds<&IrEgress::mode>, "the network mode when `--net` does not say", &Layer::Agent::default_net_at),
    key("agent", "credential_env", Strings{}, &Layer::Agent::credential_env, Merge::kAgentPreset, unlocked,
        feeds<&IrEnv::passed_names>, "the agent's own key variables (passed under `environment.agent_credentials`)"),
    key("agent", "state_dirs", Strings{.literal = true}, &Layer::Agent::state_dirs, Merge::kAgentPreset, unlocked,
        feeds<&IrFs::write_roots>, "directories the agent keeps its state in: created by `run`, granted read+write"),
    key("agent", "env", EnvValues{}, &Layer::Agent::env, Merge::kAgentPreset, unlocked, feeds<&IrEnv::set>,
        "variables set for the agent (values may use `$AGENT`, `$HOME`, `~/`)"),
    key("agent", "hidden_state", Strings{}, &Layer::Agent::hidden_state, Merge::kAgentPreset, unlocked,
        feeds<&IrFs::agent_state>, "paths in the agent's directories whose host copy its own state never shows"),
    key("agent", "settings", AgentSettings{}, &Layer::Agent::settings, Merge::kAgentPreset, unlocked,
        feeds<&IrFs::agent_state>,
        "keys Paddock sets (JSON pointers) or copies in from one of the user's files in the agent's own settings"));

// Layer members that hold no key's value: tier, file, sha256 (where the layer came from), the
// section structs when and agent, and agent.present (the section was there).
inline constexpr std::size_t kLayerBookkeeping = 5;
inline constexpr std::size_t kAgentBookkeeping = 1;

// ---- Walking the declarations ----------------------------------------------------------------

// A lock rule fits its key's type: adding is about lists and mappings, true/false about flags,
// raising about limits and quotas.
template <class K>
constexpr bool lock_fits(const K& k) {
  using Type = std::remove_cvref_t<decltype(k.type)>;
  switch (k.info.lock.rule) {
    case LockRule::kNone: return true;
    case LockRule::kAdds:
      return std::is_same_v<Type, Strings> || std::is_same_v<Type, Names> || std::is_same_v<Type, Ports> ||
             std::is_same_v<Type, DomainPorts> || std::is_same_v<Type, DomainSizes> ||
             std::is_same_v<Type, Credentials>;
    case LockRule::kForbidsFalse:
    case LockRule::kForbidsTrue: return std::is_same_v<Type, Flag>;
    case LockRule::kNoRaise: return std::is_same_v<Type, Limit> || std::is_same_v<Type, DomainSizes>;
    case LockRule::kNetMode: return std::is_same_v<Type, Mode>;
    case LockRule::kForbidsWord: return std::is_same_v<Type, Choice>;
  }
  return false;
}

constexpr bool in_a_section(std::string_view section) {
  for (const auto& s : kSections)
    if (s.name == section) return true;
  return false;
}

constexpr bool declarations_fit() {
  return std::apply(
      [](const auto&... k) {
        const KeyInfo infos[] = {k.info...};
        for (std::size_t i = 0; i < std::size(infos); ++i) {
          if (!in_a_section(infos[i].section)) return false;
          for (std::size_t j = i + 1; j < std::size(infos); ++j)
            if (infos[i].section == infos[j].section && infos[i].name == infos[j].name) return false;
        }
        return (lock_fits(k) && ...);
      },
      kKeys);
}
static_assert(declarations_fit(),
              "a policy key is declared twice, names a section kSections does not list, or has a lock rule that "
              "does not fit its type (adding: a list or mapping; true/false: a flag; raising: a limit or quotas)");

// f(key) for every declaration, in order.
template <class F>
constexpr void for_each_key(F&& f) {
  std::apply([&](const auto&... k) { (f(k), ...); }, kKeys);
}

// The Layer part a declaration's member belongs to.
template <class C, class L>
constexpr auto& part(L& l) {
  if constexpr (std::is_same_v<C, Layer>) return l;
  else if constexpr (std::is_same_v<C, Layer::When>) return l.when;
  else {
    static_assert(std::is_same_v<C, Layer::Agent>, "a key's member belongs to Layer, Layer::When or Layer::Agent");
    return l.agent;
  }
}

// The value a declaration names in l (l may be const).
template <class C, class T, class Type, class L>
constexpr auto& value_of(const Key<C, T, Type>& k, L& l) {
  return part<C>(l).*(k.member);
}

// Where a scalar's origin is kept, when the value does not carry its own (nullptr otherwise).
template <class C, class T, class Type, class L>
constexpr auto* origin_of(const Key<C, T, Type>& k, L& l) {
  return k.at ? &(part<C>(l).*(k.at)) : nullptr;
}

// The keys of one section, in declaration order.
std::vector<std::string> keys_of(std::string_view section);

// ---- What is derived (layer_schema.cpp) --------------------------------------------------------

// The YAML key of a limit ("cpu_seconds") and its `--limits` name ("cpu").
const char* limit_yaml_key(LimitKey k);
std::string_view limit_cli_key(LimitKey k);
Unit limit_unit(LimitKey k);
// The IR field of a limit and its provenance key ("resources.memory_bytes").
std::optional<std::int64_t> IrResources::*limit_ir_field(LimitKey k);
std::string limit_ir_path(LimitKey k);

// What a layer adds, for `paddock approve` and the app's tier stack: {"section.key": value} for
// every key it sets that contributes to the policy.
nlohmann::json layer_adds(const Layer& l);

// The first thing `l` says that the system layer's security.immutable forbids, by the keys' lock
// rules in declaration order: where it was written and what it would do ("add write paths").
struct LockViolation {
  Origin at;
  std::string_view what;
};
std::optional<LockViolation> lockdown_violation(const Layer& l, const Layer& system);
// The one rule for a network mode given outside a layer (--net), against the system layer's.
bool mode_breaks_lockdown(NetMode mode, const Layer& system);

// The key table of docs/policy-layers.md (markdown), between its generated-section markers.
std::string render_policy_keys_markdown();

}  // namespace paddock::layer_schema
