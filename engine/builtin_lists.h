// The built-in path lists (resources/lists/<name>.json, one file per list): what the shipped
// profiles mask (credential stores, histories, every agent's stored login, secret-shaped project
// files) and keep read-only (project files the user's own tools execute). A layer names a list
// with filesystem.deny_preset (effect: deny) or filesystem.deny_write_preset (effect:
// deny_write); the builder expands it into paths like any other entry. The lists are data so that
// docs/credentials.md is generated from the same bytes the engine reads. JSON rather than YAML:
// every `paddock run` reads all of them, and yaml-cpp took ~3 ms for their 21 KB, more than the
// rest of the evaluation.
//
// A list file:
//   {"version": 1, "effect": "deny" | "deny_write",
//    "title": "a few plain words (the app's summary and form name the list so)",
//    "description": "one sentence",
//    "note": "why the list is shaped as it is (optional)",
//    "entries": [{"group": "heading for the docs (optional)",
//                 "paths": ["~/.pgpass", "$PROJECT/**/.npmrc", ...],  // ~/, $HOME, $PROJECT; globs
//                 "agent": "claude-code",   // optional: this entry is that agent's own login
//                 "files_only": true,       // optional: directories a glob matches are not entries
//                 "why": "what the file holds or runs, and why the name is safe to match",
//                 "tool": "direnv",          // optional: what runs it (the audit and review name it)
//                 "format": "json", "keys": ["hooks", "projects.*.mcpServers"]}]}  // watch lists only
#pragma once

#include <string>
#include <vector>

#include "engine/layer.h"
#include "engine/status.h"

namespace paddock {

struct ListEntry {
  std::string group;
  std::vector<Item> paths;  // origins name the list file (for errors)
  std::string why;
  std::string agent;        // "" unless the entry is one agent's own (login, or configuration)
  std::string tool;         // what runs the file ("direnv", "VS Code"); "" when the list does not say
  bool files_only = false;
  // Lists with effect "watch" only: the files' format (json | jsonc | toml; text: the whole file;
  // tree: a directory, every entry below it) and the key paths that
  // name host commands (engine/session/config_watch.h).
  std::string format;
  std::vector<std::string> keys;
  // The agent writes this file as its state (it cannot work with it read-only): watched only,
  // never made read-only by filesystem.protect_agent_config.
  bool state_file = false;
  // Lists with effect "allow_domains" only (network-presets): the preset's domains, normalised;
  // `group` is the name network.presets uses, and an entry has no paths.
  std::vector<std::string> domains;
};

struct BuiltinList {
  std::string name;         // the file's stem, as layers name it
  std::string effect;       // "deny" | "deny_write" | "watch" | "allow_domains"
  std::string title;        // a few plain words, as a summary names it: "AWS credentials"
  std::string description;
  std::string note;
  std::string file;         // "builtin:lists/<name>.json"
  std::vector<ListEntry> entries;
};

// One filesystem.unprotect entry and the write protections of the tool-executed list it lifted
// (the builder's record, which lint reports).
struct Unprotect {
  Item item;
  std::string path;                  // canonical
  std::vector<std::string> lifted;   // entries no longer write-denied, sorted
};

// The names filesystem.deny_preset and filesystem.deny_write_preset accept (the parser's closed
// enums; a test checks that each has its file with that effect, and that no file is unnamed).
const std::vector<std::string>& deny_list_names();
const std::vector<std::string>& deny_write_list_names();
// Lists of files that are not masked but compared before and after a session (effect: watch).
const std::vector<std::string>& watch_list_names();

// The names network.presets accepts (the parser's closed enum); each is one entry's group of
// resources/lists/network-presets.json, which holds its domains (a test checks both ways).
const std::vector<std::string>& network_preset_names();
inline constexpr const char* kNetworkPresetsList = "network-presets";

// Reads and checks resources/lists/<name>.json. A missing or malformed file is a broken
// installation (kInternal, naming the file and the entry).
Result<BuiltinList> load_builtin_list(const std::string& resources_dir, const std::string& name);
// Parses a list's bytes (for tests and load_builtin_list).
Result<BuiltinList> parse_builtin_list(const std::string& text, const std::string& name, const std::string& file);

}  // namespace paddock
