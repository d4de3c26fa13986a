#include "engine/provenance.h"

#include <algorithm>

#include "engine/json_text.h"

namespace paddock {

std::string describe_rule(const Origin& at, const std::string& text) {
  std::string r = at.key;
  if (!text.empty()) r += " '" + text + "'";
  if (at.line > 0) r += " at " + std::to_string(at.line) + ":" + std::to_string(at.col);
  return r;
}

void Provenance::add(const std::string& key, const Origin& at, const std::string& action, const std::string& text) {
  if (!enabled_) return;
  add_raw(key, Contribution{at.tier, at.file, action, describe_rule(at, text)});
}

void Provenance::add_raw(const std::string& key, Contribution c) {
  if (!enabled_) return;
  auto& v = entries_[key];
  if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(std::move(c));
}

const std::vector<Contribution>* Provenance::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string provenance_json_key(const std::string& key) {
  // Field paths are ASCII and hold no ':'; whatever follows the first ':' is the entry itself.
  const auto colon = key.find(':');
  if (colon == std::string::npos) return encode_json_text(key);
  return key.substr(0, colon + 1) + encode_json_text(key.substr(colon + 1));
}

nlohmann::json Provenance::to_json() const {
  const auto text = [](const std::string& s) { return nlohmann::json(encode_json_text(s)); };
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : entries_) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& c : v)
      arr.push_back({{"tier", text(c.tier)}, {"file", text(c.file)}, {"action", text(c.action)}, {"rule", text(c.rule)}});
    out[provenance_json_key(k)] = std::move(arr);
  }
  return out;
}

}  // namespace paddock
