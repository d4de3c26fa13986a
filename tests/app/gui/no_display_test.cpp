// Without a display, paddock-gui prints one line pointing at the CLI and exits 2 (before Qt
// would abort with a platform-plugin dump).
#include <QtTest>

#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

class NoDisplayTest : public QObject {
  Q_OBJECT
 private slots:
  void without_a_display_it_prints_one_line_naming_the_cli_and_exits_2() {
    paddock::test::RunOptions opts;
    opts.env_unset = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};
    auto r = paddock::test::run_process({paddock::test::build_bin() + "/paddock-gui"}, opts);
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.out.empty(), r.out.c_str());
    QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    QVERIFY2(r.err.find("no display") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("paddock --help") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("paddock explain") != std::string::npos, r.err.c_str());
  }

  void an_empty_display_variable_counts_as_no_display() {
    paddock::test::RunOptions opts;
    opts.env_unset = {"WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};
    opts.env_override = {{"DISPLAY", ""}};
    auto r = paddock::test::run_process({paddock::test::build_bin() + "/paddock-gui"}, opts);
    QCOMPARE(r.exit_code, 2);
  }
};

QTEST_GUILESS_MAIN(NoDisplayTest)
#include "no_display_test.moc"
