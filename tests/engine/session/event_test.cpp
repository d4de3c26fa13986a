// events.jsonl's lines: one table of event types (every type has one name, and each name reads
// back as its type), one encoder and one decoder, typed accessors for session_started and
// session_ended, and a decoder that answers every malformed line with an error, never a throw.
#include <QtTest>

#include <set>

#include "engine/session/event.h"

using namespace paddock::session;
using nlohmann::json;

class EventTest : public QObject {
  Q_OBJECT
 private slots:
  void every_event_type_has_one_name_that_reads_back_as_it() {
    std::set<std::string> names;
    for (int i = 0; i <= static_cast<int>(EventType::kSessionEnded); ++i) {
      const auto t = static_cast<EventType>(i);
      const std::string n = event_name(t);
      QVERIFY2(names.insert(n).second, n.c_str());
      QVERIFY(parse_event_type(n) == t);
    }
    QCOMPARE(names.size(), std::size_t{14});
    QVERIFY(!parse_event_type("session_start"));
  }

  void a_line_round_trips_with_its_fields_time_and_count() {
    Event e = make_event(EventType::kNetRequest, {{"host", "x.example"}, {"port", 443}, {"decision", "deny"}});
    e.ts = "2026-01-02T03:04:05.678Z";
    const std::string line = encode_event(e);
    QVERIFY(line.find('\n') == std::string::npos);
    QCOMPARE(json::parse(line)["event"].get<std::string>(), std::string("net_request"));
    QVERIFY(!json::parse(line).contains("count"));
    auto back = decode_event(line + "\n");
    QVERIFY(back.ok());
    QVERIFY(back->type == EventType::kNetRequest);
    QCOMPARE(back->ts, e.ts);
    QCOMPARE(back->fields, e.fields);
    QCOMPARE(back->count, std::int64_t{1});
    e.count = 5;
    e.last_ts = "2026-01-02T03:04:09.000Z";
    auto folded = decode_event(encode_event(e));
    QVERIFY(folded.ok());
    QCOMPARE(folded->count, std::int64_t{5});
    QCOMPARE(folded->last_ts, e.last_ts);
    QCOMPARE(folded->fields, e.fields);  // count and last_ts belong to the line, not the fields
  }

  void session_started_and_session_ended_are_typed_both_ways() {
    SessionStarted s;
    s.session_id = "s1";
    s.command = {"sh", "-c", "true"};
    s.ir_hash = "sha256:aa";
    s.plan_hash = "sha256:bb";
    s.backend = "linux";
    s.helper_pid = 77;
    Event e = session_started_event(s);
    e.ts = "t";
    auto back = decode_event(encode_event(e));
    QVERIFY(back.ok());
    auto s2 = session_started_from(*back);
    QVERIFY(s2.ok());
    QCOMPARE(s2->command, s.command);
    QCOMPARE(s2->ir_hash, s.ir_hash);
    QCOMPARE(s2->helper_pid, std::int64_t{77});

    Report r;
    r.session_id = "s1";
    r.status = ReportStatus::kStopped;
    r.exit_code = 143;
    Event ended = session_ended_event(r);
    QVERIFY(!ended.fields.contains("session_id"));
    ended.ts = "t";
    auto rb = decode_event(encode_event(ended));
    QVERIFY(rb.ok());
    auto r2 = report_from_event(*rb);
    QVERIFY(r2.ok());
    QVERIFY(r2->status == ReportStatus::kStopped);
    QCOMPARE(r2->exit_code, 143);
  }

  void a_malformed_line_is_an_error_naming_it() {
    const std::pair<const char*, const char*> cases[] = {
        {"", "not JSON"},
        {"{\"event\":\"notice\",\"ts\":\"t\"", "not JSON"},
        {"[]", "not a JSON object"},
        {R"({"ts":"t"})", "event"},
        {R"({"event":7,"ts":"t"})", "event"},
        {R"({"event":"no_such_event","ts":"t"})", "unknown event type"},
        {R"({"event":"notice","ts":5})", "ts"},
        {R"({"event":"notice","ts":"t","count":0})", "count"},
        {R"({"event":"notice","ts":"t","count":"2"})", "count"},
        {R"({"event":"notice","ts":"t","last_ts":[]})", "last_ts"},
    };
    for (const auto& [line, what] : cases) {
      auto e = decode_event(line, "events.jsonl line 3");
      QVERIFY2(!e.ok(), line);
      QVERIFY2(e.error().message.rfind("events.jsonl line 3", 0) == 0, e.error().message.c_str());
      QVERIFY2(e.error().message.find(what) != std::string::npos, (std::string(line) + " -> " + e.error().message).c_str());
    }
    auto started = decode_event(R"({"event":"session_started","ts":"t","command":"sh -c true"})");
    QVERIFY(started.ok());
    QVERIFY(!session_started_from(*started).ok());  // command must be a list of strings
    auto ended = decode_event(R"({"event":"session_ended","ts":"t","status":"gone","exit_code":0})");
    QVERIFY(ended.ok());
    QVERIFY(!report_from_event(*ended).ok());
  }

  void an_agent_argv_that_is_not_utf8_is_logged_not_thrown() {
    SessionStarted s;
    s.command = {std::string("cat"), std::string("caf\xe9.pem")};
    Event e = session_started_event(s);
    e.ts = "t";
    const std::string line = encode_event(e);
    auto back = decode_event(line);
    QVERIFY(back.ok());
    // Encoded as all of Paddock's JSON (engine/json_text.h), so it reads back byte for byte.
    auto started = session_started_from(*back);
    QVERIFY(started.ok());
    QVERIFY(started->command == s.command);
  }

  void an_event_from_a_sink_is_read_with_or_without_its_time() {
    auto e = event_from_json(event_json(EventType::kAsk, {{"id", "a1"}, {"host", "h"}, {"port", 443}}));
    QVERIFY(e.ok());
    QVERIFY(e->type == EventType::kAsk);
    QCOMPARE(e->ts, std::string());
    QCOMPARE(e->fields["id"].get<std::string>(), std::string("a1"));
    QVERIFY(!event_from_json(json{{"event", "nope"}}).ok());
    QVERIFY(!event_from_json(json::array()).ok());
  }
};

QTEST_APPLESS_MAIN(EventTest)
#include "event_test.moc"
