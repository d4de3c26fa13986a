// A front end to review mode's platform code for the helper tests, run as the uid under test (the
// user's own apply): lists a session's change set or applies or discards it, printing JSON.
// --kill-after N ends this process with SIGKILL right after the N-th change an apply put in place,
// to show that an interrupted apply leaves every file old or new and is finished by the next one.
//
//   review_tool list|apply|discard SESSION_DIR RESOURCES_DIR [--running] [--kill-after N] [PATH...]
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/review/review_apply.h"
#include "platform/review/review_session.h"

namespace {

std::size_t g_kill_after = 0;

void maybe_kill(std::size_t done) {
  if (g_kill_after != 0 && done >= g_kill_after) ::kill(::getpid(), SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: review_tool list|apply|discard SESSION_DIR RESOURCES_DIR [--running] [--kill-after N] [PATH...]\n";
    return 2;
  }
  const std::string verb = argv[1], dir = argv[2], resources = argv[3];
  bool running = false;
  paddock::platform::ReviewSelection sel;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--running") running = true;
    else if (a == "--kill-after" && i + 1 < argc) g_kill_after = std::strtoul(argv[++i], nullptr, 10);
    else sel.paths.push_back(a);
  }
  const std::string id = dir.substr(dir.rfind('/') + 1);
  auto loaded = paddock::platform::load_review(dir, id, resources, running);
  if (!loaded.ok()) {
    std::cerr << loaded.error().message << "\n";
    return 1;
  }
  if (verb == "list") {
    std::cout << paddock::review::to_json(loaded->changes).dump() << "\n";
    return 0;
  }
  auto outcome = verb == "apply"
                     ? paddock::platform::apply_changes(loaded->session, loaded->changes, sel, g_kill_after ? maybe_kill : nullptr,
                                                        paddock::platform::LayerUse::kOnce)
                     : paddock::platform::discard_changes(loaded->session, loaded->changes, sel);
  if (!outcome.ok()) {
    std::cerr << outcome.error().message << "\n";
    return 1;
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [p, why] : outcome->skipped) skipped.push_back({{"path", p}, {"why", why}});
  std::cout << nlohmann::json{{"done", outcome->done}, {"skipped", skipped}, {"freed", outcome->freed}}.dump() << "\n";
  return 0;
}
