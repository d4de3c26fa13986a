// A review-mode session's records (engine/session/review_record.h): each file's one encoder and
// decoder round-trip, paths that are not UTF-8 survive byte for byte, and anything else in the
// files is an error naming the file and the field, never a guess.
#include <QtTest>

#include "engine/session/review_record.h"

using namespace paddock::session;

class ReviewRecordTest : public QObject {
  Q_OBJECT
 private slots:
  void the_roots_record_round_trips_with_a_path_that_is_not_utf8() {
    ReviewRoots r;
    r.started_ns = 1796364654201302890;
    r.roots = {{0, "/home/u/proj"}, {1, std::string("/home/u/caf\xe9")}};
    auto back = decode_review_roots(encode_review_roots(r));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == r);
  }

  void decisions_round_trip_and_the_latest_per_path_wins() {
    ReviewState s;
    s.set({"/p/b", Decision::kDiscarded, {7, 8, 9}, std::nullopt, "2026-12-01T00:00:00.000Z"});
    s.set({"/p/a", Decision::kApplied, {1, 2, 3}, FileStamp{4, 5, 6}, "2026-12-01T00:00:01.000Z"});
    s.set({"/p/b", Decision::kApplied, {7, 8, 10}, std::nullopt, "2026-12-01T00:00:02.000Z"});
    QCOMPARE(s.decisions.size(), std::size_t{2});
    QCOMPARE(s.decisions[0].path, std::string("/p/a"));
    QVERIFY(s.find("/p/b")->decision == Decision::kApplied);
    QVERIFY(!s.find("/p/c"));
    auto back = decode_review_state(encode_review_state(s));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == s);
  }

  void the_journal_round_trips() {
    ApplyJournal j;
    j.started = "2026-12-01T00:00:00.000Z";
    j.paths = {"/p/a", "/p/b"};
    j.temps = {"/p/.a.paddock-apply-1-2-0"};
    auto back = decode_apply_journal(encode_apply_journal(j));
    QVERIFY(back.ok());
    QVERIFY(*back == j);
  }

  void records_that_are_not_what_paddock_writes_are_errors_naming_the_file() {
    for (const char* bad : {"", "[]", "{\"version\":1}", "{\"version\":2,\"started_ns\":1,\"roots\":[]}",
                            "{\"version\":1,\"started_ns\":1,\"roots\":[{\"index\":0,\"root\":\"relative\"}]}",
                            "{\"version\":1,\"started_ns\":1,\"roots\":[],\"extra\":1}"}) {
      auto r = decode_review_roots(bad);
      QVERIFY2(!r.ok(), bad);
      QVERIFY(r.error().message.find("roots.json") != std::string::npos);
    }
    auto s = decode_review_state(R"({"version":1,"decisions":[{"path":"/a","decision":"kept","upper":{"ino":1,"size":1,"ctime_ns":1},"host":null,"ts":""}]})");
    QVERIFY(!s.ok());
    QVERIFY(s.error().message.find("decision") != std::string::npos);
    QVERIFY(!decode_apply_journal("{\"version\":1}").ok());
  }

  void the_layers_live_in_the_sessions_review_directory() {
    QCOMPARE(review_upper("/s/x", 2), std::string("/s/x/review/2/upper"));
    QCOMPARE(review_work("/s/x", 0), std::string("/s/x/review/0/work"));
    QCOMPARE(review_roots_file("/s/x"), std::string("/s/x/review/roots.json"));
  }
};

QTEST_APPLESS_MAIN(ReviewRecordTest)
#include "review_record_test.moc"
