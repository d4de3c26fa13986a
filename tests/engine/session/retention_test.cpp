// How long session records stay (engine/session/retention.h): a session that ended longer ago
// than the setting may go, one that runs, holds changes for review or does not read never does,
// and the setting's file is read strictly.
#include <QtTest>

#include "engine/session/retention.h"

using namespace paddock::session;

namespace {

SessionSummary ended(const std::string& when) {
  SessionSummary s;
  s.id = "20261101T000000Z-aaaaaaaaaaaa";
  s.state = SessionState::kExited;
  Report r;
  r.ended = when;
  s.report = r;
  return s;
}

}  // namespace

class RetentionTest : public QObject {
  Q_OBJECT
 private slots:
  void utc_stamps_parse_to_epoch_seconds() {
    QCOMPARE(*parse_utc("1970-01-01T00:00:00Z"), std::int64_t{0});
    QCOMPARE(*parse_utc("2026-12-04T06:11:07.812Z"), std::int64_t{1796364667});
    QCOMPARE(*parse_utc("2000-03-01T00:00:00Z"), std::int64_t{951868800});
    for (const char* bad : {"", "2026-12-04", "2026-13-04T00:00:00Z", "2026-12-04T25:00:00Z", "2026-12-04T00:00:00"})
      QVERIFY2(!parse_utc(bad), bad);
  }

  void a_session_that_ended_before_the_retention_goes_and_a_recent_one_stays() {
    const std::int64_t now = *parse_utc("2026-12-31T00:00:00Z");
    QVERIFY(prunable(ended("2026-11-01T00:00:00.000Z"), false, now, {30}));
    QVERIFY(!prunable(ended("2026-12-20T00:00:00.000Z"), false, now, {30}));
    QVERIFY(prunable(ended("2026-12-20T00:00:00.000Z"), false, now, {0}));
  }

  void running_unreadable_and_reviewing_sessions_are_kept() {
    const std::int64_t now = *parse_utc("2027-06-01T00:00:00Z");
    QVERIFY(!prunable(ended("2026-11-01T00:00:00.000Z"), /*holds_review=*/true, now, {0}));
    SessionSummary running = ended("2026-11-01T00:00:00.000Z");
    running.state = SessionState::kRunning;
    QVERIFY(!prunable(running, false, now, {0}));
    SessionSummary unreadable = ended("2026-11-01T00:00:00.000Z");
    unreadable.state = SessionState::kUnreadable;
    QVERIFY(!prunable(unreadable, false, now, {0}));
  }

  void an_abandoned_session_counts_from_its_start_or_its_id() {
    SessionSummary s;
    s.id = "20261101T000000Z-aaaaaaaaaaaa";
    s.state = SessionState::kAbandoned;
    QVERIFY(prunable(s, false, *parse_utc("2026-12-31T00:00:00Z"), {30}));
    QVERIFY(!prunable(s, false, *parse_utc("2026-11-15T00:00:00Z"), {30}));
  }

  void the_setting_reads_strictly() {
    auto r = decode_retention(encode_retention({7}));
    QVERIFY(r.ok());
    QCOMPARE(r->keep_days, 7);
    QVERIFY(!decode_retention(R"({"version":1,"keep_days":-1})").ok());
    QVERIFY(!decode_retention(R"({"version":1,"keep":3})").ok());
    QVERIFY(!decode_retention("not json").ok());
  }
};

QTEST_APPLESS_MAIN(RetentionTest)
#include "retention_test.moc"
