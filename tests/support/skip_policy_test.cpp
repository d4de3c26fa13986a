// Every skip goes through tests/support/skip.h, which records its class (kernel or user fact)
// and its reason for scripts/test's summary: a bare QSKIP anywhere in the tests fails here, and
// the record itself is checked against the message it prints.
#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/skip.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

namespace fs = std::filesystem;
using namespace paddock::test;

class SkipPolicyTest : public QObject {
  Q_OBJECT
 private slots:
  void no_test_skips_except_through_the_skip_helper() {
    const fs::path tests = fs::path(paddock::test::source_dir()) / "tests";
    const fs::path allowed = tests / "support" / "skip.h";
    std::vector<std::string> offenders;
    for (const auto& e : fs::recursive_directory_iterator(tests)) {
      if (!e.is_regular_file()) continue;
      const auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".h" && ext != ".qml" && ext != ".js") continue;
      if (e.path() == allowed || e.path().filename() == "skip_policy_test.cpp") continue;
      std::istringstream in(slurp(e.path().string()));
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.find("QSKIP(") != std::string::npos || line.find("qSkip(") != std::string::npos ||
            line.find("skip(\"") != std::string::npos)
          offenders.push_back(e.path().string() + ":" + std::to_string(n) + ": " + line);
      }
    }
    std::string all;
    for (const auto& o : offenders) all += o + "\n";
    QVERIFY2(offenders.empty(), ("skip through tests/support/skip.h (PADDOCK_SKIP_KERNEL or PADDOCK_SKIP_USER):\n" + all).c_str());
  }

  void a_skip_is_recorded_with_its_class_and_reason() {
    QTemporaryDir dir;
    const std::string log = dir.filePath("skips").toStdString();
    qputenv("PADDOCK_SKIP_LOG", QByteArray::fromStdString(log));
    record_skip(SkipFact::kKernel, "no Landlock\nhere", "some_case", "root");
    record_skip(SkipFact::kUser, "not root", "other_case", "");
    qunsetenv("PADDOCK_SKIP_LOG");
    record_skip(SkipFact::kUser, "not recorded: no log");
    const std::string text = slurp(log);
    QVERIFY2(text.find("kernel\t") == 0, text.c_str());
    QVERIFY2(text.find(" some_case(root)\tno Landlock here\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("user\t") != std::string::npos && text.find(" other_case()\tnot root\n") != std::string::npos,
             text.c_str());
    QVERIFY(text.find("not recorded") == std::string::npos);
    QCOMPARE(skip_message(SkipFact::kKernel, "x"), std::string("[kernel] x"));
    QCOMPARE(skip_message(SkipFact::kUser, "y"), std::string("[user] y"));
  }
};

QTEST_APPLESS_MAIN(SkipPolicyTest)
#include "skip_policy_test.moc"
