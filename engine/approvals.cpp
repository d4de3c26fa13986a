#include "engine/approvals.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "engine/layer.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

Result<nlohmann::json> read_all(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nlohmann::json{{"version", 1}, {"projects", nlohmann::json::object()}};
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("version", 0) != 1 || !j.contains("projects") || !j["projects"].is_object())
    return bad_input(path + ":1:1: not a Paddock approvals file (version 1); move it away and approve again");
  return j;
}

}  // namespace

std::string approvals_path(const std::string& state_dir) { return state_dir + "/approvals.json"; }

Result<std::set<std::string>> load_approvals(const std::string& state_dir, const std::string& project) {
  auto j = read_all(approvals_path(state_dir));
  if (!j.ok()) return j.error();
  std::set<std::string> out;
  const auto& p = (*j)["projects"];
  if (p.contains(project) && p[project].is_object())
    for (auto it = p[project].begin(); it != p[project].end(); ++it) out.insert(it.key());
  return out;
}

Status record_approvals(const std::string& state_dir, const std::string& project, const std::vector<LayerInfo>& layers,
                        const FileWriter& out) {
  auto j = read_all(approvals_path(state_dir));
  if (!j.ok()) return j.error();
  auto& entry = (*j)["projects"][project];
  if (!entry.is_object()) entry = nlohmann::json::object();
  for (const auto& l : layers)
    if (is_repository_side(l.tier) && l.exists && l.applies) entry[l.sha256] = {{"file", l.file}, {"tier", l.tier}};
  return out.write_file(approvals_path(state_dir), j->dump(2) + "\n", 0600);
}

}  // namespace paddock
