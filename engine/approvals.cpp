#include "engine/approvals.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "engine/layer.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;
using AllApprovals = std::map<std::string, ProjectApprovals>;  // project -> file -> approval

Error corrupt(const std::string& path, const std::string& what) {
  return bad_input(path + ":1:1: not a Paddock approvals file (" + what + "); it was left as it is: move it away and " +
                   "approve the project's layers again");
}

bool is_string(const json& o, const char* key) { return o.is_object() && o.contains(key) && o[key].is_string(); }

// Version 1: {"<sha256>": {"file", "tier"}} per project. One approved hash per file carries over;
// several hashes for one file do not say which is current, so none is kept.
Result<ProjectApprovals> from_v1(const std::string& path, const json& entry) {
  std::map<std::string, std::vector<Approval>> by_file;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (!is_string(it.value(), "file") || !is_string(it.value(), "tier")) return corrupt(path, "a version 1 entry without file and tier");
    by_file[it.value()["file"].get<std::string>()].push_back({it.value()["tier"].get<std::string>(), it.key()});
  }
  ProjectApprovals out;
  for (const auto& [file, list] : by_file)
    if (list.size() == 1) out[file] = list.front();
  return out;
}

Result<AllApprovals> read_all(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return AllApprovals{};
  std::ifstream f(path, std::ios::binary);
  if (!f) return corrupt(path, "cannot be read");
  std::ostringstream ss;
  ss << f.rdbuf();
  const json j = json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return corrupt(path, "not JSON");
  if (!j.contains("version") || !j["version"].is_number_integer()) return corrupt(path, "no version");
  const auto version = j["version"].get<std::int64_t>();
  if (version != 1 && version != 2) return corrupt(path, "version " + std::to_string(version) + " is not 1 or 2");
  if (!j.contains("projects") || !j["projects"].is_object()) return corrupt(path, "no projects");
  AllApprovals all;
  for (auto p = j["projects"].begin(); p != j["projects"].end(); ++p) {
    if (!p.value().is_object()) return corrupt(path, "project " + p.key() + " is not an object");
    if (version == 1) {
      auto v1 = from_v1(path, p.value());
      if (!v1.ok()) return v1.error();
      all[p.key()] = std::move(*v1);
      continue;
    }
    auto& project = all[p.key()];
    for (auto l = p.value().begin(); l != p.value().end(); ++l) {
      if (!is_string(l.value(), "tier") || !is_string(l.value(), "sha256"))
        return corrupt(path, "layer " + l.key() + " has no tier and sha256");
      project[l.key()] = {l.value()["tier"].get<std::string>(), l.value()["sha256"].get<std::string>()};
    }
  }
  return all;
}

}  // namespace

std::string approvals_path(const std::string& state_dir) { return state_dir + "/approvals.json"; }

Result<ProjectApprovals> load_approvals(const std::string& state_dir, const std::string& project) {
  auto all = read_all(approvals_path(state_dir));
  if (!all.ok()) return all.error();
  auto it = all->find(project);
  return it == all->end() ? ProjectApprovals{} : it->second;
}

bool is_approved(const ProjectApprovals& approvals, const std::string& file, const std::string& tier,
                 const std::string& sha256) {
  auto it = approvals.find(file);
  return it != approvals.end() && it->second == Approval{tier, sha256};
}

Status record_approvals(const std::string& state_dir, const std::string& project, const std::vector<LayerInfo>& layers,
                        const FileWriter& writer) {
  const std::string path = approvals_path(state_dir);
  auto all = read_all(path);
  if (!all.ok()) return all.error();
  auto& mine = (*all)[project];
  for (const auto& l : layers)
    if (is_repository_side(l.tier) && l.exists && l.applies) mine[l.file] = {l.tier, l.sha256};
  json out = {{"version", 2}, {"projects", json::object()}};
  for (const auto& [p, files] : *all) {
    json& entry = out["projects"][p] = json::object();
    for (const auto& [file, a] : files) entry[file] = {{"tier", a.tier}, {"sha256", a.sha256}};
  }
  return writer.write_file(path, out.dump(2) + "\n", 0600);
}

}  // namespace paddock
