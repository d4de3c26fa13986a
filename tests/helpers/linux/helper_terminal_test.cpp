// The terminal a session is started from, with a real pseudo-terminal as the controlling
// terminal of the real helper: an agent whose input is redirected away from it cannot reach it
// through /dev/tty, and modes the agent changes (stty -echo -icanon) are put back when it exits,
// also when it is killed. Each case as root and as uid 65534.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <QtTest>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;

namespace {

struct Pty {
  int master = -1;
  std::string slave;
  ~Pty() {
    if (master >= 0) ::close(master);
  }
};

bool open_pty(Pty& p) {
  p.master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (p.master < 0 || ::grantpt(p.master) != 0 || ::unlockpt(p.master) != 0) return false;
  const char* name = ::ptsname(p.master);
  if (!name) return false;
  p.slave = name;
  return true;
}

// Runs argv in a new session whose controlling terminal is the pty's slave, with stdin the
// terminal or /dev/null, and stdout and stderr to `log`; returns the exit code.
int run_on_terminal(const std::vector<std::string>& argv, const std::string& slave, bool stdin_is_terminal,
                    const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    int tty = ::open(slave.c_str(), O_RDWR);
    if (tty < 0 || ::ioctl(tty, TIOCSCTTY, 0) != 0) _exit(90);
    int in = stdin_is_terminal ? tty : ::open("/dev/null", O_RDONLY);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) _exit(91);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::setenv("LANG", "C.UTF-8", 1);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

tcflag_t local_modes(const std::string& slave) {
  int fd = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
  termios t{};
  const bool ok = fd >= 0 && ::tcgetattr(fd, &t) == 0;
  if (fd >= 0) ::close(fd);
  return ok ? t.c_lflag : 0;
}

}  // namespace

class HelperTerminalTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;

 private slots:
  void cleanup() {
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void an_agent_whose_input_is_not_the_terminal_cannot_open_dev_tty_data() { add_uid_rows(); }
  void an_agent_whose_input_is_not_the_terminal_cannot_open_dev_tty() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    Pty pty;
    QVERIFY(open_pty(pty));
    const std::string log = fixture_.root + "/log";
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {fixture_.probe_tool(), "tty"});
    int code = run_on_terminal(h.argv(), pty.slave, /*stdin_is_terminal=*/false, log);
    QVERIFY2(code == 0, slurp(log).c_str());
    QVERIFY2(slurp(log).find("tty:ENXIO") != std::string::npos, slurp(log).c_str());
    // With the terminal as its input the agent keeps it (an interactive agent needs it).
    h = prepare_helper(fixture_, base_ir(fixture_), {fixture_.probe_tool(), "tty"});
    code = run_on_terminal(h.argv(), pty.slave, /*stdin_is_terminal=*/true, log);
    QVERIFY2(code == 0, slurp(log).c_str());
    QVERIFY2(slurp(log).find("tty:ok") != std::string::npos, slurp(log).c_str());
  }

  void terminal_modes_the_agent_changed_are_restored_when_it_exits_data() { add_uid_rows(); }
  void terminal_modes_the_agent_changed_are_restored_when_it_exits() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    Pty pty;
    QVERIFY(open_pty(pty));
    const tcflag_t before = local_modes(pty.slave);
    QVERIFY((before & ECHO) && (before & ICANON));
    const std::string log = fixture_.root + "/log";
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {fixture_.probe_tool(), "tty-raw"});
    int code = run_on_terminal(h.argv(), pty.slave, /*stdin_is_terminal=*/true, log);
    QVERIFY2(code == 0, slurp(log).c_str());
    QVERIFY2(slurp(log).find("tty-raw:ok") != std::string::npos, slurp(log).c_str());
    const tcflag_t after = local_modes(pty.slave);
    QVERIFY2((after & ECHO) && (after & ICANON), "echo or canonical input stayed off after the session");
  }

  void terminal_modes_are_restored_when_the_agent_is_killed_data() { add_uid_rows(); }
  void terminal_modes_are_restored_when_the_agent_is_killed() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    Pty pty;
    QVERIFY(open_pty(pty));
    const std::string log = fixture_.root + "/log";
    HelperInvocation h =
        prepare_helper(fixture_, base_ir(fixture_), {fixture_.probe_tool(), "tty-raw", "hold"},
                       [](auto& a) { a.timeout_secs = 2; });
    int code = run_on_terminal(h.argv(), pty.slave, /*stdin_is_terminal=*/true, log);
    QVERIFY2(code == 124, slurp(log).c_str());
    QVERIFY2(slurp(log).find("tty-raw:ok") != std::string::npos, slurp(log).c_str());
    const tcflag_t after = local_modes(pty.slave);
    QVERIFY2((after & ECHO) && (after & ICANON), "echo or canonical input stayed off after the agent was killed");
  }
};

QTEST_GUILESS_MAIN(HelperTerminalTest)
#include "helper_terminal_test.moc"
