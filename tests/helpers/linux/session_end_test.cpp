// How a session's end maps to its exit code, report status and signal (helpers/linux/
// session_end.h), without a sandbox: wait statuses are built the way the kernel encodes them.
#include <QtTest>

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>

#include "engine/status.h"
#include "helpers/linux/session_end.h"

using namespace paddock;
using namespace paddock::helper;
using session::ReportStatus;

namespace {

// The kernel's encoding (<bits/waitstatus.h>): exit code in bits 8..15, a signal in bits 0..6.
int exited(int code) { return (code & 0xff) << 8; }
int killed_by(int sig) { return sig & 0x7f; }

SessionEnd agent_ended(int wait_status) {
  SessionEnd e;
  e.attested = true;
  e.agent_wait_status = wait_status;
  return e;
}

}  // namespace

class SessionEndTest : public QObject {
  Q_OBJECT
 private slots:
  void the_encoding_used_here_is_the_kernels() {
    QVERIFY(WIFEXITED(exited(3)) && WEXITSTATUS(exited(3)) == 3);
    QVERIFY(WIFSIGNALED(killed_by(SIGKILL)) && WTERMSIG(killed_by(SIGKILL)) == SIGKILL);
  }

  void an_agent_that_exits_gives_its_own_code_and_the_status_exited() {
    for (int code : {0, 1, 2, 42, 125, 255}) {
      const SessionVerdict v = judge_session(agent_ended(exited(code)));
      QCOMPARE(v.exit_code, code);
      QCOMPARE(v.status, ReportStatus::kExited);
      QCOMPARE(v.signal, 0);
    }
  }

  void an_agent_killed_by_a_signal_gives_128_plus_it_and_names_it() {
    const SessionVerdict v = judge_session(agent_ended(killed_by(SIGSEGV)));
    QCOMPARE(v.exit_code, 128 + SIGSEGV);
    QCOMPARE(v.signal, SIGSEGV);
    QCOMPARE(v.status, ReportStatus::kExited);
  }

  void a_setup_failure_is_125_and_failed_whatever_else_happened() {
    SessionEnd e = agent_ended(exited(0));
    e.setup_failed = true;
    e.timed_out = true;
    e.stopped = true;
    const SessionVerdict v = judge_session(e);
    QCOMPARE(v.exit_code, exit_code(ErrorCode::kRefused));
    QCOMPARE(v.exit_code, 125);
    QCOMPARE(v.status, ReportStatus::kFailed);
  }

  void a_timeout_is_124_even_when_the_agent_was_killed_for_it() {
    SessionEnd e = agent_ended(killed_by(SIGKILL));
    e.timed_out = true;
    const SessionVerdict v = judge_session(e);
    QCOMPARE(v.exit_code, 124);
    QCOMPARE(v.status, ReportStatus::kTimeout);
    QCOMPARE(v.signal, 0);
  }

  void a_stopped_agent_keeps_its_code_and_reports_stopped() {
    SessionEnd e = agent_ended(killed_by(SIGTERM));
    e.stopped = true;
    const SessionVerdict v = judge_session(e);
    QCOMPARE(v.exit_code, 128 + SIGTERM);
    QCOMPARE(v.status, ReportStatus::kStopped);
  }

  void without_the_agents_status_inits_own_decides_and_the_session_failed() {
    SessionEnd e;
    e.attested = true;
    e.init_wait_status = killed_by(SIGKILL);
    SessionVerdict v = judge_session(e);
    QCOMPARE(v.exit_code, 128 + SIGKILL);
    QCOMPARE(v.signal, SIGKILL);
    QCOMPARE(v.status, ReportStatus::kFailed);
    e.stopped = true;
    QCOMPARE(judge_session(e).status, ReportStatus::kStopped);
    e.stopped = false;
    e.init_wait_status = exited(125);  // init's own setup failure, reported by its exit
    v = judge_session(e);
    QCOMPARE(v.exit_code, 125);
    QCOMPARE(v.status, ReportStatus::kFailed);
  }

  void an_exit_without_the_stored_attestation_is_never_a_success() {
    SessionEnd e = agent_ended(exited(0));
    e.attested = false;
    const SessionVerdict v = judge_session(e);
    QCOMPARE(v.exit_code, 0);
    QCOMPARE(v.status, ReportStatus::kFailed);
  }

  void an_exec_that_finds_nothing_is_127_and_any_other_failure_126() {
    QCOMPARE(exec_failure_code(ENOENT), 127);
    QCOMPARE(exec_failure_code(ENOTDIR), 127);
    QCOMPARE(exec_failure_code(EACCES), 126);
    QCOMPARE(exec_failure_code(ENOEXEC), 126);
  }

  void the_report_carries_the_verdict_and_an_error_only_when_there_is_one() {
    const SessionEnd end = agent_ended(killed_by(SIGTERM));
    const session::Report r = report_of("s1", judge_session(end), end, 1500, "2026-12-05T00:00:00Z", "");
    QCOMPARE(r.session_id, std::string("s1"));
    QCOMPARE(r.exit_code, 128 + SIGTERM);
    QCOMPARE(r.signal.value_or(0), SIGTERM);
    QCOMPARE(r.duration_ms, std::int64_t{1500});
    QVERIFY(r.attested);
    QVERIFY(!r.error);
    SessionEnd failed;
    failed.setup_failed = true;
    const session::Report f = report_of("s2", judge_session(failed), failed, 3, "t", "no Landlock");
    QCOMPARE(f.status, ReportStatus::kFailed);
    QCOMPARE(f.error.value_or(""), std::string("no Landlock"));
  }

  void usage_adds_user_and_system_time_and_gives_the_peak_in_bytes() {
    rusage ru{};
    ru.ru_utime = {1, 700000};
    ru.ru_stime = {0, 400000};
    ru.ru_maxrss = 2048;  // KiB
    const session::Usage u = usage_of(ru);
    QCOMPARE(u.cpu_ms, std::int64_t{2100});
    QCOMPARE(u.max_rss, std::int64_t{2 << 20});
    QCOMPARE(u.pids, std::int64_t{0});
  }

  void cpu_and_file_size_signals_name_their_limits_and_others_none() {
    QCOMPARE(limits_hit_by_signal(SIGXCPU), std::vector<std::string>{"cpu_seconds"});
    QCOMPARE(limits_hit_by_signal(SIGXFSZ), std::vector<std::string>{"file_size"});
    QVERIFY(limits_hit_by_signal(SIGKILL).empty());
    QVERIFY(limits_hit_by_signal(0).empty());
  }
};

QTEST_APPLESS_MAIN(SessionEndTest)
#include "session_end_test.moc"
