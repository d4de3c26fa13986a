// Provenance (DESIGN §5): for every IR entry, which tier, file and rule added or removed it.
// Keys are "<ir field>:<value>" (e.g. "fs.deny:/home/u/.ssh", "egress.domains:github.com",
// "env.passed_names:LANG") or the bare field for scalars ("egress.mode", "resources.memory_bytes").
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/layer.h"

namespace paddock {

struct Contribution {
  std::string tier;
  std::string file;
  std::string action;  // added | removed | set
  std::string rule;    // "filesystem.deny[2] '~/.ssh' at 5:3"
  bool operator==(const Contribution&) const = default;
};

class Provenance {
 public:
  void add(const std::string& key, const Origin& at, const std::string& action, const std::string& text);
  void add_raw(const std::string& key, Contribution c);
  const std::vector<Contribution>* find(const std::string& key) const;
  // Only keys accepted by `keep` (entries that exist in the IR, plus removals).
  nlohmann::json to_json() const;
  std::map<std::string, std::vector<Contribution>>& entries() { return entries_; }
  // A disabled record keeps nothing (`paddock run` asks for the IR only: no explain, no lint).
  void set_enabled(bool on) { enabled_ = on; }

 private:
  std::map<std::string, std::vector<Contribution>> entries_;
  bool enabled_ = true;
};

std::string describe_rule(const Origin& at, const std::string& text);

}  // namespace paddock
