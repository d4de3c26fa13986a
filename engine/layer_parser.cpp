// YAML -> Layer. Strict: unknown keys, duplicate keys, wrong types and bad enum values are
// errors naming file:line:column, the key and what is allowed. yaml-cpp marks are 0-based.
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "engine/builtin_lists.h"
#include "engine/json_text.h"
#include "engine/layer.h"
#include "engine/limits.h"

namespace paddock {
namespace {

#define PADDOCK_TRY_STATUS(expr)            \
  do {                                      \
    Status _st = (expr);                    \
    if (!_st.ok()) return _st;              \
  } while (0)

class Parser {
 public:
  Parser(std::string tier, std::string file) : tier_(std::move(tier)), file_(std::move(file)) {}

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
  Result<std::vector<Item>> enums(const YAML::Node& n, const std::string& key, const std::vector<std::string>& allowed) const {
    auto items = strings(n, key);
    if (!items.ok()) return items.error();
    for (std::size_t i = 0; i < items->size(); ++i)
      if (std::find(allowed.begin(), allowed.end(), (*items)[i].text) == allowed.end())
        return fail(n[i], (*items)[i].at.key, "'" + (*items)[i].text + "' is not one of " + join(allowed));
    return items;
  }
  Result<NetMode> net_mode(const YAML::Node& n, const std::string& key) const {
    if (n.IsScalar()) {
      // YAML 1.1 reads a bare `off` as a boolean in some tools; we take the scalar text.
      if (auto m = net_mode_from_string(n.Scalar())) return *m;
    }
    return fail(n, key, "expected one of off, allowlist, strict, ask");
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }

  Result<Layer> parse(const YAML::Node& root);
  Status parse_agent_setting(const YAML::Node& n, const std::string& key, Layer& l) const;

 private:
  Status parse_when(const YAML::Node& n, Layer& l) const;
  Status parse_filesystem(const YAML::Node& n, Layer& l) const;
  Status parse_network(const YAML::Node& n, Layer& l) const;
  Status parse_environment(const YAML::Node& n, Layer& l) const;
  Status parse_limits(const YAML::Node& n, Layer& l) const;
  Status parse_agent(const YAML::Node& n, Layer& l) const;
  Status parse_credentials(const YAML::Node& n, Layer& l) const;

  std::string tier_, file_;
};

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

Status Parser::parse_when(const YAML::Node& n, Layer& l) const {
  PADDOCK_TRY(map(n, "when", {"branch", "file_exists", "project_contains", "os", "agent_is"}));
  auto item = [&](const char* k, std::optional<Item>& out) -> Status {
    if (!n[k]) return {};
    const std::string key = std::string("when.") + k;
    auto s = scalar(n[k], key, "a string");
    if (!s.ok()) return s.error();
    if (s->empty()) return fail(n[k], key, "must not be empty");
    out = Item{*s, origin(n[k], key)};
    return {};
  };
  PADDOCK_TRY(item("branch", l.when.branch));
  PADDOCK_TRY(item("file_exists", l.when.file_exists));
  PADDOCK_TRY(item("project_contains", l.when.project_contains));
  PADDOCK_TRY(item("os", l.when.os));
  PADDOCK_TRY(item("agent_is", l.when.agent_is));
  if (l.when.os && l.when.os->text != "linux" && l.when.os->text != "macos" && l.when.os->text != "windows")
    return fail(n["os"], "when.os", "expected one of linux, macos, windows");
  static const std::vector<std::string> kAgents = {"claude-code", "codex", "gemini-cli", "aider",
                                                   "opencode", "copilot", "custom"};
  if (l.when.agent_is && std::find(kAgents.begin(), kAgents.end(), l.when.agent_is->text) == kAgents.end())
    return fail(n["agent_is"], "when.agent_is", "expected one of " + join(kAgents));
  return {};
}

Status Parser::parse_filesystem(const YAML::Node& n, Layer& l) const {
  PADDOCK_TRY(map(n, "filesystem", {"allow_write", "allow_read", "deny", "deny_write", "deny_preset",
                                    "deny_write_preset", "unprotect", "tmpfs_tmp", "protect_agent_config", "review",
                                    "agent_state"}));
  if (n["allow_write"]) PADDOCK_TRY_ASSIGN(l.allow_write, strings(n["allow_write"], "filesystem.allow_write"));
  if (n["allow_read"]) PADDOCK_TRY_ASSIGN(l.allow_read, strings(n["allow_read"], "filesystem.allow_read"));
  if (n["deny"]) PADDOCK_TRY_ASSIGN(l.deny, strings(n["deny"], "filesystem.deny"));
  if (n["deny_write"]) PADDOCK_TRY_ASSIGN(l.deny_write, strings(n["deny_write"], "filesystem.deny_write"));
  if (n["deny_preset"])
    PADDOCK_TRY_ASSIGN(l.deny_preset, enums(n["deny_preset"], "filesystem.deny_preset", deny_list_names()));
  if (n["deny_write_preset"])
    PADDOCK_TRY_ASSIGN(l.deny_write_preset,
                       enums(n["deny_write_preset"], "filesystem.deny_write_preset", deny_write_list_names()));
  if (n["unprotect"]) PADDOCK_TRY_ASSIGN(l.unprotect, strings(n["unprotect"], "filesystem.unprotect"));
  if (n["tmpfs_tmp"]) {
    PADDOCK_TRY_ASSIGN(l.tmpfs_tmp, boolean(n["tmpfs_tmp"], "filesystem.tmpfs_tmp"));
    l.tmpfs_at = origin(n["tmpfs_tmp"], "filesystem.tmpfs_tmp");
  }
  if (n["protect_agent_config"]) {
    PADDOCK_TRY_ASSIGN(l.protect_agent_config, boolean(n["protect_agent_config"], "filesystem.protect_agent_config"));
    l.protect_agent_config_at = origin(n["protect_agent_config"], "filesystem.protect_agent_config");
  }
  if (n["review"]) {
    PADDOCK_TRY_ASSIGN(l.review, boolean(n["review"], "filesystem.review"));
    l.review_at = origin(n["review"], "filesystem.review");
  }
  if (const auto a = n["agent_state"]) {
    if (!a.IsScalar() || (a.Scalar() != "own" && a.Scalar() != "shared"))
      return fail(a, "filesystem.agent_state", "expected own or shared");
    l.agent_state = a.Scalar();
    l.agent_state_at = origin(a, "filesystem.agent_state");
  }
  return {};
}

Status Parser::parse_network(const YAML::Node& n, Layer& l) const {
  PADDOCK_TRY(map(n, "network", {"mode", "allow_domains", "strict_ports", "allow_cidr", "quotas", "presets", "loopback_bind",
                                 "publish", "host_ports"}));
  if (n["loopback_bind"]) {
    PADDOCK_TRY_ASSIGN(l.loopback_bind, boolean(n["loopback_bind"], "network.loopback_bind"));
    l.loopback_bind_at = origin(n["loopback_bind"], "network.loopback_bind");
  }
  for (const char* name : {"publish", "host_ports"}) {
    const auto list = n[name];
    if (!list) continue;
    const std::string base = std::string("network.") + name;
    if (!list.IsSequence()) return fail(list, base, "expected a list of ports 1..65535");
    auto& out = std::string(name) == "publish" ? l.publish : l.host_ports;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string key = base + "[" + std::to_string(i) + "]";
      std::int64_t p = 0;
      PADDOCK_TRY_ASSIGN(p, integer(list[i], key, 1, 65535));
      out.emplace_back(static_cast<int>(p), origin(list[i], key));
    }
  }
  if (n["mode"]) {
    PADDOCK_TRY_ASSIGN(l.net_mode, net_mode(n["mode"], "network.mode"));
    l.net_mode_at = origin(n["mode"], "network.mode");
  }
  if (n["allow_domains"]) PADDOCK_TRY_ASSIGN(l.allow_domains, strings(n["allow_domains"], "network.allow_domains"));
  if (n["allow_cidr"]) PADDOCK_TRY_ASSIGN(l.allow_cidr, strings(n["allow_cidr"], "network.allow_cidr"));
  if (n["presets"])
    PADDOCK_TRY_ASSIGN(l.net_presets, enums(n["presets"], "network.presets",
                                            {"npm", "pypi", "cargo", "git", "go", "maven", "huggingface"}));
  if (const auto sp = n["strict_ports"]) {
    if (!sp.IsMap()) return fail(sp, "network.strict_ports", "expected a mapping domain: [port, ...]");
    std::set<std::string> seen;
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      const std::string d = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string key = "network.strict_ports." + d;
      if (d.empty()) return fail(it->first, "network.strict_ports", "expected a domain name as key");
      if (!seen.insert(d).second) return fail(it->first, key, "duplicate key");
      if (!it->second.IsSequence() || it->second.size() == 0)
        return fail(it->second, key, "expected a non-empty list of ports 1..65535");
      std::vector<int> ports;
      for (std::size_t i = 0; i < it->second.size(); ++i) {
        std::int64_t p = 0;
        PADDOCK_TRY_ASSIGN(p, integer(it->second[i], key + "[" + std::to_string(i) + "]", 1, 65535));
        ports.push_back(static_cast<int>(p));
      }
      l.strict_ports.emplace_back(Item{d, origin(it->first, key)}, std::move(ports));
    }
  }
  if (const auto q = n["quotas"]) {
    if (!q.IsMap()) return fail(q, "network.quotas", "expected a mapping domain: size (e.g. 2GiB)");
    std::set<std::string> seen;
    for (auto it = q.begin(); it != q.end(); ++it) {
      const std::string d = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string key = "network.quotas." + d;
      if (d.empty()) return fail(it->first, "network.quotas", "expected a domain name as key");
      if (!seen.insert(d).second) return fail(it->first, key, "duplicate key");
      if (!it->second.IsScalar()) return fail(it->second, key, "expected a size such as 2GiB");
      auto v = parse_size(it->second.Scalar());
      if (!v.ok()) return fail(it->second, key, v.error().message);
      l.quotas.emplace_back(Item{d, origin(it->first, key)}, *v);
    }
  }
  return {};
}

Status Parser::parse_environment(const YAML::Node& n, Layer& l) const {
  PADDOCK_TRY(map(n, "environment", {"pass_through", "deny", "agent_credentials"}));
  if (n["pass_through"]) PADDOCK_TRY_ASSIGN(l.pass_through, strings(n["pass_through"], "environment.pass_through"));
  if (n["deny"]) PADDOCK_TRY_ASSIGN(l.env_deny, strings(n["deny"], "environment.deny"));
  if (n["agent_credentials"]) {
    PADDOCK_TRY_ASSIGN(l.agent_credentials, boolean(n["agent_credentials"], "environment.agent_credentials"));
    l.agent_credentials_at = origin(n["agent_credentials"], "environment.agent_credentials");
  }
  return {};
}

Status Parser::parse_limits(const YAML::Node& n, Layer& l) const {
  std::vector<std::string> keys;
  for (int i = 0; i < kLimitCount; ++i) keys.push_back(limit_yaml_key(static_cast<LimitKey>(i)));
  PADDOCK_TRY(map(n, "limits", keys));
  for (int i = 0; i < kLimitCount; ++i) {
    const auto k = static_cast<LimitKey>(i);
    const auto v = n[limit_yaml_key(k)];
    if (!v) continue;
    const std::string key = std::string("limits.") + limit_yaml_key(k);
    if (!v.IsScalar()) return fail(v, key, "expected a number with an optional suffix");
    Result<std::int64_t> r = (k == LimitKey::kCpu || k == LimitKey::kWallTime) ? parse_duration(v.Scalar())
                                                                               : parse_size(v.Scalar());
    if (!r.ok()) return fail(v, key, r.error().message);
    l.limits[i] = LimitValue{*r, origin(v, key)};
  }
  return {};
}

Status Parser::parse_agent(const YAML::Node& n, Layer& l) const {
  PADDOCK_TRY(map(n, "agent", {"data_dir", "default_net", "credential_env", "state_dirs", "env", "hidden_state",
                               "settings"}));
  l.agent.present = true;
  if (!n["data_dir"]) return fail(n, "agent.data_dir", "missing (the agent's data directory, e.g. ~/.claude)");
  auto d = scalar(n["data_dir"], "agent.data_dir", "a path");
  if (!d.ok()) return d.error();
  l.agent.data_dir = Item{*d, origin(n["data_dir"], "agent.data_dir")};
  if (n["default_net"]) {
    PADDOCK_TRY_ASSIGN(l.agent.default_net, net_mode(n["default_net"], "agent.default_net"));
    l.agent.default_net_at = origin(n["default_net"], "agent.default_net");
  }
  if (n["credential_env"]) PADDOCK_TRY_ASSIGN(l.agent.credential_env, strings(n["credential_env"], "agent.credential_env"));
  if (n["state_dirs"]) {
    PADDOCK_TRY_ASSIGN(l.agent.state_dirs, strings(n["state_dirs"], "agent.state_dirs"));
    for (const auto& i : l.agent.state_dirs)
      if (i.text.find_first_of("*?[") != std::string::npos)
        return bad_input(i.at.where() + ": key 'agent.state_dirs': '" + i.text + "' is a glob; name each directory");
  }
  if (const auto e = n["env"]) {
    if (!e.IsMap()) return fail(e, "agent.env", "expected a mapping NAME: value");
    for (auto it = e.begin(); it != e.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string key = "agent.env." + k;
      // Paddock sets these itself, and a variable the hard-deny matches never reaches the agent.
      if (k.empty() || k == "HOME" || k == "PATH" || k == "TMPDIR" || k.find_first_not_of(
              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        return fail(it->first, "agent.env", "expected a variable name other than HOME, PATH and TMPDIR");
      auto v = scalar(it->second, key, "a string");
      if (!v.ok()) return v.error();
      l.agent.env.emplace_back(k, Item{*v, origin(it->second, key)});
    }
  }
  if (n["hidden_state"]) PADDOCK_TRY_ASSIGN(l.agent.hidden_state, strings(n["hidden_state"], "agent.hidden_state"));
  if (const auto st = n["settings"]) {
    if (!st.IsSequence()) return fail(st, "agent.settings", "expected a list of {file, format, set | import_from, why}");
    for (std::size_t i = 0; i < st.size(); ++i) {
      const std::string key = "agent.settings[" + std::to_string(i) + "]";
      PADDOCK_TRY(parse_agent_setting(st[i], key, l));
    }
  }
  return {};
}

// One entry of agent.settings (docs/agents.md, "Its own sandbox"). Keys are JSON pointers
// (RFC 6901) so that a key holding dots or slashes (a project's path) is one key.
Status Parser::parse_agent_setting(const YAML::Node& n, const std::string& key, Layer& l) const {
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
      std::string value;
      if (it->second.Tag() != "!" && (v == "true" || v == "false")) value = v;
      else if (it->second.Tag() != "!" && !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 18) value = v;
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
      if (!pointer_ok(k.text)) return bad_input(k.at.where() + ": key '" + k.at.key + "': a JSON pointer starting with /");
    if (s.format != "json") return fail(n["import_from"], key + ".import_from", "only a json file imports keys");
  } else if (n["import_keys"]) {
    return fail(n["import_keys"], key + ".import_keys", "needs import_from");
  }
  if (s.set.empty() && !s.import_from) return fail(n, key, "needs set or import_from");
  l.agent.settings.push_back(std::move(s));
  return {};
}

// credentials: {NAME: {upstream, header, scheme, basic_user, env, max_requests, max_bytes,
// max_request, max_response}}. Shapes only; names, hosts and variables are checked when merged.
Status Parser::parse_credentials(const YAML::Node& n, Layer& l) const {
  if (!n.IsMap()) return fail(n, "credentials", "expected a mapping NAME: {upstream: HOST, env: {...}}");
  std::set<std::string> seen;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
    const std::string key = "credentials." + name;
    if (name.empty()) return fail(it->first, "credentials", "expected a credential name as key");
    if (!seen.insert(name).second) return fail(it->first, key, "duplicate key");
    const YAML::Node c = it->second;
    PADDOCK_TRY(map(c, key, {"upstream", "header", "scheme", "basic_user", "env", "max_requests", "max_bytes",
                             "max_request", "max_response"}));
    Layer::Credential d;
    d.name = Item{name, origin(it->first, key)};
    if (!c["upstream"]) return fail(c, key + ".upstream", "missing (the one host this credential is sent to)");
    auto text_item = [&](const char* k, std::optional<Item>& out) -> Status {
      if (!c[k]) return {};
      auto v = scalar(c[k], key + "." + k, "a string");
      if (!v.ok()) return v.error();
      if (v->empty()) return fail(c[k], key + "." + k, "must not be empty");
      out = Item{*v, origin(c[k], key + "." + k)};
      return {};
    };
    std::optional<Item> upstream;
    PADDOCK_TRY(text_item("upstream", upstream));
    d.upstream = *upstream;
    PADDOCK_TRY(text_item("header", d.header));
    PADDOCK_TRY(text_item("basic_user", d.basic_user));
    if (c["scheme"]) {
      auto v = scalar(c["scheme"], key + ".scheme", "one of raw, bearer, basic");
      if (!v.ok()) return v.error();
      d.scheme = credential_scheme_from_string(*v);
      if (!d.scheme) return fail(c["scheme"], key + ".scheme", "expected one of raw, bearer, basic");
    }
    if (const auto e = c["env"]) {
      if (!e.IsMap()) return fail(e, key + ".env", "expected a mapping NAME: value (${endpoint}, ${placeholder})");
      for (auto v = e.begin(); v != e.end(); ++v) {
        const std::string var = v->first.IsScalar() ? v->first.Scalar() : "";
        auto value = scalar(v->second, key + ".env." + var, "a string");
        if (!value.ok()) return value.error();
        d.env.emplace_back(var, Item{*value, origin(v->second, key + ".env." + var)});
      }
    }
    auto count = [&](const char* k, std::optional<std::int64_t>& out) -> Status {
      if (!c[k]) return {};
      PADDOCK_TRY_ASSIGN(out, integer(c[k], key + "." + k, 0, 1000000000000LL));
      if (d.budget_at.file.empty()) d.budget_at = origin(c[k], key + "." + k);
      return {};
    };
    auto size = [&](const char* k, std::optional<std::int64_t>& out) -> Status {
      if (!c[k]) return {};
      if (!c[k].IsScalar()) return fail(c[k], key + "." + k, "expected a size such as 1GiB");
      auto v = parse_size(c[k].Scalar());
      if (!v.ok()) return fail(c[k], key + "." + k, v.error().message);
      out = *v;
      if (d.budget_at.file.empty()) d.budget_at = origin(c[k], key + "." + k);
      return {};
    };
    PADDOCK_TRY(count("max_requests", d.max_requests));
    PADDOCK_TRY(size("max_bytes", d.max_bytes));
    PADDOCK_TRY(size("max_request", d.max_request_bytes));
    PADDOCK_TRY(size("max_response", d.max_response_bytes));
    l.credentials.push_back(std::move(d));
  }
  return {};
}

Result<Layer> Parser::parse(const YAML::Node& root) {
  Layer l;
  l.tier = tier_;
  l.file = file_;
  if (!root.IsMap()) return fail(root, "version", "a layer is a mapping that starts with 'version: 1'");
  if (Status s = text(root, ""); !s.ok()) return s.error();
  std::vector<std::string> top = {"version", "metadata", "when", "security", "filesystem", "network",
                                  "unix_sockets", "environment", "secrets", "credentials", "limits"};
  if (tier_ == kTierAgent) top.push_back("agent");
  PADDOCK_TRY(map(root, "", top));
  if (!root["version"]) return fail(root, "version", "missing (required: version: 1)");
  if (!root["version"].IsScalar() || root["version"].Scalar() != "1")
    return fail(root["version"], "version", "unsupported schema version (allowed: 1)");
  if (const auto m = root["metadata"]) {
    PADDOCK_TRY(map(m, "metadata", {"name", "description"}));
    if (m["name"]) PADDOCK_TRY_ASSIGN(l.name, scalar(m["name"], "metadata.name", "a string"));
    if (m["description"]) PADDOCK_TRY_ASSIGN(l.description, scalar(m["description"], "metadata.description", "a string"));
  }
  if (root["when"]) PADDOCK_TRY(parse_when(root["when"], l));
  if (const auto s = root["security"]) {
    PADDOCK_TRY(map(s, "security", {"immutable", "require_signed"}));
    if (s["immutable"]) {
      PADDOCK_TRY_ASSIGN(l.immutable, boolean(s["immutable"], "security.immutable"));
      l.immutable_at = origin(s["immutable"], "security.immutable");
    }
    if (s["require_signed"]) PADDOCK_TRY_ASSIGN(l.require_signed, boolean(s["require_signed"], "security.require_signed"));
  }
  if (root["filesystem"]) PADDOCK_TRY(parse_filesystem(root["filesystem"], l));
  if (root["network"]) PADDOCK_TRY(parse_network(root["network"], l));
  if (const auto u = root["unix_sockets"]) {
    PADDOCK_TRY(map(u, "unix_sockets", {"allow"}));
    if (u["allow"]) PADDOCK_TRY_ASSIGN(l.unix_sockets_allow, strings(u["allow"], "unix_sockets.allow"));
  }
  if (root["environment"]) PADDOCK_TRY(parse_environment(root["environment"], l));
  if (const auto s = root["secrets"]) {
    PADDOCK_TRY(map(s, "secrets", {"brokered_env"}));
    if (s["brokered_env"]) PADDOCK_TRY_ASSIGN(l.brokered_env, strings(s["brokered_env"], "secrets.brokered_env"));
  }
  if (root["credentials"]) PADDOCK_TRY(parse_credentials(root["credentials"], l));
  if (root["limits"]) PADDOCK_TRY(parse_limits(root["limits"], l));
  if (root["agent"]) PADDOCK_TRY(parse_agent(root["agent"], l));
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

const char* limit_yaml_key(LimitKey k) {
  switch (k) {
    case LimitKey::kCpu: return "cpu_seconds";
    case LimitKey::kMemory: return "memory";
    case LimitKey::kProcesses: return "processes";
    case LimitKey::kOpenFiles: return "open_files";
    case LimitKey::kFileSize: return "file_size";
    case LimitKey::kWallTime: return "wall_time";
  }
  return "";
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
