#include <QtTest>

#include "tests/support/process_runner.h"

using paddock::test::run_process;

namespace {
int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

class CliUsageTest : public QObject {
  Q_OBJECT
 private slots:
  void version_prints_the_version_and_exits_zero() {
    auto r = run_process({paddock::test::paddock_bin(), "--version"});
    QCOMPARE(r.exit_code, 0);
    QVERIFY2(r.out.rfind("paddock ", 0) == 0, r.out.c_str());
  }

  void an_unknown_command_prints_one_line_and_exits_2() {
    auto r = run_process({paddock::test::paddock_bin(), "frobnicate"});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
    QVERIFY2(r.err.find("frobnicate") != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());
  }

  void an_unknown_flag_prints_one_line_and_exits_2() {
    auto r = run_process({paddock::test::paddock_bin(), "doctor", "--frob"});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
    QVERIFY2(r.err.find("--frob") != std::string::npos, r.err.c_str());
  }

  void no_command_at_all_is_a_usage_error() {
    auto r = run_process({paddock::test::paddock_bin()});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
  }

  void help_exits_zero() {
    auto r = run_process({paddock::test::paddock_bin(), "--help"});
    QCOMPARE(r.exit_code, 0);
    QVERIFY(r.out.find("doctor") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(CliUsageTest)
#include "cli_usage_test.moc"
