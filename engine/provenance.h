// Provenance: for every IR entry, which tier, file and rule added or removed it. Keys are
// "<ir field>:<value>" (e.g. "fs.deny:/home/u/.ssh", "egress.domains:github.com",
// "env.passed_names:LANG") or the bare field for scalars ("egress.mode", "resources.memory_bytes"),
// the field named by the IR schema (prov_key). In JSON the value part is encoded as every string
// Paddock writes is (engine/json_text.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir_schema.h"
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
  const std::map<std::string, std::vector<Contribution>>& entries() const { return entries_; }
  // A disabled record keeps nothing (`paddock run` asks for the IR only: no explain, no lint).
  void set_enabled(bool on) { enabled_ = on; }

 private:
  std::map<std::string, std::vector<Contribution>> entries_;
  bool enabled_ = true;
};

std::string describe_rule(const Origin& at, const std::string& text);

// The provenance key of an IR entry, e.g. prov_key<&IrFs::deny>("/home/u/.ssh"); a member the
// schema does not declare does not compile.
template <auto Member>
std::string prov_key(const std::string& value) {
  return ir_schema::field_path<Member>() + ":" + value;
}
template <auto Member>
const std::string& prov_key() {
  return ir_schema::field_path<Member>();
}

// A key as it appears in Provenance::to_json(): the value part encoded for JSON.
std::string provenance_json_key(const std::string& key);

}  // namespace paddock
