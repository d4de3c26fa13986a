// One reader behind `paddock sessions` and the app's list: what each combination of session
// files means, in the documented words, and that a file which does not read or parse makes the
// session "unreadable", naming the file — never a crash, never a guess.
#include <QtTest>

#include "engine/session/event.h"
#include "engine/session/summary.h"

using namespace paddock::session;

namespace {

std::string started_line() {
  SessionStarted s;
  s.session_id = "s1";
  s.command = {"claude", "--resume"};
  s.ir_hash = "sha256:11";
  Event e = make_event(s);
  e.ts = "2026-11-29T23:05:01.000Z";
  return encode_event(e) + "\n";
}

std::string report(ReportStatus status, int code) {
  Report r;
  r.session_id = "s1";
  r.status = status;
  r.exit_code = code;
  return encode_report(r);
}

}  // namespace

class SummaryTest : public QObject {
  Q_OBJECT
 private slots:
  void a_finished_session_shows_its_report_and_its_start() {
    SessionFiles f;
    f.events_head = started_line() + R"({"event":"notice","ts":"t","level":"info","message":"x"})" "\n";
    f.report = report(ReportStatus::kExited, 3);
    auto s = summarize("s1", f);
    QCOMPARE(std::string(to_string(s.state)), std::string("exited"));
    QCOMPARE(*s.exit_code, 3);
    QCOMPARE(s.command, (std::vector<std::string>{"claude", "--resume"}));
    QCOMPARE(s.ir_hash, std::string("sha256:11"));
    QCOMPARE(s.started, std::string("2026-11-29T23:05:01.000Z"));
    QVERIFY(s.problem.empty());
    auto j = summary_json(s);
    QCOMPARE(j["status"].get<std::string>(), std::string("exited"));
    QVERIFY(!j.contains("problem"));
  }

  void without_a_report_a_session_is_running_or_abandoned() {
    SessionFiles f;
    f.events_head = started_line();
    f.live = true;
    QCOMPARE(std::string(to_string(summarize("s1", f).state)), std::string("running"));
    f.live = false;
    auto gone = summarize("s1", f);
    QCOMPARE(std::string(to_string(gone.state)), std::string("abandoned"));
    QVERIFY(!gone.exit_code);
    // A first line still being written is not judged.
    f.events_head = started_line().substr(0, 30);
    QCOMPARE(std::string(to_string(summarize("s1", f).state)), std::string("abandoned"));
    // A session refused before it started has no session_started, and that is fine.
    SessionFiles refused;
    refused.events_head = R"({"event":"notice","ts":"t","level":"error","message":"no"})" "\n";
    refused.report = report(ReportStatus::kFailed, 125);
    QCOMPARE(std::string(to_string(summarize("s1", refused).state)), std::string("failed"));
  }

  void a_type_confused_report_is_unreadable_and_named() {
    const char* reports[] = {R"({"session_id":"s1","status":["exited"],"exit_code":0})",
                             R"({"session_id":"s1","status":"exited","exit_code":{"x":1}})",
                             R"({"session_id":"s1","status":"exited","exit_code":0,"usage":7})",
                             "not json at all", "", "null"};
    for (const char* r : reports) {
      SessionFiles f;
      f.events_head = started_line();
      f.report = r;
      auto s = summarize("s1", f);
      QCOMPARE(std::string(to_string(s.state)), std::string("unreadable"));
      QVERIFY2(s.problem.rfind("report.json", 0) == 0, s.problem.c_str());
      QVERIFY(!s.exit_code);
      QCOMPARE(summary_json(s)["problem"].get<std::string>(), s.problem);
    }
  }

  void a_first_event_line_that_does_not_read_is_unreadable_too() {
    for (const char* head : {"garbage\n", R"({"event":"session_started","ts":"t","command":[1,2]})" "\n",
                             R"({"event":"session_started","ts":7})" "\n", "[]\n"}) {
      SessionFiles f;
      f.events_head = head;
      f.report = report(ReportStatus::kExited, 0);
      auto s = summarize("s1", f);
      QCOMPARE(std::string(to_string(s.state)), std::string("unreadable"));
      QVERIFY2(s.problem.find("events.jsonl") != std::string::npos, s.problem.c_str());
    }
  }

  void a_file_that_cannot_be_read_is_named() {
    SessionFiles f;
    f.read_error = "cannot read /s/report.json: Permission denied";
    auto s = summarize("s1", f);
    QCOMPARE(std::string(to_string(s.state)), std::string("unreadable"));
    QCOMPARE(s.problem, f.read_error);
  }
};

QTEST_APPLESS_MAIN(SummaryTest)
#include "summary_test.moc"
