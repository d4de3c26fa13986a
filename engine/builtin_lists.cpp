#include "engine/builtin_lists.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/domain_name.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

Error broken(const std::string& where, const std::string& what) {
  return internal_error(where + ": " + what + " (broken installation: the built-in list is not as shipped)");
}

Status only_keys(const std::string& where, const json& o, const std::set<std::string>& allowed) {
  if (!o.is_object()) return broken(where, "expected an object");
  for (auto it = o.begin(); it != o.end(); ++it)
    if (!allowed.count(it.key())) return broken(where, "unknown key '" + it.key() + "'");
  return {};
}

Result<std::string> text(const std::string& where, const json& o, const char* key, bool required) {
  if (!o.contains(key)) {
    if (required) return broken(where, "'" + std::string(key) + "' is missing");
    return std::string();
  }
  if (!o[key].is_string() || o[key].get_ref<const std::string&>().empty())
    return broken(where, "'" + std::string(key) + "' must be a non-empty string");
  return o[key].get<std::string>();
}

// Entries are home or project paths: a list describes what the profiles protect on every machine.
bool path_shape_ok(const std::string& p) {
  return p.rfind("~/", 0) == 0 || p.rfind("$HOME/", 0) == 0 || p.rfind("$PROJECT/", 0) == 0;
}

}  // namespace

const std::vector<std::string>& deny_list_names() {
  static const std::vector<std::string> names = {"ssh",         "aws",          "gcp",           "azure",
                                                 "kube",        "docker",       "gnupg",         "credentials",
                                                 "histories",   "agent-logins", "project-secrets"};
  return names;
}

const std::vector<std::string>& deny_write_list_names() {
  static const std::vector<std::string> names = {"tool-executed"};
  return names;
}

const std::vector<std::string>& network_preset_names() {
  static const std::vector<std::string> names = {"npm", "pypi", "cargo", "git", "go", "maven", "huggingface"};
  return names;
}

const std::vector<std::string>& watch_list_names() {
  static const std::vector<std::string> names = {"agent-config"};
  return names;
}

Result<BuiltinList> parse_builtin_list(const std::string& bytes, const std::string& name, const std::string& file) {
  const json root = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return broken(file, "not JSON");
  BuiltinList l;
  l.name = name;
  l.file = file;
  if (auto s = only_keys(file, root, {"version", "effect", "title", "description", "note", "entries"}); !s.ok()) return s.error();
  if (!root.contains("version") || root["version"] != 1) return broken(file, "'version' must be 1");
  auto effect = text(file, root, "effect", true);
  if (!effect.ok()) return effect.error();
  if (*effect != "deny" && *effect != "deny_write" && *effect != "watch" && *effect != "allow_domains")
    return broken(file, "'effect' must be deny, deny_write, watch or allow_domains");
  const bool watch = *effect == "watch";
  const bool domains = *effect == "allow_domains";
  l.effect = *effect;
  auto title = text(file, root, "title", true);
  if (!title.ok()) return title.error();
  l.title = *title;
  auto description = text(file, root, "description", true);
  if (!description.ok()) return description.error();
  l.description = *description;
  auto note = text(file, root, "note", false);
  if (!note.ok()) return note.error();
  l.note = *note;
  if (!root.contains("entries") || !root["entries"].is_array() || root["entries"].empty())
    return broken(file, "'entries' must be a non-empty list");
  const json& entries = root["entries"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = file + ": entries[" + std::to_string(i) + "]";
    const json& e = entries[i];
    if (auto s = only_keys(where, e,
                           watch     ? std::set<std::string>{"group", "paths", "why", "tool", "agent", "format", "keys", "state_file"}
                           : domains ? std::set<std::string>{"group", "domains", "why"}
                                     : std::set<std::string>{"group", "paths", "why", "tool", "agent", "files_only"});
        !s.ok())
      return s.error();
    ListEntry entry;
    auto group = text(where, e, "group", false);
    auto why = text(where, e, "why", true);
    auto agent = text(where, e, "agent", false);
    auto tool = text(where, e, "tool", false);
    for (const auto* r : {&group, &why, &agent, &tool})
      if (!r->ok()) return r->error();
    entry.group = *group;
    entry.why = *why;
    entry.agent = *agent;
    entry.tool = *tool;
    if (watch) {
      auto format = text(where, e, "format", true);
      if (!format.ok()) return format.error();
      // text and tree: compared whole (a file's bytes; a directory's every entry), without keys.
      const bool whole = *format == "text" || *format == "tree";
      if (*format != "json" && *format != "jsonc" && *format != "toml" && !whole)
        return broken(where, "'format' must be json, jsonc, toml, text or tree");
      entry.format = *format;
      if (entry.agent.empty()) return broken(where, "'agent' is missing");
      if (whole && e.contains("keys")) return broken(where, "a text or tree entry is compared whole: no 'keys'");
      if (!whole && (!e.contains("keys") || !e["keys"].is_array() || e["keys"].empty()))
        return broken(where, "'keys' must be a non-empty list");
      if (!whole)
        for (const auto& k : e["keys"]) {
          if (!k.is_string() || k.get_ref<const std::string&>().empty()) return broken(where, "a key must be a non-empty string");
          entry.keys.push_back(k.get<std::string>());
        }
      if (e.contains("state_file")) {
        if (!e["state_file"].is_boolean()) return broken(where, "'state_file' must be true or false");
        entry.state_file = e["state_file"].get<bool>();
      }
    }
    if (domains) {
      // A preset: its name (the group) and its domains, each already in the form the engine
      // normalises a domain to (an allowlist entry is compared as it is written here).
      if (entry.group.empty()) return broken(where, "'group' (the preset's name) is missing");
      if (!e.contains("domains") || !e["domains"].is_array() || e["domains"].empty())
        return broken(where, "'domains' must be a non-empty list");
      for (const auto& d : e["domains"]) {
        auto n = d.is_string() ? normalize_domain(d.get<std::string>()) : Result<std::string>(bad_input("not a string"));
        if (!n.ok() || *n != d.get<std::string>())
          return broken(where, "domain " + d.dump() + " must be a normalised domain name");
        entry.domains.push_back(*n);
      }
      l.entries.push_back(std::move(entry));
      continue;
    }
    if (e.contains("files_only")) {
      if (!e["files_only"].is_boolean()) return broken(where, "'files_only' must be true or false");
      entry.files_only = e["files_only"].get<bool>();
    }
    if (!e.contains("paths") || !e["paths"].is_array() || e["paths"].empty())
      return broken(where, "'paths' must be a non-empty list");
    for (const auto& p : e["paths"]) {
      if (!p.is_string() || !path_shape_ok(p.get<std::string>()))
        return broken(where, "path " + p.dump() + " must be a string starting with ~/, $HOME/ or $PROJECT/");
      entry.paths.push_back({p.get<std::string>(), Origin{"", file, "entries[" + std::to_string(i) + "]", 0, 0}});
    }
    l.entries.push_back(std::move(entry));
  }
  return l;
}

Result<BuiltinList> load_builtin_list(const std::string& resources_dir, const std::string& name) {
  const std::string rel = "lists/" + name + ".json";
  // Read as it is (one open, no stat first): the installation's own file, like the profiles.
  std::ifstream f(fs::path(resources_dir) / rel, std::ios::binary);
  std::ostringstream bytes;
  if (!f || !(bytes << f.rdbuf()))
    return internal_error("built-in " + rel + " is missing from " + resources_dir + " (broken installation)");
  return parse_builtin_list(bytes.str(), name, "builtin:" + rel);
}

}  // namespace paddock
