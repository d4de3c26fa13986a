// The wait for a session whose sandbox is one child process of the helper's (the landlock tier's
// agent, an OCI runtime's `run`): the control socket is served meanwhile, the wall-time deadline
// and a stop (the control socket's, or SIGTERM/SIGHUP to the helper) end the child's tree through
// the caller's `kill`, asked again each second until the child is gone. The caller blocks the
// signals of `watched_signals()` before it forks (the child unblocks them before exec).
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>

namespace paddock::helper {

class ControlServer;

struct ChildWatch {
  pid_t child = -1;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  ControlServer* control = nullptr;      // served while the child runs; null: none
  const bool* stop_requested = nullptr;  // set by the control server's stop handler
  std::function<void()> kill;            // ends the child's whole tree
  // SIGINT and SIGQUIT sent to the helper: passed on to the child (true), or a stop (false).
  bool forward_interrupts = false;
};

struct ChildEnd {
  std::optional<int> status;  // the child's wait status; none if waiting failed
  rusage usage{};             // the child's, with every descendant it waited for
  bool timed_out = false;
  bool stopped = false;
};

// SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT.
sigset_t watched_signals();

// Returns once the child has ended. Other children this process reaps meanwhile (processes
// reparented to a subreaper) are reaped and forgotten.
ChildEnd watch_child(const ChildWatch& w);

}  // namespace paddock::helper
