// YAML -> Layer, driven by the policy language's declaration (engine/layer_schema.h): the allowed
// keys of every section, each key's type and closed set come from there. Strict: unknown keys,
// duplicate keys, wrong types and bad enum values are errors naming file:line:column, the key and
// what is allowed. A section's keys are read in the order the file gives them, so of several
// mistakes the first in the file is the one reported. yaml-cpp marks are 0-based.
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "engine/json_text.h"
#include "engine/layer.h"
#include "engine/layer_schema.h"
#include "engine/limits.h"

namespace paddock {
namespace {

using namespace layer_schema;

#define PADDOCK_TRY_STATUS(expr)            \
  do {                                      \
    Status _st = (expr);                    \
    if (!_st.ok()) return _st;              \
  } while (0)

#define PADDOCK_TRY_ASSIGN(lhs, expr)      \
  do {                                      \
    auto _r = (expr);                       \
    if (!_r.ok()) return _r.error();        \
    lhs = std::move(*_r);                   \
  } while (0)
#define PADDOCK_TRY(expr)                   \
  do {                                      \
    auto _s = (expr);                       \
    if (!_s.ok()) return _s.error();        \
  } while (0)

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

class Parser {
 public:
  Parser(std::string tier, std::string file) : tier_(std::move(tier)), file_(std::move(file)) {}

  Result<Layer> parse(const YAML::Node& root) const;

 private:
  Origin origin(const YAML::Node& n, const std::string& key) const {
    const auto m = n.Mark();
    return Origin{tier_, file_, key, m.line >= 0 ? m.line + 1 : 1, m.column >= 0 ? m.column + 1 : 1};
  }
  Error fail(const YAML::Node& n, const std::string& key, const std::string& what) const {
    return error_at(ErrorCode::kBadInput, origin(n, key).pos(), what);
  }

  // Every scalar, keys included, is UTF-8 text without NUL: a layer is a text file, and a name
  // with a NUL would mean one path to the checks here and a shorter one to the kernel.
  Status text(const YAML::Node& n, const std::string& key) const {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (!is_utf8(s)) return fail(n, key, "is not valid UTF-8 (layer files are UTF-8 text; write the name in UTF-8)");
      if (s.find('\0') != std::string::npos) return fail(n, key, "contains a NUL character");
    } else if (n.IsSequence()) {
      for (std::size_t i = 0; i < n.size(); ++i) PADDOCK_TRY_STATUS(text(n[i], key + "[" + std::to_string(i) + "]"));
    } else if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
        const std::string full = key.empty() ? k : key + "." + k;
        PADDOCK_TRY_STATUS(text(it->first, full));
        PADDOCK_TRY_STATUS(text(it->second, full));
      }
    }
    return {};
  }

  // Checks that n is a map whose keys are all in `allowed` and unique.
  Status map(const YAML::Node& n, const std::string& key, const std::vector<std::string>& allowed) const {
    if (!n.IsMap()) return fail(n, key, "expected a mapping with keys " + join(allowed));
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
      const std::string full = key.empty() ? k : key + "." + k;
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        return fail(it->first, full, "unknown key (allowed here: " + join(allowed) + ")");
      if (!seen.insert(k).second) return fail(it->first, full, "duplicate key");
    }
    return {};
  }

  Result<std::string> scalar(const YAML::Node& n, const std::string& key, const std::string& what) const {
    if (!n.IsScalar()) return fail(n, key, "expected " + what);
    return n.Scalar();
  }
  Result<bool> boolean(const YAML::Node& n, const std::string& key) const {
    if (n.IsScalar() && n.Tag() != "!") {
      if (n.Scalar() == "true") return true;
      if (n.Scalar() == "false") return false;
    }
    return fail(n, key, "expected true or false");
  }
  Result<std::int64_t> integer(const YAML::Node& n, const std::string& key, std::int64_t lo, std::int64_t hi) const {
    if (!n.IsScalar() || n.Scalar().empty() || n.Scalar().find_first_not_of("0123456789") != std::string::npos)
      return fail(n, key, "expected an integer " + std::to_string(lo) + ".." + std::to_string(hi));
    if (n.Scalar().size() > 18 || std::stoll(n.Scalar()) < lo || std::stoll(n.Scalar()) > hi)
      return fail(n, key, "out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return std::stoll(n.Scalar());
  }
  // A list of non-empty strings (a lone scalar is not accepted: `allow_read: /x` is a typo).
  Result<std::vector<Item>> strings(const YAML::Node& n, const std::string& key) const {
    if (!n.IsSequence()) return fail(n, key, "expected a list of strings");
    std::vector<Item> out;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string k = key + "[" + std::to_string(i) + "]";
      if (!n[i].IsScalar() || n[i].Scalar().empty()) return fail(n[i], k, "expected a non-empty string");
      out.push_back({n[i].Scalar(), origin(n[i], k)});
    }
    return out;
  }
  Result<NetMode> net_mode(const YAML::Node& n, const std::string& key) const {
    if (n.IsScalar()) {
      // YAML 1.1 reads a bare `off` as a boolean in some tools; we take the scalar text.
      if (auto m = net_mode_from_string(n.Scalar())) return *m;
    }
    return fail(n, key, "expected one of off, allowlist, strict, ask");
  }
  // Entries of a mapping keyed by domain name, each value read by `value`.
  template <class Value>
  Status domain_map(const YAML::Node& n, const std::string& key, const char* expected, Value&& value) const {
    if (!n.IsMap()) return fail(n, key, expected);
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string d = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string at = key + "." + d;
      if (d.empty()) return fail(it->first, key, "expected a domain name as key");
      if (!seen.insert(d).second) return fail(it->first, at, "duplicate key");
      PADDOCK_TRY_STATUS(value(Item{d, origin(it->first, at)}, it->second, at));
    }
    return {};
  }

  // One value of each type; `section` is the node holding the key (for what is required there).
  Status read(const Text&, const YAML::Node& n, const std::string& key, std::string& out, Origin*) const {
    PADDOCK_TRY_ASSIGN(out, scalar(n, key, "a string"));
    return {};
  }
  Status read(const Condition& c, const YAML::Node& n, const std::string& key, std::optional<Item>& out, Origin*) const {
    auto s = scalar(n, key, "a string");
    if (!s.ok()) return s.error();
    if (s->empty()) return fail(n, key, "must not be empty");
    if (c.allowed && std::find(c.allowed().begin(), c.allowed().end(), *s) == c.allowed().end())
      return fail(n, key, "expected one of " + join(c.allowed()));
    out = Item{*s, origin(n, key)};
    return {};
  }
  Status read(const Flag&, const YAML::Node& n, const std::string& key, std::optional<bool>& out, Origin* at) const {
    PADDOCK_TRY_ASSIGN(out, boolean(n, key));
    *at = origin(n, key);
    return {};
  }
  Status read(const Mode&, const YAML::Node& n, const std::string& key, std::optional<NetMode>& out, Origin* at) const {
    PADDOCK_TRY_ASSIGN(out, net_mode(n, key));
    *at = origin(n, key);
    return {};
  }
  Status read(const Strings& s, const YAML::Node& n, const std::string& key, std::vector<Item>& out, Origin*) const {
    PADDOCK_TRY_ASSIGN(out, strings(n, key));
    if (s.literal)
      for (const auto& i : out)
        if (i.text.find_first_of("*?[") != std::string::npos)
          return error_at(ErrorCode::kBadInput, {i.at.file, i.at.line, i.at.col, key},
                          "'" + i.text + "' is a glob; name each directory");
    return {};
  }
  Status read(const Names& names, const YAML::Node& n, const std::string& key, std::vector<Item>& out, Origin*) const {
    PADDOCK_TRY_ASSIGN(out, strings(n, key));
    const auto& allowed = names.allowed();
    for (std::size_t i = 0; i < out.size(); ++i)
      if (std::find(allowed.begin(), allowed.end(), out[i].text) == allowed.end())
        return fail(n[i], out[i].at.key, "'" + out[i].text + "' is not one of " + join(allowed));
    return {};
  }
  Status read(const Ports&, const YAML::Node& n, const std::string& key, std::vector<std::pair<int, Origin>>& out,
              Origin*) const {
    if (!n.IsSequence()) return fail(n, key, "expected a list of ports 1..65535");
    out.clear();
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string at = key + "[" + std::to_string(i) + "]";
      std::int64_t p = 0;
      PADDOCK_TRY_ASSIGN(p, integer(n[i], at, 1, 65535));
      out.emplace_back(static_cast<int>(p), origin(n[i], at));
    }
    return {};
  }
  Status read(const DomainPorts&, const YAML::Node& n, const std::string& key,
              std::vector<std::pair<Item, std::vector<int>>>& out, Origin*) const {
    out.clear();
    return domain_map(n, key, "expected a mapping domain: [port, ...]",
                      [&](Item d, const YAML::Node& v, const std::string& at) -> Status {
                        if (!v.IsSequence() || v.size() == 0)
                          return fail(v, at, "expected a non-empty list of ports 1..65535");
                        std::vector<int> ports;
                        for (std::size_t i = 0; i < v.size(); ++i) {
                          std::int64_t p = 0;
                          PADDOCK_TRY_ASSIGN(p, integer(v[i], at + "[" + std::to_string(i) + "]", 1, 65535));
                          ports.push_back(static_cast<int>(p));
                        }
                        out.emplace_back(std::move(d), std::move(ports));
                        return {};
                      });
  }
  Status read(const DomainSizes&, const YAML::Node& n, const std::string& key,
              std::vector<std::pair<Item, std::int64_t>>& out, Origin*) const {
    out.clear();
    return domain_map(n, key, "expected a mapping domain: size (e.g. 2GiB)",
                      [&](Item d, const YAML::Node& v, const std::string& at) -> Status {
                        if (!v.IsScalar()) return fail(v, at, "expected a size such as 2GiB");
                        auto size = parse_size(v.Scalar());
                        if (!size.ok()) return fail(v, at, size.error().message);
                        out.emplace_back(std::move(d), *size);
                        return {};
                      });
  }
  Status read(const Limit& lim, const YAML::Node& n, const std::string& key, std::array<LimitValue, kLimitCount>& out,
              Origin*) const {
    if (!n.IsScalar()) return fail(n, key, "expected a number with an optional suffix");
    Result<std::int64_t> r = lim.unit == Unit::kDuration ? parse_duration(n.Scalar()) : parse_size(n.Scalar());
    if (!r.ok()) return fail(n, key, r.error().message);
    out[static_cast<int>(lim.which)] = LimitValue{*r, origin(n, key)};
    return {};
  }
  Status read(const RequiredPath&, const YAML::Node& n, const std::string& key, Item& out, Origin*) const {
    auto d = scalar(n, key, "a path");
    if (!d.ok()) return d.error();
    out = Item{*d, origin(n, key)};
    return {};
  }
  Status read(const EnvValues&, const YAML::Node& n, const std::string& key,
              std::vector<std::pair<std::string, Item>>& out, Origin*) const {
    if (!n.IsMap()) return fail(n, key, "expected a mapping NAME: value");
    out.clear();
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string at = key + "." + k;
      // Paddock sets these itself, and a variable the hard-deny matches never reaches the agent.
      if (k.empty() || k == "HOME" || k == "PATH" || k == "TMPDIR" ||
          k.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        return fail(it->first, key, "expected a variable name other than HOME, PATH and TMPDIR");
      auto v = scalar(it->second, at, "a string");
      if (!v.ok()) return v.error();
      out.emplace_back(k, Item{*v, origin(it->second, at)});
    }
    return {};
  }

  Status read(const Choice& c, const YAML::Node& n, const std::string& key, std::optional<std::string>& out,
              Origin* at) const {
    const auto& allowed = c.allowed();
    if (!n.IsScalar() || std::find(allowed.begin(), allowed.end(), n.Scalar()) == allowed.end())
      return fail(n, key, "expected one of " + join(allowed));
    out = n.Scalar();
    *at = origin(n, key);
    return {};
  }
  Status read(const AgentSettings&, const YAML::Node& n, const std::string& key,
              std::vector<Layer::Agent::Setting>& out, Origin*) const {
    if (!n.IsSequence()) return fail(n, key, "expected a list of {file, format, set | import_from, why}");
    out.clear();
    for (std::size_t i = 0; i < n.size(); ++i)
      PADDOCK_TRY_STATUS(setting(n[i], key + "[" + std::to_string(i) + "]", out));
    return {};
  }
  Status read(const Credentials&, const YAML::Node& n, const std::string& key, std::vector<Layer::Credential>& out,
              Origin*) const;

  Status setting(const YAML::Node& n, const std::string& key, std::vector<Layer::Agent::Setting>& out) const;
  Status section(const YAML::Node& n, const std::string& name, Layer& l) const;

  std::string tier_, file_;
};

// One entry of agent.settings (docs/agents.md, "Its own sandbox"). Keys are JSON pointers
// (RFC 6901) so that a key holding dots or slashes (a project's path) is one key.
Status Parser::setting(const YAML::Node& n, const std::string& key, std::vector<Layer::Agent::Setting>& out) const {
  PADDOCK_TRY(map(n, key, {"file", "format", "set", "import_from", "import_keys", "why"}));
  Layer::Agent::Setting s;
  if (!n["file"] || !n["format"] || !n["why"]) return fail(n, key, "needs file, format and why");
  auto file = scalar(n["file"], key + ".file", "a path");
  if (!file.ok()) return file.error();
  s.file = Item{*file, origin(n["file"], key + ".file")};
  auto format = scalar(n["format"], key + ".format", "json or toml");
  if (!format.ok()) return format.error();
  if (*format != "json" && *format != "toml") return fail(n["format"], key + ".format", "expected json or toml");
  s.format = *format;
  auto why = scalar(n["why"], key + ".why", "a sentence");
  if (!why.ok()) return why.error();
  s.why = *why;
  const auto pointer_ok = [](const std::string& p) { return !p.empty() && p[0] == '/'; };
  if (const auto set = n["set"]) {
    if (!set.IsMap()) return fail(set, key + ".set", "expected a mapping /json/pointer: value");
    for (auto it = set.begin(); it != set.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "";
      if (!pointer_ok(k)) return fail(it->first, key + ".set", "a key is a JSON pointer starting with /");
      if (!it->second.IsScalar()) return fail(it->second, key + ".set." + k, "expected a scalar value");
      // The value as JSON: true, false, an integer, or a string.
      const std::string& v = it->second.Scalar();
      const bool plain = it->second.Tag() != "!";
      std::string value;
      if (plain && (v == "true" || v == "false")) value = v;
      else if (plain && !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 18) value = v;
      else value = nlohmann::json(v).dump();
      s.set.emplace_back(k, Item{value, origin(it->second, key + ".set." + k)});
    }
  }
  if (n["import_from"]) {
    auto from = scalar(n["import_from"], key + ".import_from", "a path");
    if (!from.ok()) return from.error();
    s.import_from = Item{*from, origin(n["import_from"], key + ".import_from")};
    if (!n["import_keys"]) return fail(n, key + ".import_keys", "missing (the JSON pointers to copy)");
    PADDOCK_TRY_ASSIGN(s.import_keys, strings(n["import_keys"], key + ".import_keys"));
    for (const auto& k : s.import_keys)
      if (!pointer_ok(k.text))
        return error_at(ErrorCode::kBadInput, k.at.pos(), "a JSON pointer starting with /");
    if (s.format != "json") return fail(n["import_from"], key + ".import_from", "only a json file imports keys");
  } else if (n["import_keys"]) {
    return fail(n["import_keys"], key + ".import_keys", "needs import_from");
  }
  if (s.set.empty() && !s.import_from) return fail(n, key, "needs set or import_from");
  out.push_back(std::move(s));
  return {};
}

// credentials: {NAME: {upstream, header, scheme, basic_user, env, max_requests, max_bytes,
// max_request, max_response}}. Shapes only; names, hosts and variables are checked when merged.
Status Parser::read(const Credentials&, const YAML::Node& n, const std::string& key,
                    std::vector<Layer::Credential>& out, Origin*) const {
  if (!n.IsMap()) return fail(n, key, "expected a mapping NAME: {upstream: HOST, env: {...}}");
  out.clear();
  std::set<std::string> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
    const std::string at = key + "." + name;
    if (name.empty()) return fail(it->first, key, "expected a credential name as key");
    if (!seen.insert(name).second) return fail(it->first, at, "duplicate key");
    const YAML::Node c = it->second;
    PADDOCK_TRY(map(c, at, {"upstream", "header", "scheme", "basic_user", "env", "max_requests", "max_bytes",
                            "max_request", "max_response"}));
    Layer::Credential d;
    d.name = Item{name, origin(it->first, at)};
    if (!c["upstream"]) return fail(c, at + ".upstream", "missing (the one host this credential is sent to)");
    auto text_item = [&](const char* k, std::optional<Item>& value) -> Status {
      if (!c[k]) return {};
      auto v = scalar(c[k], at + "." + k, "a string");
      if (!v.ok()) return v.error();
      if (v->empty()) return fail(c[k], at + "." + k, "must not be empty");
      value = Item{*v, origin(c[k], at + "." + k)};
      return {};
    };
    std::optional<Item> upstream;
    PADDOCK_TRY_STATUS(text_item("upstream", upstream));
    d.upstream = *upstream;
    PADDOCK_TRY_STATUS(text_item("header", d.header));
    PADDOCK_TRY_STATUS(text_item("basic_user", d.basic_user));
    if (c["scheme"]) {
      auto v = scalar(c["scheme"], at + ".scheme", "one of raw, bearer, basic");
      if (!v.ok()) return v.error();
      d.scheme = credential_scheme_from_string(*v);
      if (!d.scheme) return fail(c["scheme"], at + ".scheme", "expected one of raw, bearer, basic");
    }
    if (const auto e = c["env"]) {
      if (!e.IsMap()) return fail(e, at + ".env", "expected a mapping NAME: value (${endpoint}, ${placeholder})");
      for (auto v = e.begin(); v != e.end(); ++v) {
        const std::string var = v->first.IsScalar() ? v->first.Scalar() : "";
        auto value = scalar(v->second, at + ".env." + var, "a string");
        if (!value.ok()) return value.error();
        d.env.emplace_back(var, Item{*value, origin(v->second, at + ".env." + var)});
      }
    }
    auto count = [&](const char* k, std::optional<std::int64_t>& value) -> Status {
      if (!c[k]) return {};
      PADDOCK_TRY_ASSIGN(value, integer(c[k], at + "." + k, 0, 1000000000000LL));
      if (d.budget_at.file.empty()) d.budget_at = origin(c[k], at + "." + k);
      return {};
    };
    auto size = [&](const char* k, std::optional<std::int64_t>& value) -> Status {
      if (!c[k]) return {};
      if (!c[k].IsScalar()) return fail(c[k], at + "." + k, "expected a size such as 1GiB");
      auto v = parse_size(c[k].Scalar());
      if (!v.ok()) return fail(c[k], at + "." + k, v.error().message);
      value = *v;
      if (d.budget_at.file.empty()) d.budget_at = origin(c[k], at + "." + k);
      return {};
    };
    PADDOCK_TRY_STATUS(count("max_requests", d.max_requests));
    PADDOCK_TRY_STATUS(size("max_bytes", d.max_bytes));
    PADDOCK_TRY_STATUS(size("max_request", d.max_request_bytes));
    PADDOCK_TRY_STATUS(size("max_response", d.max_response_bytes));
    out.push_back(std::move(d));
  }
  return {};
}

Status Parser::section(const YAML::Node& n, const std::string& name, Layer& l) const {
  // A section declared as one key without a name (credentials) is read whole by that key.
  bool whole = false;
  Status whole_status;
  for_each_key([&](const auto& k) {
    if (k.info.section != name || !k.info.name.empty()) return;
    whole = true;
    whole_status = read(k.type, n, k.info.path(), value_of(k, l), origin_of(k, l));
  });
  if (whole) return whole_status;
  PADDOCK_TRY(map(n, name, keys_of(name)));
  // A required key is missing before any other key is read.
  Status missing;
  for_each_key([&](const auto& k) {
    using Type = std::remove_cvref_t<decltype(k.type)>;
    if constexpr (std::is_same_v<Type, RequiredPath>)
      if (missing.ok() && k.info.section == name && !n[std::string(k.info.name)])
        missing = fail(n, k.info.path(), "missing (" + std::string(k.type.missing) + ")");
  });
  if (!missing.ok()) return missing;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.Scalar();
    Status st;
    for_each_key([&](const auto& k) {
      if (k.info.section != name || k.info.name != key) return;
      st = read(k.type, it->second, k.info.path(), value_of(k, l), origin_of(k, l));
    });
    if (!st.ok()) return st;
  }
  return {};
}

Result<Layer> Parser::parse(const YAML::Node& root) const {
  Layer l;
  l.tier = tier_;
  l.file = file_;
  if (!root.IsMap()) return fail(root, "version", "a layer is a mapping that starts with 'version: 1'");
  if (Status s = text(root, ""); !s.ok()) return s.error();
  std::vector<std::string> top = {"version"};
  for (const auto& s : kSections)
    if (!s.agent_preset_only || tier_ == kTierAgent) top.emplace_back(s.name);
  PADDOCK_TRY(map(root, "", top));
  if (!root["version"]) return fail(root, "version", "missing (required: version: 1)");
  if (!root["version"].IsScalar() || root["version"].Scalar() != kVersion)
    return fail(root["version"], "version", "unsupported schema version (allowed: 1)");
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string name = it->first.Scalar();
    if (name == "version") continue;
    PADDOCK_TRY(section(it->second, name, l));
    if (name == "agent") l.agent.present = true;
  }
  if (tier_ == kTierAgent && !l.agent.present)
    return fail(root, "agent", "missing (an agent preset names its data_dir)");
  return l;
}

}  // namespace

bool is_repository_side(const std::string& tier) {
  return tier == kTierRepo || tier == kTierFragment || tier == kTierLocal;
}
bool is_builtin(const std::string& tier) {
  return tier == kTierProfile || tier == kTierPreset || tier == kTierAgent;
}

namespace {

// The number of nodes a walk of the document visits (an alias once per use: what a reader that
// follows them would visit), stopping at the budget; the first node past it is named.
std::optional<YAML::Mark> over_node_budget(const YAML::Node& root) {
  std::vector<YAML::Node> todo{root};
  std::size_t seen = 0;
  while (!todo.empty()) {
    YAML::Node n = todo.back();
    todo.pop_back();
    if (++seen > kLayerNodeMax) return n.Mark();
    if (n.IsSequence())
      for (const auto& c : n) todo.push_back(c);
    else if (n.IsMap())
      for (const auto& kv : n) {
        todo.push_back(kv.first);
        todo.push_back(kv.second);
      }
  }
  return std::nullopt;
}

}  // namespace

Result<Layer> parse_layer(const std::string& text, const std::string& tier, const std::string& file) {
  if (text.size() > kLayerFileMax) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(kLayerFileMax), '\n'));
    return error_at(ErrorCode::kBadInput, {file, line, 1, ""},
                    "the layer is larger than 1 MiB, where this line reaches it; a policy layer is a short list of rules");
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return error_at(ErrorCode::kBadInput, {file, e.mark.line + 1, e.mark.column + 1, ""}, "YAML syntax error: " + e.msg);
  }
  if (auto at = over_node_budget(root))
    return error_at(ErrorCode::kBadInput, {file, at->line + 1, at->column + 1, ""},
                    "the layer has more than " + std::to_string(kLayerNodeMax) +
                        " YAML nodes (aliases counted each time they are used); a policy layer is a short list of rules");
  try {
    return Parser(tier, file).parse(root);
  } catch (const YAML::Exception& e) {
    return error_at(ErrorCode::kBadInput, {file, e.mark.line + 1, e.mark.column + 1, ""}, e.msg);
  }
}

}  // namespace paddock
