// What is derived from the policy language's declaration (layer_schema.h) besides the parser:
// limits by key, what a layer adds, the lockdown check and the documentation's key table.
#include "engine/layer_schema.h"

#include <nlohmann/json.hpp>

namespace paddock::layer_schema {
namespace {

using nlohmann::json;

template <class T>
using TypeOf = std::remove_cvref_t<T>;

// f(limit declaration) for the limit `which`.
template <class F>
void with_limit(LimitKey which, F&& f) {
  for_each_key([&](const auto& k) {
    if constexpr (std::is_same_v<TypeOf<decltype(k.type)>, Limit>)
      if (k.type.which == which) f(k);
  });
}

// Where the first entry of a list-like value was written; nothing when the value is empty.
template <class T>
std::optional<Origin> first_origin(const T& v) {
  if constexpr (std::is_same_v<T, std::vector<Item>>) {
    if (!v.empty()) return v.front().at;
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<int, Origin>>>) {
    if (!v.empty()) return v.front().second;
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<Item, std::vector<int>>>> ||
                       std::is_same_v<T, std::vector<std::pair<Item, std::int64_t>>>) {
    if (!v.empty()) return v.front().first.at;
  } else if constexpr (std::is_same_v<T, std::vector<Layer::Credential>>) {
    if (!v.empty()) return v.front().name.at;
  } else {
    static_assert(!sizeof(T), "locks_adding() fits a list, a mapping or a port list");
  }
  return std::nullopt;
}

// The value a key holds in `l`, as `paddock approve` shows it; null when the layer does not say it.
template <class K>
json adds_value(const K& k, const Layer& l) {
  using Type = TypeOf<decltype(k.type)>;
  const auto& v = value_of(k, l);
  if constexpr (std::is_same_v<Type, Strings> || std::is_same_v<Type, Names>) {
    if (v.empty()) return nullptr;
    json out = json::array();
    for (const auto& i : v) out.push_back(i.text);
    return out;
  } else if constexpr (std::is_same_v<Type, Flag>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (std::is_same_v<Type, Mode>) {
    return v ? json(to_string(*v)) : json(nullptr);
  } else if constexpr (std::is_same_v<Type, Ports>) {
    if (v.empty()) return nullptr;
    json out = json::array();
    for (const auto& [port, at] : v) out.push_back(port);
    return out;
  } else if constexpr (std::is_same_v<Type, DomainPorts> || std::is_same_v<Type, DomainSizes>) {
    if (v.empty()) return nullptr;
    json out = json::object();
    for (const auto& [d, x] : v) out[d.text] = x;
    return out;
  } else if constexpr (std::is_same_v<Type, Limit>) {
    const auto& slot = v[static_cast<int>(k.type.which)];
    return slot.value ? json(*slot.value) : json(nullptr);
  } else if constexpr (std::is_same_v<Type, Choice>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (std::is_same_v<Type, Credentials>) {
    if (v.empty()) return nullptr;
    json out = json::object();
    for (const auto& c : v) out[c.name.text] = c.upstream.text;
    return out;
  } else {
    return nullptr;  // text, conditions, the agent preset's own keys: not what a layer adds
  }
}

// The first thing key k of `l` says that the lock forbids, given the system layer `sys`.
template <class K>
std::optional<Origin> violation(const K& k, const Layer& l, const Layer& sys) {
  using Type = TypeOf<decltype(k.type)>;
  const auto& v = value_of(k, l);
  const auto& s = value_of(k, sys);
  switch (k.info.lock.rule) {
    case LockRule::kNone: return std::nullopt;
    case LockRule::kAdds:
      if constexpr (!std::is_same_v<Type, Flag> && !std::is_same_v<Type, Mode> && !std::is_same_v<Type, Limit> &&
                    !std::is_same_v<Type, Text> && !std::is_same_v<Type, Condition> &&
                    !std::is_same_v<Type, RequiredPath> && !std::is_same_v<Type, EnvValues> &&
                    !std::is_same_v<Type, Choice> && !std::is_same_v<Type, AgentSettings>)
        return first_origin(v);
      break;
    case LockRule::kForbidsFalse:
    case LockRule::kForbidsTrue:
      if constexpr (std::is_same_v<Type, Flag>) {
        const bool forbidden = k.info.lock.rule == LockRule::kForbidsTrue;
        if (v && *v == forbidden) return *origin_of(k, l);
        return std::nullopt;
      }
      break;
    case LockRule::kNoRaise:
      if constexpr (std::is_same_v<Type, Limit>) {
        // Setting a limit where the system has none only tightens; raising the system's does not.
        const auto& mine = v[static_cast<int>(k.type.which)];
        const auto& system = s[static_cast<int>(k.type.which)];
        if (mine.value && system.value && *mine.value > *system.value) return mine.at;
        return std::nullopt;
      } else if constexpr (std::is_same_v<Type, DomainSizes>) {
        for (const auto& [d, q] : v)
          for (const auto& [sd, sq] : s)
            if (sd.text == d.text && q > sq) return d.at;
        return std::nullopt;
      }
      break;
    case LockRule::kNetMode:
      if constexpr (std::is_same_v<Type, Mode>) {
        if (v && mode_breaks_lockdown(*v, sys)) return *origin_of(k, l);
        return std::nullopt;
      }
      break;
    case LockRule::kForbidsWord:
      if constexpr (std::is_same_v<Type, Choice>) {
        if (v && *v == k.info.lock.word) return *origin_of(k, l);
        return std::nullopt;
      }
      break;
  }
  return std::nullopt;  // not reached: declarations_fit() holds every rule to its type
}

const char* merge_words(Merge m) {
  switch (m) {
    case Merge::kUnion: return "union";
    case Merge::kStrictest: return "strictest wins";
    case Merge::kOnIfAnyOn: return "on if any tier says `true`";
    case Merge::kOnUnlessOff: return "on unless a tier says `false` and none `true`";
    case Merge::kOffIfAnyOff: return "off if any tier says `false`";
    case Merge::kNetMode: return "one source (see Network mode)";
    case Merge::kLatestTrusted: return "the last trusted tier's";
    case Merge::kSystemOnly: return "system-global only";
    case Merge::kCondition: return "condition";
    case Merge::kDescribes: return "none";
    case Merge::kAgentPreset: return "the agent preset's";
    case Merge::kNarrowestWord: return "the narrower as soon as a tier says it";
  }
  return "";
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "`" : ", `") + x + "`";
  return s;
}

template <class Type>
std::string type_words(const Type& t) {
  if constexpr (std::is_same_v<Type, Text>) return "string";
  else if constexpr (std::is_same_v<Type, Condition>) return t.allowed ? "one of " + joined(t.allowed()) : "string";
  else if constexpr (std::is_same_v<Type, Flag>) return "`true` or `false`";
  else if constexpr (std::is_same_v<Type, Mode>) return "`off`, `allowlist`, `strict` or `ask`";
  else if constexpr (std::is_same_v<Type, Strings>) return t.literal ? "list of paths, no globs" : "list of strings";
  else if constexpr (std::is_same_v<Type, Names>) return "list of " + joined(t.allowed());
  else if constexpr (std::is_same_v<Type, Ports>) return "list of ports 1..65535";
  else if constexpr (std::is_same_v<Type, DomainPorts>) return "mapping domain: [port, ...]";
  else if constexpr (std::is_same_v<Type, DomainSizes>) return "mapping domain: size";
  else if constexpr (std::is_same_v<Type, Limit>)
    return t.unit == Unit::kDuration ? "duration" : t.unit == Unit::kSize ? "size" : "count";
  else if constexpr (std::is_same_v<Type, RequiredPath>) return "path, required";
  else if constexpr (std::is_same_v<Type, Choice>) return "one of " + joined(t.allowed());
  else if constexpr (std::is_same_v<Type, AgentSettings>)
    return "list of {`file`, `format`, `set` or `import_from` + `import_keys`, `why`}";
  else if constexpr (std::is_same_v<Type, Credentials>)
    return "mapping NAME: {`upstream`, `header`, `scheme`, `basic_user`, `env`, `max_requests`, `max_bytes`, "
           "`max_request`, `max_response`}";
  else return "mapping NAME: value";
}

}  // namespace

const std::vector<std::string>& os_names() {
  static const std::vector<std::string> names = {"linux", "macos", "windows"};
  return names;
}

const std::vector<std::string>& agent_state_words() {
  static const std::vector<std::string> words = {"own", "shared"};
  return words;
}

const std::vector<std::string>& linux_tier_words() {
  static const std::vector<std::string> words = {"namespaces", "landlock"};
  return words;
}

std::vector<std::string> keys_of(std::string_view section) {
  std::vector<std::string> out;
  for_each_key([&](const auto& k) {
    if (k.info.section == section) out.emplace_back(k.info.name);
  });
  return out;
}

const char* limit_yaml_key(LimitKey which) {
  const char* name = "";
  with_limit(which, [&](const auto& k) { name = k.info.name.data(); });
  return name;
}

std::string_view limit_cli_key(LimitKey which) {
  std::string_view name;
  with_limit(which, [&](const auto& k) { name = k.type.cli_key; });
  return name;
}

Unit limit_unit(LimitKey which) {
  Unit u = Unit::kSize;
  with_limit(which, [&](const auto& k) { u = k.type.unit; });
  return u;
}

std::optional<std::int64_t> IrResources::*limit_ir_field(LimitKey which) {
  std::optional<std::int64_t> IrResources::*field = nullptr;
  with_limit(which, [&](const auto& k) { field = k.type.ir; });
  return field;
}

std::string limit_ir_path(LimitKey which) {
  std::string path;
  with_limit(which, [&](const auto& k) { path = std::string(k.info.target.section) + "." + std::string(k.info.target.key); });
  return path;
}

json layer_adds(const Layer& l) {
  json a = json::object();
  for_each_key([&](const auto& k) {
    if (!k.info.adds()) return;
    if (json v = adds_value(k, l); !v.is_null()) a[k.info.path()] = std::move(v);
  });
  return a;
}

bool mode_breaks_lockdown(NetMode mode, const Layer& system) {
  return mode != NetMode::kOff && (!system.net_mode || *system.net_mode != mode);
}

std::optional<LockViolation> lockdown_violation(const Layer& l, const Layer& system) {
  std::optional<LockViolation> found;
  for_each_key([&](const auto& k) {
    if (found) return;
    if (auto at = violation(k, l, system)) found = LockViolation{*at, k.info.lock.what};
  });
  return found;
}

std::string render_policy_keys_markdown() {
  std::string md =
      "| key | value | tiers combine it | `security.immutable` forbids a later tier to | IR field | what it says |\n"
      "|---|---|---|---|---|---|\n"
      "| `version` | `" +
      std::string(kVersion) + "`, required | | | | the schema version |\n";
  for (const auto& section : kSections) {
    for_each_key([&](const auto& k) {
      if (k.info.section != section.name) return;
      const std::string target =
          k.info.target.empty() ? "" : "`" + std::string(k.info.target.section) + "." + std::string(k.info.target.key) + "`";
      const std::string lock = k.info.lock.rule == LockRule::kNone ? "" : std::string(k.info.lock.what);
      md += "| `" + k.info.path() + "` | " + type_words(k.type) + " | " + merge_words(k.info.merge) + " | " + lock +
            " | " + target + " | " + std::string(k.info.doc) + " |\n";
    });
  }
  return md;
}

}  // namespace paddock::layer_schema
