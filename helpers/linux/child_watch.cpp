#include "helpers/linux/child_watch.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "helpers/linux/control_server.h"

namespace paddock::helper {

using Clock = std::chrono::steady_clock;

sigset_t watched_signals() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, sig);
  return mask;
}

ChildEnd watch_child(const ChildWatch& w) {
  ChildEnd end;
  const sigset_t mask = watched_signals();
  const int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  bool stop = false;
  Clock::time_point next_kill{};
  for (;;) {
    // Reap first: a child that ended before the signalfd existed sent its SIGCHLD already.
    int st = 0;
    rusage ru{};
    bool gone = false;
    for (pid_t p; (p = ::wait4(-1, &st, WNOHANG, &ru)) != 0;) {
      if (p < 0) {
        gone = errno == ECHILD;
        break;
      }
      if (p == w.child) {
        end.status = st;
        end.usage = ru;
      }
    }
    if (end.status || gone) break;
    if (w.stop_requested && *w.stop_requested) stop = end.stopped = true;
    if (w.deadline && !stop && Clock::now() >= *w.deadline) stop = end.timed_out = true;
    if (stop && Clock::now() >= next_kill) {
      if (w.kill) w.kill();
      next_kill = Clock::now() + std::chrono::seconds(1);
    }
    int wait_ms = 1000;
    if (w.deadline && !stop) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*w.deadline - Clock::now()).count();
      wait_ms = static_cast<int>(std::max<long long>(0, std::min<long long>(left, 1000)));
    }
    std::vector<pollfd> fds;
    if (sigfd >= 0) fds.push_back({sigfd, POLLIN, 0});
    if (w.control) w.control->add_poll_fds(fds);
    if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
      ::usleep(100000);  // cannot poll: wait in steps, still reaping
      continue;
    }
    if (w.control) w.control->handle(fds);
    for (signalfd_siginfo si{}; sigfd >= 0 && ::read(sigfd, &si, sizeof si) == sizeof si;) {
      const int sig = static_cast<int>(si.ssi_signo);
      if (sig == SIGTERM || sig == SIGHUP) stop = end.stopped = true;
      else if (sig == SIGINT || sig == SIGQUIT) {
        if (w.forward_interrupts) ::kill(w.child, sig);
        else stop = end.stopped = true;
      }
    }
  }
  if (sigfd >= 0) ::close(sigfd);
  return end;
}

}  // namespace paddock::helper
