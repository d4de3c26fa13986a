// A front end to the agent state's platform code for the helper tests, run as the uid under test
// (the user's own `paddock agent-state`): lists the state's change set against the user's own
// directories, applies it or resets it, printing JSON. The IR is a session's ir.json (its
// fs.agent_state names the state and the agent's directories).
//
//   agent_state_tool list|apply|reset IR_JSON RESOURCES_DIR [--all] [PATH...]
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/agent_state_review.h"
#include "platform/review/review_apply.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: agent_state_tool list|apply|reset IR_JSON RESOURCES_DIR [--all] [PATH...]\n";
    return 2;
  }
  const std::string verb = argv[1], ir_file = argv[2], resources = argv[3];
  bool all = false;
  std::vector<std::string> paths;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--all") all = true;
    else paths.push_back(a);
  }
  std::ifstream in(ir_file);
  std::stringstream text;
  text << in.rdbuf();
  auto ir = paddock::ir_from_json(nlohmann::json::parse(text.str(), nullptr, false));
  if (!ir.ok()) {
    std::cerr << ir.error().message << "\n";
    return 1;
  }
  auto v = paddock::platform::load_agent_state(*ir, resources, all || verb == "reset");
  if (!v.ok()) {
    std::cerr << v.error().message << "\n";
    return 1;
  }
  if (verb == "list") {
    nlohmann::json j = paddock::review::to_json(v->changes);
    j["own_changes"] = v->own_changes;
    j["running"] = v->running;
    std::cout << j.dump() << "\n";
    return 0;
  }
  if (v->running) {
    std::cerr << "a session is running\n";
    return 3;
  }
  if (verb == "reset") {
    if (auto s = paddock::platform::reset_agent_state(v->state, paths); !s.ok()) {
      std::cerr << s.error().message << "\n";
      return 1;
    }
    std::cout << "{}\n";
    return 0;
  }
  paddock::platform::ReviewSelection sel;
  sel.paths = paths;
  auto outcome = paddock::platform::apply_changes(v->state, v->changes, sel);
  if (!outcome.ok()) {
    std::cerr << outcome.error().message << "\n";
    return 1;
  }
  if (auto s = paddock::platform::drop_applied(v->state, outcome->done); !s.ok()) {
    std::cerr << s.error().message << "\n";
    return 1;
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [p, why] : outcome->skipped) skipped.push_back({{"path", p}, {"why", why}});
  std::cout << nlohmann::json{{"done", outcome->done}, {"skipped", skipped}}.dump() << "\n";
  return 0;
}
