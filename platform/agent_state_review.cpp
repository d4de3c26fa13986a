#include "platform/agent_state_review.h"

#include <algorithm>
#include <map>

#include <sys/stat.h>

#include "engine/builtin_lists.h"
#include "engine/engine.h"
#include "engine/glob.h"
#include "engine/review/classify.h"
#include "engine/session/agent_state_layout.h"
#include "engine/session/config_watch.h"
#include "platform/read_file.h"

namespace paddock::platform {
namespace {

bool within(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

// Bounded like the helper's watch: settings are kilobytes, a state file a few megabytes.
constexpr std::size_t kMaxSettingsBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxNamedFiles = 64;

std::optional<std::string> read_side(const std::string& path) {
  ReadOptions o;
  o.max_bytes = kMaxSettingsBytes;
  o.no_follow = true;
  auto b = read_file_if_exists(path, o);
  if (!b) return std::nullopt;
  return *b;
}

// The agent-config list's entry a path is, with its variables expanded.
const ListEntry* config_entry(const BuiltinList& list, const std::string& path, const std::string& home) {
  for (const auto& e : list.entries)
    for (const auto& p : e.paths) {
      std::string g = p.text;
      if (g.rfind("~/", 0) == 0) g = home + g.substr(1);
      else if (g.rfind("$HOME", 0) == 0) g = home + g.substr(5);
      if (!g.empty() && g[0] == '/' && glob_match_path(g, path)) return &e;
    }
  return nullptr;
}

}  // namespace

bool is_agent_own_path(const FrozenIr& ir, const std::string& path) {
  for (const auto& r : ir.fs.agent_state)
    for (const auto& h : r.hidden)
      if (within(path, h)) return true;
  return false;
}

Result<FrozenIr> agent_state_ir(const std::string& agent, const std::string& profile,
                                const std::map<std::string, std::string>& environment, const std::string& resources_dir) {
  Inputs in;
  in.agent = agent;
  in.profile = profile;
  in.environment = environment;
  in.resources_dir = resources_dir;
  in.with_report = false;
  auto home = environment.find("HOME");
  in.project = home == environment.end() || home->second.empty() ? "/" : home->second;
  auto ev = evaluate(in);
  if (!ev.ok()) return ev.error();
  return std::move(ev->ir);
}

Result<AgentStateView> load_agent_state(const FrozenIr& ir, const std::string& resources_dir, bool include_own) {
  const std::string& dir = ir.fs.agent_state_dir;
  const std::string label = ir.meta.agent;
  if (dir.empty() || ir.fs.agent_state.empty())
    return Error{ErrorCode::kNotFound, label + " keeps no Paddock-owned state (its directories are shared, or it has none)"};
  struct stat st {};
  if (::lstat(session::agent_state_lock(dir).c_str(), &st) != 0)
    return Error{ErrorCode::kNotFound, label + " has no Paddock state yet (" + dir + "): it is made by its first session"};
  AgentStateView v;
  auto exclusive = FileLock::try_acquire(session::agent_state_lock(dir), /*exclusive=*/true);
  if (!exclusive) return exclusive.error();
  if (*exclusive) {
    if (auto done = commit_ended_sessions(dir); !done) return done.error();
    v.lock = std::move(**exclusive);
  } else {
    auto shared = FileLock::acquire(session::agent_state_lock(dir), /*exclusive=*/false);
    if (!shared) return shared.error();
    v.lock = std::move(*shared);
    v.running = true;
  }
  auto opened = open_agent_state_review(dir, label, ir.meta.home);
  if (!opened) return opened.error();
  v.state = std::move(*opened);
  auto tool = load_builtin_list(resources_dir, "tool-executed");
  if (!tool) return tool.error();
  auto agent = load_builtin_list(resources_dir, "agent-config");
  if (!agent) return agent.error();
  review::Classifier classifier({"", ir.meta.home, &*tool, &*agent});
  auto set = compute_change_set(v.state, classifier, v.running);
  if (!set) return set.error();
  v.changes = std::move(*set);

  if (!include_own) {
    std::vector<review::Change> kept;
    for (auto& c : v.changes.changes) {
      if (is_agent_own_path(ir, c.path)) ++v.own_changes;
      else kept.push_back(std::move(c));
    }
    v.changes.changes = std::move(kept);
  }

  // The agents' settings, key by key, and the files they name (by the state's version).
  std::map<std::string, review::ChangeFacts> facts;
  for (const auto& c : v.changes.changes) {
    if (c.after.type != review::EntryType::kFile) continue;
    const ListEntry* e = config_entry(*agent, c.path, ir.meta.home);
    if (!e || e->keys.empty()) continue;
    const WatchedConfig w{c.path, e->format, e->keys};
    const auto up = v.state.upper_path(c.path);
    const std::optional<std::string> after = up ? read_side(*up) : std::nullopt;
    const std::optional<std::string> before = c.before.type == review::EntryType::kFile ? read_side(c.path) : std::nullopt;
    for (const auto& k : session::compare_configs(w, session::snapshot_config(w, before), session::snapshot_config(w, after)))
      facts[c.path].changed_keys.push_back(k.key + " " + k.change);
    if (after)
      for (const auto& named : session::named_files(w, *after, ir.meta.home, kMaxNamedFiles)) {
        std::string& by = facts[named].named_by;
        by += by.empty() ? "the settings in " + c.path : ", " + c.path;
      }
  }
  classifier.classify(v.changes.changes, facts);
  return v;
}

}  // namespace paddock::platform
