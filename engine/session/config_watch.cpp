#include "engine/session/config_watch.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <cpptoml.h>
#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/lexical_path.h"

namespace paddock::session {
namespace {

using nlohmann::json;

json from_toml(const std::shared_ptr<cpptoml::base>& v);

json from_toml_table(const cpptoml::table& t) {
  json out = json::object();
  for (const auto& [k, v] : t) out[k] = from_toml(v);
  return out;
}

json from_toml(const std::shared_ptr<cpptoml::base>& v) {
  if (!v) return nullptr;
  if (v->is_table()) return from_toml_table(*v->as_table());
  if (v->is_table_array()) {
    json a = json::array();
    for (const auto& t : *v->as_table_array()) a.push_back(from_toml_table(*t));
    return a;
  }
  if (v->is_array()) {
    json a = json::array();
    for (const auto& e : *v->as_array()) a.push_back(from_toml(e));
    return a;
  }
  if (auto s = v->as<std::string>()) return s->get();
  if (auto i = v->as<std::int64_t>()) return i->get();
  if (auto d = v->as<double>()) return d->get();
  if (auto b = v->as<bool>()) return b->get();
  // Dates and times: compared by their text.
  std::ostringstream text;
  cpptoml::toml_writer writer(text);
  v->accept(writer);
  return text.str();
}

std::optional<json> parse(const std::string& format, const std::string& bytes) {
  if (format == "toml") {
    try {
      std::istringstream in(bytes);
      cpptoml::parser p(in);
      return from_toml_table(*p.parse());
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  json j = json::parse(bytes, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/format == "jsonc");
  if (j.is_discarded()) return std::nullopt;
  return j;
}

bool plain_name(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

std::string join(const std::string& prefix, const std::string& k) {
  if (plain_name(k)) return prefix.empty() ? k : prefix + "." + k;
  return prefix + "[" + json(k).dump(-1, ' ', false, json::error_handler_t::replace) + "]";
}

void collect(const json& node, const std::vector<std::string>& segs, std::size_t i, const std::string& name,
             std::map<std::string, std::string>& out) {
  if (i == segs.size()) {
    out[name] = sha256_hex(node.dump(-1, ' ', false, json::error_handler_t::replace));
    return;
  }
  if (!node.is_object()) return;
  if (segs[i] == "*") {
    for (const auto& [k, v] : node.items()) collect(v, segs, i + 1, join(name, k), out);
    return;
  }
  if (auto it = node.find(segs[i]); it != node.end()) collect(*it, segs, i + 1, join(name, segs[i]), out);
}

std::vector<std::string> split(const std::string& key) {
  std::vector<std::string> segs;
  std::string cur;
  for (char c : key) {
    if (c == '.') {
      segs.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  segs.push_back(cur);
  return segs;
}

}  // namespace

namespace {

void strings_in(const json& node, std::vector<std::string>& out) {
  if (node.is_string()) out.push_back(node.get<std::string>());
  else if (node.is_array() || node.is_object())
    for (const auto& v : node) strings_in(v, out);
}

void values_at(const json& node, const std::vector<std::string>& segs, std::size_t i, std::vector<std::string>& out) {
  if (i == segs.size()) return strings_in(node, out);
  if (!node.is_object()) return;
  if (segs[i] == "*") {
    for (const auto& [k, v] : node.items()) values_at(v, segs, i + 1, out);
    return;
  }
  if (auto it = node.find(segs[i]); it != node.end()) values_at(*it, segs, i + 1, out);
}

}  // namespace

std::vector<std::string> named_files(const WatchedConfig& w, const std::string& bytes, const std::string& home,
                                     std::size_t max) {
  std::vector<std::string> out;
  auto doc = parse(w.format, bytes);
  if (!doc) return out;
  std::vector<std::string> texts;
  for (const auto& key : w.keys) values_at(*doc, split(key), 0, texts);
  const std::string dir = w.path.substr(0, w.path.rfind('/'));
  const std::pair<const char*, const std::string*> prefixes[] = {
      {"~/", &home},          {"$HOME/", &home},          {"${HOME}/", &home},
      {"$CLAUDE_CONFIG_DIR/", &dir}, {"${CLAUDE_CONFIG_DIR}/", &dir}, {"$CODEX_HOME/", &dir}, {"${CODEX_HOME}/", &dir}};
  std::set<std::string> seen;
  for (const auto& text : texts) {
    // Words as a shell splits them, roughly: quotes dropped, separators and `NAME=` prefixes cut.
    std::string word;
    const auto take = [&] {
      std::string w2 = word;
      word.clear();
      if (auto eq = w2.find('='); eq != std::string::npos && w2[0] != '/' && w2[0] != '~' && w2[0] != '$') w2 = w2.substr(eq + 1);
      std::string path;
      if (!w2.empty() && w2[0] == '/') path = w2;
      for (const auto& [prefix, base] : prefixes)
        if (w2.rfind(prefix, 0) == 0) path = *base + "/" + w2.substr(std::string(prefix).size());
      if (path.empty()) return;
      path = lexically_normal(path);
      if (out.size() < max && seen.insert(path).second) out.push_back(path);
    };
    for (char c : text) {
      if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`' ||
          c == '<' || c == '>') {
        take();
      } else if (c != '"' && c != '\'') {
        word += c;
      }
    }
    take();
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<json> parse_config_document(const std::string& format, const std::string& bytes) {
  return parse(format, bytes);
}

ConfigSnapshot snapshot_config(const WatchedConfig& w, const std::optional<std::string>& bytes) {
  ConfigSnapshot s;
  if (!bytes) {
    s.parsed = true;  // no file: no keys
    return s;
  }
  s.exists = true;
  s.whole = sha256_hex(*bytes);
  // A file or a tree compared whole: its one "key" is its contents.
  if (w.format == "text" || w.format == "tree") {
    s.parsed = true;
    s.values["(contents)"] = s.whole;
    return s;
  }
  auto doc = parse(w.format, *bytes);
  if (!doc) return s;
  s.parsed = true;
  for (const auto& key : w.keys) collect(*doc, split(key), 0, "", s.values);
  return s;
}

std::vector<ConfigChange> compare_configs(const WatchedConfig& w, const ConfigSnapshot& before,
                                          const ConfigSnapshot& after) {
  std::vector<ConfigChange> out;
  if (!before.parsed || !after.parsed) {
    // What the agent's CLI will make of a file that does not parse is unknown: say the file
    // changed, or that it no longer parses.
    if (before.whole != after.whole)
      out.push_back({w.path, "(file)", after.parsed ? "changed" : "unparseable"});
    return out;
  }
  for (const auto& [key, digest] : after.values) {
    auto it = before.values.find(key);
    if (it == before.values.end()) out.push_back({w.path, key, "added"});
    else if (it->second != digest) out.push_back({w.path, key, "changed"});
  }
  for (const auto& [key, digest] : before.values)
    if (!after.values.count(key)) out.push_back({w.path, key, "removed"});
  std::sort(out.begin(), out.end(), [](const ConfigChange& a, const ConfigChange& b) { return a.key < b.key; });
  return out;
}

}  // namespace paddock::session
