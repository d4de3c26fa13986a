// agent-state diff|apply|reset AGENT (docs/agents.md, "Bringing a change out"): what an agent
// wrote in its own directories during its Paddock sessions, against the user's own copy, as
// review mode lists a session's changes (the same change set, classifier and apply), with the
// keys of its settings that name host commands and the files those name flagged.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/review_output.h"
#include "engine/engine.h"
#include "platform/agent_state_review.h"
#include "platform/dir_lister.h"
#include "platform/review/review_apply.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

struct StateArgs {
  std::string agent;
  std::string profile = "default";
  std::vector<std::string> paths;
  bool as_json = false, diff = false, all = false;
};

Result<FrozenIr> agent_ir(const StateArgs& a, CliContext& ctx) {
  return platform::agent_state_ir(a.agent, a.profile, ctx.environment, ctx.resources_dir().string());
}

// Paths as typed: absolute, or relative to the working directory; "~/" from the home directory.
std::vector<std::string> state_paths(const std::vector<std::string>& raw, const std::string& home) {
  std::vector<std::string> out;
  for (const auto& p : raw) {
    std::error_code ec;
    std::string abs = p.rfind("~/", 0) == 0 ? home + p.substr(1)
                      : p.empty() || p[0] == '/' ? p
                                                  : (std::filesystem::current_path(ec) / p).lexically_normal().string();
    while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
    out.push_back(abs);
  }
  return out;
}

bool below_any(const std::string& path, const std::vector<std::string>& roots) {
  if (roots.empty()) return true;
  for (const auto& p : roots)
    if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 && path[p.size()] == '/')) return true;
  return false;
}

Result<platform::AgentStateView> load(const FrozenIr& ir, CliContext& ctx, bool include_own) {
  auto v = platform::load_agent_state(ir, ctx.resources_dir().string(), include_own);
  if (!v.ok() && v.error().code == ErrorCode::kNotFound) return bad_input(v.error().message);
  return v;
}

int diff_cmd(const StateArgs& a, CliContext& ctx) {
  auto ir = agent_ir(a, ctx);
  if (!ir.ok()) return fail(ir.error());
  auto v = load(*ir, ctx, a.all);
  if (!v.ok()) return fail(v.error());
  const std::vector<std::string> only = state_paths(a.paths, ir->meta.home);
  const auto wanted = [&](const review::Change& c) { return below_any(c.path, only); };
  if (a.as_json) {
    json j = review::to_json(v->changes);
    j["agent"] = a.agent;
    j["profile"] = a.profile;
    j["state_dir"] = ir->fs.agent_state_dir;
    j["own_changes_left_out"] = v->own_changes;
    std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (a.diff) {
    for (const auto& c : v->changes.changes)
      if (c.pending() && wanted(c) && (c.after.type == review::EntryType::kFile || c.before.type == review::EntryType::kFile))
        print_diff(v->state, c, ir->meta.home);
    return 0;
  }
  std::size_t pending = 0;
  for (const auto& c : v->changes.changes) pending += c.pending() && wanted(c) ? 1 : 0;
  std::cout << a.agent << " (profile " << a.profile << "): " << pending << (pending == 1 ? " change" : " changes")
            << " in its Paddock state differ from your own copy";
  if (v->own_changes)
    std::cout << "; " << v->own_changes << " more in its own history, logins and caches (--all lists them)";
  std::cout << "\n";
  if (v->running) std::cout << "a session of " << a.agent << " is running: what it writes now is not listed yet\n";
  if (v->changes.interrupted_apply)
    std::cout << "an apply did not finish: 'paddock agent-state apply " << a.agent << "' finishes it\n";
  for (const auto& n : v->changes.notes) std::cout << "  note: " << n << "\n";
  const std::string apply = "paddock agent-state apply " + a.agent + (a.profile == "default" ? "" : " --profile " + a.profile);
  print_change_sections(v->changes, ir->meta.home, wanted,
                        {apply, "paddock agent-state diff " + a.agent,
                         "you changed your own copy after the agent's state began"});
  if (pending)
    std::cout << "\nNothing here reaches your own copy until you apply it; 'paddock agent-state reset " << a.agent
              << " [PATH]' drops the agent's version instead.\n";
  return 0;
}

int apply_cmd(const StateArgs& a, CliContext& ctx) {
  auto ir = agent_ir(a, ctx);
  if (!ir.ok()) return fail(ir.error());
  auto v = load(*ir, ctx, a.all);
  if (!v.ok()) return fail(v.error());
  if (v->running)
    return fail(refused("a session of " + a.agent + " is running; apply its state's changes once it has ended "
                        "(paddock sessions lists it)"));
  platform::ReviewSelection sel;
  sel.paths = state_paths(a.paths, ir->meta.home);
  for (const auto& p : sel.paths) {
    const bool any = std::any_of(v->changes.changes.begin(), v->changes.changes.end(),
                                 [&](const review::Change& c) { return c.pending() && below_any(c.path, {p}); });
    if (!any) return fail(bad_input("no change at " + p + " in " + a.agent + "'s state (see 'paddock agent-state diff " + a.agent + "')"));
  }
  auto outcome = platform::apply_changes(v->state, v->changes, sel);
  if (!outcome.ok()) return fail(outcome.error());
  // What now equals the user's copy is dropped from the state, so that the user's later changes
  // to it show through in the agent's next session.
  if (auto s = platform::drop_applied(v->state, outcome->done); !s.ok()) return fail(s.error());
  if (a.as_json) {
    json skipped = json::array();
    for (const auto& [p, why] : outcome->skipped) skipped.push_back({{"path", p}, {"why", why}});
    std::cout << json{{"done", outcome->done}, {"skipped", skipped}}.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::cout << "applied " << outcome->done.size() << (outcome->done.size() == 1 ? " change" : " changes") << " of "
            << a.agent << "'s state to your own copy\n";
  for (const auto& [p, why] : outcome->skipped) std::cout << "  not applied: " << shown(p, ir->meta.home) << ": " << why << "\n";
  return 0;
}

int reset_cmd(const StateArgs& a, CliContext& ctx) {
  auto ir = agent_ir(a, ctx);
  if (!ir.ok()) return fail(ir.error());
  auto v = load(*ir, ctx, /*include_own=*/true);
  if (!v.ok()) return fail(v.error());
  if (v->running)
    return fail(refused("a session of " + a.agent + " is running; reset its state once it has ended (paddock sessions lists it)"));
  const std::vector<std::string> paths = state_paths(a.paths, ir->meta.home);
  if (auto s = platform::reset_agent_state(v->state, paths); !s.ok()) return fail(s.error());
  if (paths.empty())
    std::cout << "reset " << a.agent << "'s Paddock state: its next session starts from your own copy again (its "
              << "history and its own login included)\n";
  else
    for (const auto& p : paths) std::cout << "reset " << shown(p, ir->meta.home) << ": your own copy shows again\n";
  return 0;
}

}  // namespace

void add_agent_state_commands(CLI::App& app, CliContext& ctx) {
  auto* group = app.add_subcommand("agent-state", "An agent's own state kept by Paddock: what it changed, and bringing it out");
  group->require_subcommand(1);
  struct Sub {
    const char* name;
    const char* help;
    int (*fn)(const StateArgs&, CliContext&);
  };
  const Sub subs[] = {
      {"diff", "List what the agent changed in its directories against your own copy (flagged: what its CLI runs on your machine)", diff_cmd},
      {"apply", "Apply the agent's changes to your own copy (the safe ones, or the named PATHs; a flagged one only when named)", apply_cmd},
      {"reset", "Drop the agent's state (or the named PATHs of it): your own copy shows again", reset_cmd},
  };
  for (const auto& sub : subs) {
    auto* cmd = group->add_subcommand(sub.name, sub.help);
    auto args = std::make_shared<StateArgs>();
    cmd->add_option("agent", args->agent, "Agent preset (claude-code, codex, ...)")->required()->type_name("AGENT");
    cmd->add_option("paths", args->paths, "Only these paths (and what is below them)")->type_name("PATH");
    cmd->add_option("--profile", args->profile, "The built-in profile whose state it is (default: default)");
    cmd->add_flag("--json", args->as_json, "Machine-readable output");
    if (std::string(sub.name) == "diff") {
      cmd->add_flag("--diff", args->diff, "Show the text diff of each changed file");
      cmd->add_flag("--all", args->all, "List its own history, logins and caches too");
    }
    cmd->callback([&ctx, args, fn = sub.fn] { ctx.exit_code = fn(*args, ctx); });
  }
}

}  // namespace paddock::cli
