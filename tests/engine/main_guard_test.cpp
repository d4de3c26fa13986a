// engine/main_guard.h: an exception that reaches main ends the program with one line on stderr
// and a fail-closed exit code, never std::terminate.
#include <unistd.h>

#include <QTemporaryFile>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "engine/main_guard.h"

using namespace paddock;

namespace {

// Runs guarded_main(body) with stderr sent to a file; returns {exit code, what it printed}.
template <class Body>
std::pair<int, std::string> guarded(Body&& body) {
  QTemporaryFile file;
  if (!file.open()) qFatal("no temp file");
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(file.handle(), 2);
  const int code = guarded_main("paddock-test", std::forward<Body>(body));
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  file.seek(0);
  return {code, file.readAll().toStdString()};
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

class MainGuardTest : public QObject {
  Q_OBJECT
 private slots:
  void the_bodys_exit_code_passes_through() {
    auto [code, err] = guarded([] { return 7; });
    QCOMPARE(code, 7);
    QVERIFY(err.empty());
  }

  void an_exception_is_one_line_and_exit_125() {
    auto [code, err] = guarded([]() -> int { throw std::runtime_error("type_error 316\nsecond line"); });
    QCOMPARE(code, 125);
    QCOMPARE(lines(err), 1);
    QVERIFY2(err.rfind("paddock-test: ", 0) == 0 && err.find("type_error 316 second line") != std::string::npos,
             err.c_str());
  }

  void an_exception_of_any_type_is_caught() {
    auto [code, err] = guarded([]() -> int { throw 42; });
    QCOMPARE(code, 125);
    QCOMPARE(lines(err), 1);
  }

  void unparseable_json_input_is_exit_2() {
    auto [code, err] = guarded([]() -> int { return nlohmann::json::parse("{not json").size() > 0 ? 0 : 1; });
    QCOMPARE(code, 2);
    QCOMPARE(lines(err), 1);
  }
};

QTEST_APPLESS_MAIN(MainGuardTest)
#include "main_guard_test.moc"
