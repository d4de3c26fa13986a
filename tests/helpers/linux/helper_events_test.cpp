// events.jsonl against an agent that floods it: the real helper, the real kernel, the egress
// broker answering an agent's retry loop of denied CONNECTs from inside the sandbox, as root and
// as uid 65534. Identical denials fold into a few counted lines; distinct ones fill the log to
// its cap and no further (one notice says so, the rest are counted as dropped), and the report
// and session_ended are intact either way.
#include <QtTest>

#include <sstream>

#include "engine/session/event.h"
#include "engine/session/event_folder.h"
#include "engine/session/report.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;

namespace {

struct Log {
  std::int64_t bytes = 0;
  std::vector<session::Event> events;
  int unreadable = 0;
};

Log read_log(const std::string& path) {
  Log log;
  const std::string text = slurp(path);
  log.bytes = static_cast<std::int64_t>(text.size());
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto e = session::decode_event(line);
    if (e.ok()) log.events.push_back(std::move(*e));
    else ++log.unreadable;
  }
  return log;
}

std::int64_t denials(const Log& log) {
  std::int64_t n = 0;
  for (const auto& e : log.events)
    if (e.type == session::EventType::kNetRequest && e.fields.value("decision", "") == "deny") n += e.count;
  return n;
}

}  // namespace

class HelperEventsTest : public QObject {
  Q_OBJECT
  SandboxFixture fixture_;

  // The agent floods the broker with `count` denied CONNECTs; returns the session's files.
  HelperInvocation flood(long count, bool distinct, ProcessResult* r) {
    FrozenIr ir = base_ir(fixture_);
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"allowed.example"};
    normalize(ir);
    HelperInvocation h = prepare_helper(fixture_, ir, {fixture_.probe_tool(), "deny-flood", "3128",
                                                       std::to_string(count), distinct ? "distinct" : "same"});
    RunOptions o;
    o.timeout_ms = 240000;
    *r = run_process(h.argv(), o);
    return h;
  }

 private slots:
  void cleanup() {
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void repeated_identical_denials_fold_into_a_few_counted_lines_data() { add_uid_rows(); }
  void repeated_identical_denials_fold_into_a_few_counted_lines() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const long count = 3000;
    ProcessResult r;
    HelperInvocation h = flood(count, /*distinct=*/false, &r);
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("flood:ok:" + std::to_string(count)) != std::string::npos, dump(r));
    const Log log = read_log(h.session_dir + "/events.jsonl");
    QCOMPARE(log.unreadable, 0);
    int lines = 0;
    for (const auto& e : log.events) lines += e.type == session::EventType::kNetRequest;
    // The first denial at once, then one counted line per fold window (a few at most here).
    QVERIFY2(lines >= 1 && lines <= 20, std::to_string(lines).c_str());
    QCOMPARE(denials(log), std::int64_t{count});  // every denial accounted for
    auto report = session::decode_report(slurp(h.session_dir + "/report.json"));
    QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
    QVERIFY(report->status == session::ReportStatus::kExited);
    QCOMPARE(report->events_dropped, std::int64_t{0});
    QVERIFY(log.events.back().type == session::EventType::kSessionEnded);
  }

  void a_flood_of_distinct_denials_stops_at_the_cap_and_the_report_is_intact_data() { add_uid_rows(); }
  void a_flood_of_distinct_denials_stops_at_the_cap_and_the_report_is_intact() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    // Each denial of a ~250-character host is a line of about 800 bytes: 14,000 of them would
    // write some 11 MiB.
    const long count = 14000;
    ProcessResult r;
    HelperInvocation h = flood(count, /*distinct=*/true, &r);
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("flood:ok:" + std::to_string(count)) != std::string::npos, dump(r));
    const Log log = read_log(h.session_dir + "/events.jsonl");
    QVERIFY2(log.bytes <= session::kEventLogCap, std::to_string(log.bytes).c_str());
    QVERIFY2(log.bytes > session::kEventLogCap / 2, std::to_string(log.bytes).c_str());  // it was reached
    QCOMPARE(log.unreadable, 0);
    int notices = 0;
    for (const auto& e : log.events)
      notices += e.type == session::EventType::kNotice && e.fields.value("kind", "") == "event_log_capped";
    QCOMPARE(notices, 1);
    auto report = session::decode_report(slurp(h.session_dir + "/report.json"));
    QVERIFY2(report.ok(), report.ok() ? "" : report.error().message.c_str());
    QVERIFY(report->status == session::ReportStatus::kExited);
    QCOMPARE(report->exit_code, 0);
    QVERIFY(report->attested);
    QVERIFY(report->events_dropped > 0);
    // What was written and what was counted make up every denial.
    QCOMPARE(denials(log) + report->events_dropped, std::int64_t{count});
    const session::Event& last = log.events.back();
    QVERIFY(last.type == session::EventType::kSessionEnded);
    auto ended = session::report_from_event(last);
    QVERIFY(ended.ok());
    QCOMPARE(ended->events_dropped, report->events_dropped);
  }
};

QTEST_GUILESS_MAIN(HelperEventsTest)
#include "helper_events_test.moc"
