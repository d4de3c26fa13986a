// The agent's own directories (docs/agents.md, "Where its state lives"). By default each of the
// agent preset's agent.state_dirs is shown to the sandbox as an overlay: the user's own
// directory is its lowest layer, read-only and never written, and what the agent writes there
// is kept in Paddock's agent state for the agent's next Paddock session, which the agent's CLI
// outside Paddock never reads. A user who wants the old way (the agent writes the user's real
// directories, and its settings are compared before and after) says filesystem.agent_state:
// shared in a tier of their own.
#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/ir_builder.h"
#include "engine/session/agent_state_layout.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

// A JSON pointer token for a literal key: "~" and "/" escaped (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// $PROJECT inside a JSON pointer is one token: the project's path escaped.
std::string expand_pointer(const std::string& pointer, const std::string& project) {
  std::string out = pointer;
  const std::string var = "$PROJECT";
  for (std::size_t at = out.find(var); at != std::string::npos; at = out.find(var, at)) {
    const std::string token = pointer_token(project);
    out.replace(at, var.size(), token);
    at += token.size();
  }
  return out;
}

}  // namespace

bool IrBuilder::own_agent_state_root(const std::string& path) const {
  return std::any_of(ir_.fs.agent_state.begin(), ir_.fs.agent_state.end(),
                     [&](const AgentStateRoot& r) { return r.path == path; });
}

Status IrBuilder::add_agent_state() {
  if (!agent_layer_) return {};
  // The state directories as resolved, with where each was written.
  std::vector<std::pair<std::string, Origin>> dirs;
  for (const auto& r : paths_)
    if (r.agent_state)
      for (const auto& p : r.resolved)
        if (std::error_code ec; ctx_.paths->symlink_status(p, ec).type() == fs::file_type::directory)
          dirs.emplace_back(p, r.item.at);
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  dirs.erase(std::unique(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             dirs.end());
  if (dirs.empty()) return {};
  // A state directory that a wider write root covers (a grant of the whole home) was pruned as
  // covered; it is its own mount again, so that the agent's state stays the agent's either way.
  for (const auto& [d, at] : dirs)
    if (std::find(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(), d) == ir_.fs.write_roots.end())
      ir_.fs.write_roots.push_back(d);
  std::sort(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end());

  if (agent_state_shared_ && !agent_state_own_) {
    for (const auto& [d, at] : dirs) {
      ir_.fs.shared_agent_dirs.push_back(d);
      prov_.add(prov_key<&IrFs::shared_agent_dirs>(d), *agent_state_shared_, "added",
                "agent_state: shared (the agent writes your own " + d + ")");
    }
    return {};
  }

  // Names that become path components: the preset's name and the built-in profile's.
  for (const std::string* name : {&ctx_.agent, &ctx_.profile})
    if (!session::valid_state_name(*name))
      return refused("the agent state is kept per agent and profile, and '" + *name +
                     "' is not a name Paddock keeps one under (lowercase letters, digits and -)");
  std::error_code ec;
  const std::string root = ctx_.paths->weakly_canonical(ctx_.data_dir, ec).string();
  ir_.fs.agent_state_dir = session::agent_state_dir(root + "/agent-state", ctx_.agent, ctx_.profile);
  for (const auto& [d, at] : dirs)
    if (path_within(ir_.fs.agent_state_dir, d) || path_within(d, ir_.fs.agent_state_dir))
      return refused("the agent's directory " + d + " and its Paddock-owned state " + ir_.fs.agent_state_dir +
                     " lie inside one another; set XDG_DATA_HOME to a directory outside " + d);

  const Layer& preset = *agent_layer_;
  std::set<std::string> logins(login_paths_.begin(), login_paths_.end());
  // The preset's hidden paths; a glob (a database whose name carries a version) matches what the
  // user's directory holds now, as every glob of a policy does.
  std::vector<std::string> hidden;
  std::vector<GlobJob> jobs;
  for (const auto& h : preset.agent.hidden_state) {
    const std::string label = h.at.where() + ": key '" + h.at.key + "'";
    auto p = expand_vars(h.text, ctx_, label);
    if (!p.ok()) return with_origin(p.error(), h.at.pos());
    if (has_glob(h.text)) jobs.emplace_back(*p, label);
    else hidden.push_back(fs::path(*p).lexically_normal().string());
  }
  if (!jobs.empty()) {
    if (auto s = expand_globs(jobs, ctx_.paths.get(), in_.lister); !s.ok()) return s;
    for (const auto& j : jobs) hidden.insert(hidden.end(), j.matches.begin(), j.matches.end());
  }
  // Deny_write entries inside the agent's own directories protect nothing there (the user's files
  // below are never written) and would leave placeholders in the agent's state; they go.
  for (const auto& [dir, at] : dirs) {
    const std::string& d = dir;  // lambdas below capture it: clang 14 cannot capture a structured binding
    AgentStateRoot r;
    r.path = d;
    for (const auto& h : hidden)
      if (path_within(h, d) && h != d) r.hidden.push_back(h);
    // Whichever list made them: the agent-config list, or the project's lists where the project
    // holds the agent's directory (a project at ~ matches ~/.codex as a project's .codex).
    std::erase_if(ir_.fs.deny_write, [&](const DenyEntry& e) { return path_within(e.path, d); });
    // The user's stored logins, whichever agent's: the sandbox never gets the user's own refresh
    // token, so a token the agent refreshes inside never invalidates the login outside. A login
    // made inside is the agent's own, kept in its state (docs/credentials.md).
    for (const auto& l : logins)
      if (path_within(l, d) && l != d) r.hidden.push_back(l);
    for (const auto& s : preset.agent.settings) {
      auto file = expand_vars(s.file.text, ctx_, s.file.at.where() + ": key '" + s.file.at.key + "'");
      if (!file.ok()) return with_origin(file.error(), s.file.at.pos());
      AgentSetting a;
      a.file = fs::path(*file).lexically_normal().string();
      if (!path_within(a.file, d) || a.file == d) continue;
      a.format = s.format;
      a.why = s.why;
      for (const auto& [pointer, value] : s.set) a.set[expand_pointer(pointer, ctx_.project)] = value.text;
      if (s.import_from) {
        auto from = expand_vars(s.import_from->text, ctx_, s.import_from->at.where() + ": key '" + s.import_from->at.key + "'");
        if (!from.ok()) return with_origin(from.error(), s.import_from->at.pos());
        a.import_from = fs::path(*from).lexically_normal().string();
        for (const auto& k : s.import_keys) a.import_keys.push_back(expand_pointer(k.text, ctx_.project));
        std::sort(a.import_keys.begin(), a.import_keys.end());
      }
      prov_.add(prov_key<&IrFs::agent_state>(d), s.file.at, "set", a.file + ": " + a.why);
      r.settings.push_back(std::move(a));
    }
    std::sort(r.hidden.begin(), r.hidden.end());
    r.hidden.erase(std::unique(r.hidden.begin(), r.hidden.end()), r.hidden.end());
    std::sort(r.settings.begin(), r.settings.end());
    // A stored login inside is hidden rather than masked: the agent's own login (made in a
    // Paddock session) must be writable there.
    std::erase_if(ir_.fs.deny, [&](const DenyEntry& e) { return logins.count(e.path) && path_within(e.path, d); });
    std::erase_if(withheld_, [&](const std::string& p) { return path_within(p, d); });
    prov_.add(prov_key<&IrFs::agent_state>(d), agent_state_own_ ? *agent_state_own_ : at, "added",
              "the agent's own directory: your copy read-only below, its writes kept in " + ir_.fs.agent_state_dir);
    ir_.fs.agent_state.push_back(std::move(r));
  }
  return {};
}

}  // namespace paddock
