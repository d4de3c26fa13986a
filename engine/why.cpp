// `explain --why`: answers from the frozen IR (what the helper enforces) and its provenance.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "engine/context.h"
#include "engine/engine.h"
#include "engine/env_policy.h"
#include "engine/json_text.h"
#include "engine/provenance.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

WhyAnswer answer(const std::string& subject, const char* kind) {
  WhyAnswer w;
  w.subject = subject;
  w.kind = kind;
  return w;
}

void decide_from(WhyAnswer& w, const Evaluation& e, const std::string& key, const std::string& action) {
  const json& p = e.provenance;
  const std::string k = provenance_json_key(key);
  if (!p.contains(k)) return;
  for (const auto& c : p[k]) {
    if (c.value("action", "") != action && !(action == "added" && c.value("action", "") == "set")) continue;
    w.tier = c.value("tier", "");
    w.file = c.value("file", "");
    w.rule = c.value("rule", "");
    if (action == "added") return;  // the first (weakest) tier that added it
  }
}

bool is_env_name(const std::string& q) {
  if (q.empty() || !(std::isalpha(static_cast<unsigned char>(q[0])) || q[0] == '_')) return false;
  return std::all_of(q.begin(), q.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string longest_within(const std::string& p, const std::vector<std::string>& roots) {
  std::string best;
  for (const auto& r : roots)
    if (path_within(p, r) && r.size() >= best.size()) best = r;
  return best;
}

const DenyEntry* deny_within(const std::string& p, const std::vector<DenyEntry>& v) {
  const DenyEntry* best = nullptr;
  for (const auto& d : v)
    if (path_within(p, d.path) && (!best || d.path.size() > best->path.size())) best = &d;
  return best;
}

WhyAnswer why_path(const Evaluation& e, std::string q) {
  const auto& m = e.ir.meta;
  if (q == "~" || q.rfind("~/", 0) == 0) q = m.home + q.substr(1);
  for (const auto& [var, val] : {std::pair<std::string, std::string>{"$PROJECT", m.project}, {"$HOME", m.home}, {"$AGENT", m.agent_dir}})
    if (q.rfind(var, 0) == 0 && !val.empty()) q = val + q.substr(var.size());
  if (q.empty() || q[0] != '/') q = m.project + "/" + q;
  std::error_code ec;
  const std::string p = fs::weakly_canonical(q, ec).string();
  WhyAnswer w = answer(ec ? q : p, "path");
  const auto& f = e.ir.fs;
  if (const DenyEntry* d = deny_within(w.subject, f.deny)) {
    w.access = "none";
    decide_from(w, e, prov_key<&IrFs::deny>(d->path), "added");
    w.reason = "denied: " + d->path + " is masked (deny beats every allow)";
    return w;
  }
  if (const std::string r = longest_within(w.subject, f.write_roots); !r.empty()) {
    w.allowed = true;
    if (const DenyEntry* d = deny_within(w.subject, f.deny_write)) {
      w.access = "read";
      decide_from(w, e, prov_key<&IrFs::deny_write>(d->path), "added");
      w.reason = "read only: inside write root " + r + " but " + d->path + " is write-denied";
      return w;
    }
    w.access = "write";
    decide_from(w, e, prov_key<&IrFs::write_roots>(r), "added");
    w.reason = "allowed: read and write under " + r;
    return w;
  }
  if (const std::string r = longest_within(w.subject, f.read_roots); !r.empty()) {
    w.allowed = true;
    w.access = "read";
    decide_from(w, e, prov_key<&IrFs::read_roots>(r), "added");
    w.reason = "read only: under read root " + r;
    return w;
  }
  if (f.tmp_isolated && path_within(w.subject, "/tmp")) {
    // The host's /tmp is not reachable: the sandbox sees a private, empty /tmp instead.
    w.access = "none";
    decide_from(w, e, prov_key<&IrFs::tmp_isolated>(), "added");
    if (w.tier.empty()) w.tier = "default";
    w.reason = "denied: not granted; /tmp inside the sandbox is a private, empty directory (not the host's /tmp)";
    return w;
  }
  w.access = "none";
  w.tier = "default";
  w.reason = "denied: not under any read or write root (everything not granted is invisible)";
  return w;
}

WhyAnswer why_domain(const Evaluation& e, std::string q) {
  int port = 0;
  if (auto c = q.rfind(':'); c != std::string::npos && q.find_first_not_of("0123456789", c + 1) == std::string::npos && c + 1 < q.size()) {
    port = std::stoi(q.substr(c + 1, 5));
    q.resize(c);
  }
  std::transform(q.begin(), q.end(), q.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!q.empty() && q.back() == '.') q.pop_back();
  WhyAnswer w = answer(q, "domain");
  const auto& g = e.ir.egress;
  if (g.mode == NetMode::kOff) {
    decide_from(w, e, prov_key<&IrEgress::mode>(), "set");
    w.reason = "denied: network mode is off";
    return w;
  }
  std::string match;
  for (const auto& d : g.domains) {
    if (d == q) { match = d; break; }
    if (d.rfind("*.", 0) == 0 && q.size() > d.size() - 1 && q.compare(q.size() - (d.size() - 1), d.size() - 1, d, 1) == 0) match = d;
  }
  if (match.empty()) {
    decide_from(w, e, prov_key<&IrEgress::mode>(), "set");
    w.reason = std::string("denied: not in the domain allowlist") + (g.mode == NetMode::kAsk ? " (mode ask: the user is prompted)" : "");
    return w;
  }
  decide_from(w, e, prov_key<&IrEgress::domains>(match), "added");
  if (g.mode == NetMode::kStrict) {
    auto it = g.strict_ports.find(match);
    if (it == g.strict_ports.end() || (port && std::find(it->second.begin(), it->second.end(), port) == it->second.end())) {
      w.reason = "denied: mode strict and " + (port ? "port " + std::to_string(port) : std::string("no port")) + " is not allowed for " + match;
      return w;
    }
  }
  w.allowed = true;
  w.reason = "allowed: matches " + match + " (" + to_string(g.mode) + ")";
  return w;
}

WhyAnswer why_env_decision(const Evaluation& e, const std::string& q);

// The agent's own key is withheld by default; the answer says how the user lets it through.
WhyAnswer why_env(const Evaluation& e, const std::string& q) {
  WhyAnswer w = why_env_decision(e, q);
  const auto& own = e.agent_credential_env;
  if (!w.allowed && std::find(own.begin(), own.end(), q) != own.end())
    w.reason += "; it is " + e.ir.meta.agent + "'s own credential, which passes only when your user policy (" +
                "$XDG_CONFIG_HOME/paddock/policy.yaml), the system policy or a --policy file sets "
                "environment.agent_credentials: true";
  return w;
}

WhyAnswer why_env_decision(const Evaluation& e, const std::string& q) {
  WhyAnswer w = answer(q, "env");
  const auto& v = e.ir.env;
  if (v.set.count(q)) {
    w.allowed = true;
    decide_from(w, e, prov_key<&IrEnv::set>(q), "set");
    w.reason = "set by Paddock itself";
    return w;
  }
  if (std::find(v.passed_names.begin(), v.passed_names.end(), q) != v.passed_names.end()) {
    w.allowed = true;
    decide_from(w, e, prov_key<&IrEnv::passed_names>(q), "added");
    w.reason = "passed through from the launch environment";
    return w;
  }
  decide_from(w, e, prov_key<&IrEnv::passed_names>(q), "removed");
  if (!w.rule.empty()) {
    w.reason = "denied: removed by " + w.rule;
    return w;
  }
  const bool listed = std::any_of(v.pass_through.begin(), v.pass_through.end(),
                                  [&](const std::string& p) { return env_pattern_matches(p, q); });
  if (!listed) {
    w.tier = "default";
    w.reason = "denied: not in environment.pass_through (the environment is an allowlist)";
  } else if (const std::string h = hard_deny_match(q); !h.empty()) {
    w.tier = "invariant";
    w.rule = "hard-deny " + h;
    w.reason = "denied: built-in hard-deny " + h;
  } else {
    w.reason = "would pass, but it is not set in the launch environment";
  }
  return w;
}

}  // namespace

WhyAnswer why(const Evaluation& e, const std::string& query) {
  if (query.empty()) {
    WhyAnswer w = answer("", "path");
    w.access = "none";
    w.reason = "empty query";
    return w;
  }
  const char c = query[0];
  if (c == '/' || c == '~' || c == '$' || c == '.' || query.find('/') != std::string::npos) return why_path(e, query);
  if (is_env_name(query) && (query.find('.') == std::string::npos)) {
    const bool has_lower = std::any_of(query.begin(), query.end(), [](char ch) { return std::islower(static_cast<unsigned char>(ch)); });
    if (!has_lower || query.find('_') != std::string::npos) return why_env(e, query);
  }
  if (query.find('.') != std::string::npos) return why_domain(e, query);
  return why_env(e, query);
}

// Paths in these answers may hold bytes that are not UTF-8: every string is encoded as in the IR.
json to_json(const WhyAnswer& w) {
  return json{{"subject", json_text_value(w.subject)}, {"kind", json_text_value(w.kind)},
              {"allowed", w.allowed},                  {"access", json_text_value(w.access)},
              {"tier", json_text_value(w.tier)},       {"file", json_text_value(w.file)},
              {"rule", json_text_value(w.rule)},       {"reason", json_text_value(w.reason)}};
}

json explain_json(const Evaluation& e) {
  json lint = json::array();
  for (const auto& f : e.lint)
    lint.push_back({{"rule", json_text_value(f.rule)}, {"message", json_text_value(f.message)},
                    {"tier", json_text_value(f.tier)}, {"file", json_text_value(f.file)}});
  json ir = to_json(e.ir);
  json warnings = ir["warnings"];
  return json{{"ir", std::move(ir)}, {"ir_hash", e.ir_hash}, {"provenance", e.provenance},
              {"warnings", std::move(warnings)}, {"lint", lint}};
}

}  // namespace paddock
