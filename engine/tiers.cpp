#include "engine/tiers.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "engine/layer.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

LayerSource make_source(const std::string& tier, const std::string& file, const std::string& path) {
  LayerSource s;
  s.tier = tier;
  s.file = file;
  s.fs_path = path;
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

Status load(LayerSource& s, const Inputs& in, bool refuse_symlink) {
  if (auto it = in.overlay.find(s.file); it != in.overlay.end()) {
    s.exists = true;
    s.bytes = it->second;
  } else {
    std::error_code ec;
    const auto st = fs::symlink_status(s.fs_path, ec);
    if (ec || st.type() == fs::file_type::not_found) return {};
    auto r = read_policy_file(s.fs_path, refuse_symlink, in.lister);
    if (!r.ok()) return r.error();
    s.exists = true;
    s.bytes = std::move(*r);
  }
  s.sha256 = sha256_hex(s.bytes);
  return {};
}

Status add_file(std::vector<LayerSource>& out, const Inputs& in, const std::string& tier, const std::string& path) {
  LayerSource s = make_source(tier, path, path);
  if (auto st = load(s, in, true); !st.ok()) return st;
  out.push_back(std::move(s));
  return {};
}

Status add_builtin(std::vector<LayerSource>& out, const Inputs& in, const std::string& tier, const std::string& dir,
                   const std::string& name, const std::vector<std::string>& allowed, const std::string& flag) {
  if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
    return bad_input(flag + " " + name + ": unknown (allowed: " + join(allowed) + ")");
  const std::string rel = dir + "/" + name + ".yaml";
  LayerSource s = make_source(tier, "builtin:" + rel, (fs::path(in.resources_dir) / rel).string());
  if (auto st = load(s, in, false); !st.ok()) return st;
  if (!s.exists)
    return internal_error("built-in " + rel + " is missing from " + in.resources_dir + " (broken installation)");
  out.push_back(std::move(s));
  return {};
}

}  // namespace

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = {"default", "strict", "audit", "permissive"};
  return names;
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"paranoid", "balanced", "yolo"};
  return names;
}

const std::vector<std::string>& agent_preset_names() {
  static const std::vector<std::string> names = {"claude-code", "codex",   "gemini-cli", "aider",
                                                 "opencode",    "copilot", "custom"};
  return names;
}

Result<std::vector<AgentPreset>> agent_presets(const std::string& resources_dir) {
  std::vector<AgentPreset> out;
  for (const auto& name : agent_preset_names()) {
    const std::string rel = "agents/" + name + ".yaml";
    auto text = read_policy_file((fs::path(resources_dir) / rel).string(), /*refuse_symlink=*/false);
    if (!text.ok()) return text.error();
    auto layer = parse_layer(*text, kTierAgent, "builtin:" + rel);
    if (!layer.ok()) return layer.error();
    out.push_back({name, layer->description, layer->agent.command});
  }
  return out;
}

std::string tier_file_name(const std::string& tier) {
  if (tier == kTierRepo) return ".paddock/policy.yaml";
  if (tier == kTierLocal) return ".paddock/local.yaml";
  if (tier == kTierUser || tier == kTierSystem) return "policy.yaml";
  return {};
}

std::string tier_file(const std::string& tier, const std::string& project, const std::string& config_dir,
                      const std::string& system_dir) {
  const std::string name = tier_file_name(tier);
  const std::string& base = tier == kTierUser ? config_dir : tier == kTierSystem ? system_dir : project;
  return name.empty() || base.empty() ? std::string() : base + "/" + name;
}

std::string fragments_dir(const std::string& project) { return project + "/.paddock/policy.d"; }

Result<std::string> read_policy_file(const std::string& path, bool refuse_symlink, const DirectoryLister* lister) {
  std::error_code ec;
  const auto st = fs::symlink_status(path, ec);
  if (refuse_symlink && st.type() == fs::file_type::symlink)
    return bad_input(path + ":1:1: a policy file must not be a symlink (copy the file instead)");
  if (ec || !fs::is_regular_file(fs::status(path, ec)))
    return bad_input(path + ":1:1: not a regular file");
  // One byte past the cap is read, so that parse_layer names the line where the cap is crossed.
  auto text = read_regular(lister, path, kLayerFileMax + 1, /*prefix=*/true, /*follow=*/!refuse_symlink);
  if (!text.ok()) return bad_input(path + ":1:1: " + text.error().message);
  if (!*text) return bad_input(path + ":1:1: not a regular file");
  return std::move(**text);
}

Result<std::vector<LayerSource>> discover_layers(const Inputs& in, const EvalContext& ctx) {
  std::vector<LayerSource> out;
  Status st;
  const auto file_of = [&](const char* tier) { return tier_file(tier, ctx.project, ctx.config_dir, ctx.system_dir); };
  if (!(st = add_file(out, in, kTierSystem, file_of(kTierSystem))).ok()) return st.error();
  if (!(st = add_file(out, in, kTierUser, file_of(kTierUser))).ok()) return st.error();
  if (!(st = add_builtin(out, in, kTierProfile, "profiles", in.profile, profile_names(), "--profile")).ok()) return st.error();
  if (!(st = add_builtin(out, in, kTierPreset, "presets", in.preset, preset_names(), "--preset")).ok()) return st.error();
  if (!in.agent.empty())
    if (!(st = add_builtin(out, in, kTierAgent, "agents", in.agent, agent_preset_names(), "--agent")).ok()) return st.error();

  const std::string dot = ctx.project + "/.paddock";
  std::error_code ec;
  if (fs::symlink_status(dot, ec).type() == fs::file_type::symlink)
    return bad_input(dot + ":1:1: the .paddock directory must not be a symlink");
  if (!(st = add_file(out, in, kTierRepo, file_of(kTierRepo))).ok()) return st.error();
  // Fragments: the directory listing plus overlay-only files (unsaved new fragments).
  std::vector<std::string> fragments;
  const std::string fdir = fragments_dir(ctx.project);
  if (fs::symlink_status(fdir, ec).type() == fs::file_type::symlink)
    return bad_input(fdir + ":1:1: the policy.d directory must not be a symlink");
  for (fs::directory_iterator it(fdir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") fragments.push_back(it->path().string());
  for (const auto& [path, text] : in.overlay)
    if (fs::path(path).parent_path() == fdir && fs::path(path).extension() == ".yaml") fragments.push_back(path);
  std::sort(fragments.begin(), fragments.end());
  fragments.erase(std::unique(fragments.begin(), fragments.end()), fragments.end());
  for (const auto& f : fragments)
    if (!(st = add_file(out, in, kTierFragment, f)).ok()) return st.error();
  if (!(st = add_file(out, in, kTierLocal, file_of(kTierLocal))).ok()) return st.error();

  for (const auto& p : in.policy_files) {
    const std::string abs = fs::path(p).is_absolute() ? p : (fs::path(ctx.project) / p).lexically_normal().string();
    LayerSource s = make_source(kTierCliFile, abs, abs);
    if (auto s2 = load(s, in, true); !s2.ok()) return s2.error();
    if (!s.exists) return bad_input("--policy " + p + ": no such file");
    out.push_back(std::move(s));
  }
  LayerSource flags = make_source(kTierCliFlags, "cli:flags", "");
  flags.exists = true;
  out.push_back(std::move(flags));
  return out;
}

}  // namespace paddock
