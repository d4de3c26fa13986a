// The terminal the session was started from, as it was: its modes (echo, canonical input, ...)
// saved before the sandbox exists and put back when the session ends, however the agent ended
// (an agent killed at a stop or a timeout never resets what it changed, `stty -echo` included).
#pragma once

#include <termios.h>

#include <vector>

namespace paddock::helper {

class TerminalModes {
 public:
  // Saves the modes of each of stdin, stdout and stderr that is a terminal (one per device).
  static TerminalModes save();
  // Puts them back, at once (TCSANOW: never waits for output to drain, which a flow-stopped
  // terminal would make forever). Also from a background process group: SIGTTOU is blocked meanwhile.
  void restore() const;

 private:
  struct Saved {
    int fd;
    termios modes;
  };
  std::vector<Saved> saved_;
};

}  // namespace paddock::helper
