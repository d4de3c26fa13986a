// paddock-gui's own command line: --help and --version, answered before any Qt object exists so
// that they work without a display (the package build makes the paddock-gui(1) man page from
// them, installers/linux/help_to_man.cmake). Everything else on the command line is Qt's.
#pragma once

#include <cstdio>
#include <string_view>

namespace paddock::gui {

inline constexpr const char* kHelpText =
    "Usage: paddock-gui [--help] [--version] [Qt options]\n"
    "\n"
    "The Paddock desktop app: run AI coding agents inside an OS sandbox and see exactly what they may touch.\n"
    "\n"
    "Pick a project folder and an agent, review the effective policy (files, network domains,\n"
    "environment variables, limits) and launch the agent inside the sandbox that paddock-helper\n"
    "applies. Sessions started from the command line ('paddock run') appear here too, with their\n"
    "live network log and a Stop button; the tray icon shows the running ones.\n"
    "\n"
    "Options:\n"
    "  -h, --help     Print this help and exit\n"
    "  --version      Print the version and exit\n"
    "\n"
    "Qt's own options (-platform NAME, -style NAME, ...) are passed to Qt. paddock-gui needs a\n"
    "graphical session (DISPLAY or WAYLAND_DISPLAY); without one it says so and exits 2.\n";

// The exit code when argv asks for --help or --version (printed on stdout), else -1.
inline int answer_help_or_version(int argc, char** argv, const char* version) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return std::fputs(kHelpText, stdout) < 0 ? 1 : 0;
    if (arg == "--version") return std::printf("paddock-gui %s\n", version) < 0 ? 1 : 0;
  }
  return -1;
}

}  // namespace paddock::gui
