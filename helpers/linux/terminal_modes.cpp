#include "helpers/linux/terminal_modes.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace paddock::helper {

TerminalModes TerminalModes::save() {
  TerminalModes t;
  std::vector<dev_t> seen;
  for (int fd : {0, 1, 2}) {
    struct stat st {};
    termios modes{};
    if (!::isatty(fd) || ::fstat(fd, &st) != 0 || ::tcgetattr(fd, &modes) != 0) continue;
    bool dup = false;
    for (dev_t d : seen) dup = dup || d == st.st_rdev;
    if (dup) continue;
    seen.push_back(st.st_rdev);
    t.saved_.push_back({fd, modes});
  }
  return t;
}

void TerminalModes::restore() const {
  if (saved_.empty()) return;
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  ::pthread_sigmask(SIG_BLOCK, &ttou, &old);
  for (const auto& s : saved_)
    while (::tcsetattr(s.fd, TCSANOW, &s.modes) != 0 && errno == EINTR) {}
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace paddock::helper
