#include "engine/env_policy.h"

#include <algorithm>
#include <set>

#include "engine/ir_builder.h"

namespace paddock {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

namespace {

// Names that are withheld whatever a tier lists, though they are not secrets themselves: AWS's
// whole family (its settings name profiles and endpoints next to its keys, so none passes) and
// the variables that point at the host's agents and desktop (their sockets are masked anyway;
// passing them only invites confusion).
const std::vector<std::string>& withheld_patterns() {
  static const std::vector<std::string> k = {"AWS_*", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"};
  return k;
}

// Names shaped like secrets: keys, tokens, secrets, passwords, credentials.
const std::vector<std::string>& secret_shaped_patterns() {
  static const std::vector<std::string> k = {
      "*_AUTH", "*_KEY", "*_KEYS", "*_PAT", "*_PWD",
      "*ACCESS_KEY*", "*API_KEY*", "*APIKEY*", "*AUTH_KEY*", "*COOKIE*", "*CREDENTIAL*", "*PASSWD*", "*PASSWORD*",
      "*PRIVATE_KEY*", "*SECRET*", "*TOKEN*"};
  return k;
}

std::string first_match(const std::vector<std::string>& patterns, const std::string& name) {
  const std::string n = upper(name);
  for (const auto& p : patterns) {
    if (p.front() == '*' && p.back() == '*') {
      if (n.find(p.substr(1, p.size() - 2)) != std::string::npos) return p;
    } else if (p.front() == '*') {
      const std::string suffix = p.substr(1);
      if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return p;
    } else if (p.back() == '*') {
      if (n.rfind(p.substr(0, p.size() - 1), 0) == 0) return p;
    } else if (n == p) {
      return p;
    }
  }
  return "";
}

}  // namespace

const std::vector<std::string>& hard_deny_patterns() {
  // Invariant, not policy: names shaped like secrets and the withheld names above never reach
  // the agent through pass-through. Vendors' other settings (ANTHROPIC_BASE_URL,
  // OPENAI_BASE_URL, GOOGLE_CLOUD_PROJECT) pass when a tier lists them: they configure a
  // gateway, they do not grant anything.
  static const std::vector<std::string> k = [] {
    std::vector<std::string> all = withheld_patterns();
    all.insert(all.end(), secret_shaped_patterns().begin(), secret_shaped_patterns().end());
    return all;
  }();
  return k;
}

std::string hard_deny_match(const std::string& name) { return first_match(hard_deny_patterns(), name); }

std::string secret_shaped_match(const std::string& name) { return first_match(secret_shaped_patterns(), name); }

bool valid_env_pattern(const std::string& p) {
  if (p.empty()) return false;
  const std::size_t n = p.back() == '*' ? p.size() - 1 : p.size();
  if (n == 0) return false;  // a bare "*" would be inherit-all, which the schema does not have
  if (!(std::isalpha(static_cast<unsigned char>(p[0])) || p[0] == '_')) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::isalnum(static_cast<unsigned char>(p[i])) || p[i] == '_')) return false;
  return true;
}

bool env_pattern_matches(const std::string& pattern, const std::string& name) {
  if (pattern.back() == '*') return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return name == pattern;
}

std::string sanitize_path_var(const std::string& path) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string e = path.substr(start, colon - start);
    while (e.size() > 1 && e.back() == '/') e.pop_back();
    if (!e.empty() && e[0] == '/' && seen.insert(e).second) out.push_back(e);
    start = colon + 1;
    if (colon == path.size()) break;
  }
  if (out.empty()) return "/usr/local/bin:/usr/bin:/bin";
  std::string s;
  for (const auto& e : out) s += (s.empty() ? "" : ":") + e;
  return s;
}

Status IrBuilder::build_env() {
  auto normalised = [&](const std::vector<Item>& items, const char* what) {
    std::vector<Item> keep;
    for (const auto& i : items) {
      if (valid_env_pattern(i.text)) { keep.push_back(i); continue; }
      warn(i.at.where() + ": " + i.at.key + " '" + i.text + "' dropped from " + what +
           ": patterns are NAME or PREFIX* (letters, digits, _)");
    }
    return keep;
  };
  std::vector<Item> pass = normalised(pass_through_, "environment.pass_through");
  const std::vector<Item> deny = normalised(env_deny_, "environment.deny");
  const std::vector<Item> brokered = normalised(brokered_, "secrets.brokered_env");

  // The agent's own key variables: passed only when a trusted tier opted in.
  std::set<std::string> opted_in;
  if (agent_credentials_ && agent_layer_) {
    for (const auto& c : agent_layer_->agent.credential_env) {
      opted_in.insert(c.text);
      pass.push_back(Item{c.text, *agent_credentials_});
    }
  } else if (agent_credentials_) {
    warn(agent_credentials_->where() + ": environment.agent_credentials is set but no agent preset is selected");
  } else if (agent_layer_) {
    for (const auto& c : agent_layer_->agent.credential_env)
      // A variable a brokered credential feeds gets its placeholder: nothing is withheld there.
      if (ctx_.env->count(c.text) && !credential_env_.count(c.text)) withheld_.push_back(c.text);
  }

  ir_.env.set["HOME"] = ctx_.home;
  ir_.env.set["PATH"] = sanitize_path_var(ctx_.getenv("PATH"));
  if (ir_.fs.tmp_isolated) ir_.env.set["TMPDIR"] = "/tmp";
  for (const auto& [k, v] : ir_.env.set)
    prov_.add_raw(prov_key<&IrEnv::set>(k), Contribution{"invariant", "", "set", k == "PATH" ? "sanitised launch PATH" : k});
  // The agent preset's own settings (e.g. the one directory its state lives in).
  if (agent_layer_)
    for (const auto& [k, v] : agent_layer_->agent.env) {
      std::string value = v.text;
      if (!value.empty() && (value[0] == '$' || value[0] == '~')) {
        auto abs = expand_vars(value, ctx_, v.at.where() + ": key '" + v.at.key + "'");
        if (!abs.ok()) return abs.error();
        value = *abs;
      }
      ir_.env.set[k] = value;
      prov_.add(prov_key<&IrEnv::set>(k), v.at, "set", v.text);
    }

  for (const auto& i : pass) { ir_.env.pass_through.push_back(i.text); prov_.add(prov_key<&IrEnv::pass_through>(i.text), i.at, "added", i.text); }
  for (const auto& i : deny) { ir_.env.deny.push_back(i.text); prov_.add(prov_key<&IrEnv::deny>(i.text), i.at, "added", i.text); }
  for (const auto& i : brokered) {
    ir_.secrets.brokered_env.push_back(i.text);
    prov_.add(prov_key<&IrSecrets::brokered_env>(i.text), i.at, "added", i.text);
  }
  ir_.env.hard_deny = hard_deny_patterns();
  for (const auto& h : ir_.env.hard_deny)
    prov_.add_raw(prov_key<&IrEnv::hard_deny>(h), Contribution{"invariant", "builtin:env-hard-deny", "added", "built-in hard-deny " + h});

  for (const auto& [name, value] : *ctx_.env) {
    (void)value;
    const Item* by = nullptr;
    for (const auto& i : pass)
      if (env_pattern_matches(i.text, name)) { by = &i; break; }
    if (!by) continue;
    const std::string key = prov_key<&IrEnv::passed_names>(name);
    auto removed = [&](const std::string& tier, const std::string& file, const std::string& rule) {
      prov_.add(key, by->at, "added", by->text);
      prov_.add_raw(key, Contribution{tier, file, "removed", rule});
    };
    if (ir_.env.set.count(name)) continue;  // Paddock sets these itself
    if (auto fed = credential_env_.find(name); fed != credential_env_.end()) {
      // The agent gets the brokered credential's placeholder there, never the launch value.
      removed("credential", fed->second, "fed by the brokered credential " + fed->second);
      continue;
    }
    const Item* denied = nullptr;
    for (const auto& i : deny)
      if (env_pattern_matches(i.text, name)) { denied = &i; break; }
    if (denied) { removed(denied->at.tier, denied->at.file, describe_rule(denied->at, denied->text)); continue; }
    const Item* broker = nullptr;
    for (const auto& i : brokered)
      if (env_pattern_matches(i.text, name)) { broker = &i; break; }
    if (broker) { removed(broker->at.tier, broker->at.file, describe_rule(broker->at, broker->text)); continue; }
    const std::string hard = hard_deny_match(name);
    if (!hard.empty() && !opted_in.count(name)) {
      removed("invariant", "builtin:env-hard-deny", "hard-deny " + hard);
      continue;
    }
    ir_.env.passed_names.push_back(name);
    prov_.add(key, by->at, "added", by->text);
  }
  return {};
}

}  // namespace paddock
