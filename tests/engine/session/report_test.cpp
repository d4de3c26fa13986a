// report.json's one encoder and one decoder. Whatever bytes sit in the file — not JSON, the
// wrong types (the report that made `paddock sessions` abort), unknown words, absurd nesting —
// the decoder answers with an error naming the file and the field; it never throws.
#include <QtTest>

#include "engine/session/report.h"

using namespace paddock::session;

class ReportTest : public QObject {
  Q_OBJECT

  static std::string error_of(const std::string& bytes) {
    auto r = decode_report(bytes);
    return r.ok() ? std::string() : r.error().message;
  }

 private slots:
  void a_report_round_trips_through_its_encoder_and_decoder() {
    Report r;
    r.session_id = "20261129T230501Z-1a2b3c4d5e6f";
    r.status = ReportStatus::kTimeout;
    r.exit_code = 124;
    r.signal = 9;
    r.duration_ms = 1234;
    r.attested = true;
    r.limits_hit = {"wall_time"};
    r.usage = {12, 3456789, 7};
    r.ended = "2026-11-29T23:05:03.123Z";
    r.error = "something";
    r.events_dropped = 42;
    r.config_changes = {{"/h/.claude/settings.json", "hooks", "added"}};
    const std::string bytes = encode_report(r);
    QVERIFY(bytes.back() == '\n');
    auto back = decode_report(bytes);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->session_id, r.session_id);
    QVERIFY(back->status == r.status);
    QCOMPARE(back->exit_code, 124);
    QCOMPARE(*back->signal, 9);
    QCOMPARE(back->duration_ms, std::int64_t{1234});
    QVERIFY(back->attested);
    QCOMPARE(back->limits_hit, r.limits_hit);
    QVERIFY(back->config_changes == r.config_changes);
    QCOMPARE(back->usage.max_rss, std::int64_t{3456789});
    QCOMPARE(back->ended, r.ended);
    QCOMPARE(*back->error, std::string("something"));
    QCOMPARE(back->events_dropped, std::int64_t{42});
    QCOMPARE(encode_report(*back), bytes);
  }

  void the_status_words_are_exactly_four() {
    for (auto s : {ReportStatus::kExited, ReportStatus::kFailed, ReportStatus::kTimeout, ReportStatus::kStopped})
      QVERIFY(parse_report_status(to_string(s)) == s);
    for (const char* w : {"abandoned", "stale", "running", "EXITED", ""}) QVERIFY2(!parse_report_status(w), w);
  }

  void an_older_report_without_the_optional_fields_still_reads() {
    auto r = decode_report(R"({"session_id":"x","status":"failed","exit_code":125,"error":"cannot start"})");
    QVERIFY(r.ok());
    QCOMPARE(r->exit_code, 125);
    QVERIFY(!r->attested);
    QVERIFY(!r->signal);
  }

  void every_malformed_report_is_an_error_naming_the_file_and_the_field() {
    const std::pair<const char*, const char*> cases[] = {
        {"", "not JSON"},
        {"{\"session_id\":", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {"\"report\"", "not a JSON object"},
        {R"({"session_id":"x","status":7,"exit_code":0})", "status"},
        {R"({"session_id":"x","status":"stale","exit_code":0})", "status"},
        {R"({"session_id":"x","status":"exited","exit_code":"0"})", "exit_code"},
        {R"({"session_id":"x","status":"exited","exit_code":1e400})", ""},
        {R"({"session_id":"x","status":"exited","exit_code":4294967296})", "exit_code"},
        {R"({"session_id":"x","status":"exited","exit_code":0.5})", "exit_code"},
        {R"({"session_id":1,"status":"exited","exit_code":0})", "session_id"},
        {R"({"status":"exited","exit_code":0})", "session_id"},
        {R"({"session_id":"x","exit_code":0})", "status"},
        {R"({"session_id":"x","status":"exited"})", "exit_code"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"usage":[]})", "usage"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"usage":{"pids":"7"}})", "usage.pids"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"usage":{"cpu_ms":-1}})", "usage.cpu_ms"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"limits_hit":[1]})", "limits_hit[0]"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"limits_hit":"wall"})", "limits_hit"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"signal":"KILL"})", "signal"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"attested":1})", "attested"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"error":null})", "error"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"ended":5})", "ended"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"events_dropped":true})", "events_dropped"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"config_changes":{}})", "config_changes"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"config_changes":[1]})", "config_changes[0]"},
        {R"({"session_id":"x","status":"exited","exit_code":0,"config_changes":[{"file":"f","key":"k"}]})",
         "config_changes[0].change"},
        {"{\"session_id\":\"\xff\xfe\",\"status\":\"exited\",\"exit_code\":0}", "not JSON"},
    };
    for (const auto& [bytes, field] : cases) {
      const std::string e = error_of(bytes);
      QVERIFY2(e.rfind("report.json", 0) == 0, (std::string(bytes) + " -> " + e).c_str());
      QVERIFY2(e.find(field) != std::string::npos, (std::string(bytes) + " -> " + e).c_str());
    }
  }

  void nesting_and_size_are_bounded_before_parsing() {
    const std::string head = "{\"session_id\":\"x\",\"status\":\"exited\",\"exit_code\":0,";
    const std::string deep = head + "\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
    QVERIFY(error_of(deep).find("nested deeper") != std::string::npos);
    const std::string big = head + "\"error\":\"" + std::string(2 << 20, 'a') + "\"}";
    QVERIFY(error_of(big).find("bytes") != std::string::npos);
    // Brackets inside strings are text, not nesting.
    const std::string text = head + "\"error\":\"" + std::string(1000, '[') + "\"}";
    QVERIFY(decode_report(text).ok());
  }

  void a_string_that_is_not_utf8_is_written_replaced_not_thrown() {
    Report r;
    r.session_id = "x";
    r.error = std::string("cannot read /p/caf\xe9.pem");
    const std::string bytes = encode_report(r);
    auto back = decode_report(bytes);
    QVERIFY(back.ok());
    QVERIFY(back->error->find("caf\xef\xbf\xbd.pem") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(ReportTest)
#include "report_test.moc"
