// Decides, before any Qt GUI object exists, whether there is a display to open a window on.
// Without one, Qt would abort with a long platform-plugin message; we print one line that says
// what to use instead and exit 2 (bad input / usage, docs/cli.md).
#pragma once

#include <map>
#include <string>

namespace paddock::gui {

// True when QT_QPA_PLATFORM names a platform, or DISPLAY / WAYLAND_DISPLAY is set and non-empty.
bool has_display(const std::map<std::string, std::string>& environment);
std::map<std::string, std::string> process_environment();

inline constexpr const char* kNoDisplayMessage =
    "paddock-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset); use the command line "
    "instead: 'paddock --help', or 'paddock explain --project DIR' to see a policy\n";

}  // namespace paddock::gui
