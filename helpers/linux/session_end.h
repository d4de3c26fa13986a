// What a session's end means, as data: the exit code of docs/cli.md, the report's status, the
// signal that ended the agent and the limits its signals show. Pure (no system calls), so that
// every way a session can end is decided in one place and unit-tested
// (tests/helpers/linux/session_end_test.cpp).
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/session/report.h"
#include "engine/status.h"

namespace paddock::helper {

// The exit code a class of error stands for (engine/status.h gives each class its code).
constexpr int exit_code(ErrorCode c) { return static_cast<int>(c); }

// How the session ended, as the supervisor observed it.
struct SessionEnd {
  bool setup_failed = false;  // init or the helper reported a setup failure (the agent never ran)
  bool timed_out = false;     // the wall-time limit ended it (the helper's timer or init's keeper)
  bool stopped = false;       // a stop was requested (signal or control socket)
  bool attested = false;      // the attestation was stored before the agent's exec
  std::optional<int> agent_wait_status;  // from init's exit message; none when init died first
  int init_wait_status = 0;              // init's own wait status, used when the agent's is absent
};

struct SessionVerdict {
  int exit_code = 0;
  session::ReportStatus status = session::ReportStatus::kExited;
  int signal = 0;  // 0: not ended by a signal
};

SessionVerdict judge_session(const SessionEnd& end);

// The report's fields every kind of session fills alike from how it ended; the caller adds the
// usage, the limits hit and the credentials' use. `error` is the setup failure's message, or "".
session::Report report_of(const std::string& session_id, const SessionVerdict& verdict, const SessionEnd& end,
                          std::int64_t duration_ms, std::string ended, std::string error);

// cpu_ms (user + system) and max_rss (bytes) of a wait4 or getrusage record; pids is not in it.
session::Usage usage_of(const rusage& ru);

// A wait status as a shell reports it: the exit status, or 128 + the signal.
int exit_code_of_wait_status(int wait_status);

// The exit code of an agent whose exec failed with errno err: 127 not found, 126 otherwise.
int exec_failure_code(int err);

// The limits a signal that ended the agent stands for (RLIMIT_CPU, RLIMIT_FSIZE).
std::vector<std::string> limits_hit_by_signal(int signal);

}  // namespace paddock::helper
