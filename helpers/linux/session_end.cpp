#include "helpers/linux/session_end.h"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>

namespace paddock::helper {

using session::ReportStatus;

int exit_code_of_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  return 128 + (WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0);
}

int exec_failure_code(int err) {
  return exit_code(err == ENOENT || err == ENOTDIR ? ErrorCode::kNotFound : ErrorCode::kPolicyBlocked);
}

SessionVerdict judge_session(const SessionEnd& end) {
  SessionVerdict v;
  if (end.setup_failed) {
    v.exit_code = exit_code(ErrorCode::kRefused);
    v.status = ReportStatus::kFailed;
  } else if (end.timed_out) {
    v.exit_code = exit_code(ErrorCode::kTimeout);
    v.status = ReportStatus::kTimeout;
  } else if (end.agent_wait_status) {
    const int st = *end.agent_wait_status;
    if (WIFSIGNALED(st)) v.signal = WTERMSIG(st);
    v.exit_code = exit_code_of_wait_status(st);
    if (end.stopped) v.status = ReportStatus::kStopped;
  } else {
    // Init is gone without the agent's status: it died during setup, or was killed.
    const int st = end.init_wait_status;
    if (WIFSIGNALED(st)) v.signal = WTERMSIG(st);
    v.exit_code = exit_code_of_wait_status(st);
    v.status = end.stopped ? ReportStatus::kStopped : ReportStatus::kFailed;
  }
  // An agent that never got its go-ahead did not run: whatever it "exited" with is no success.
  if (!end.attested && v.status == ReportStatus::kExited) v.status = ReportStatus::kFailed;
  return v;
}

std::vector<std::string> limits_hit_by_signal(int signal) {
  if (signal == SIGXCPU) return {"cpu_seconds"};
  if (signal == SIGXFSZ) return {"file_size"};
  return {};
}

session::Report report_of(const std::string& session_id, const SessionVerdict& verdict, const SessionEnd& end,
                          std::int64_t duration_ms, std::string ended, std::string error) {
  session::Report r;
  r.session_id = session_id;
  r.status = verdict.status;
  r.exit_code = verdict.exit_code;
  if (verdict.signal) r.signal = verdict.signal;
  r.duration_ms = duration_ms;
  r.attested = end.attested;
  r.ended = std::move(ended);
  if (!error.empty()) r.error = std::move(error);
  return r;
}

session::Usage usage_of(const rusage& ru) {
  session::Usage u;
  u.cpu_ms = (static_cast<std::int64_t>(ru.ru_utime.tv_sec) + ru.ru_stime.tv_sec) * 1000 +
             (static_cast<std::int64_t>(ru.ru_utime.tv_usec) + ru.ru_stime.tv_usec) / 1000;
  u.max_rss = static_cast<std::int64_t>(ru.ru_maxrss) * 1024;
  return u;
}

}  // namespace paddock::helper
