#include "display_check.h"

extern char** environ;

namespace paddock::gui {

bool has_display(const std::map<std::string, std::string>& environment) {
  for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
    auto it = environment.find(name);
    if (it != environment.end() && !it->second.empty()) return true;
  }
  return false;
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

}  // namespace paddock::gui
