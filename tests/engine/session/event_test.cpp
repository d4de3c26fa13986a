// events.jsonl's lines: one table of event types (every type has one name, and each name reads
// back as its type), one payload struct per type whose fields round-trip through a line, a
// decoder that holds every line to its type's declaration, and that answers every malformed line
// with an error, never a throw.
#include <QtTest>

#include <set>

#include "engine/session/event.h"

using namespace paddock::session;
using nlohmann::json;

namespace {

// A payload of each type with every field set (so that a field lost on the way shows).
SessionStarted full(SessionStarted s) {
  s = {"s1", {"sh", "-c", "true"}, "sha256:aa", "sha256:bb", "linux", true, 77};
  return s;
}
AttestationStored full(AttestationStored a) {
  a.attestation = {"sha256:aa", "sha256:bb", "linux", 7, {{"fs.deny", paddock::Support::kPartial, paddock::Needs::kNone, "lost", "m"}},
                   {"PADDOCK_DEBUG"}, {"user-global:/u"}, "runc 1.1.5", "sha256:cc"};
  return a;
}
NetRequest full(NetRequest r) {
  r = {"x.example", 443, "connect", "deny", "egress.domains", "not listed", "ask-1"};
  return r;
}
DnsResolved full(DnsResolved d) {
  d = {"x.example", {"192.0.2.1", "2001:db8::1"}, "refused", "documentation range"};
  return d;
}
NetEgress full(NetEgress n) {
  n = {"x.example", "192.0.2.1", 443, 10, 20, "eof"};
  return n;
}
AskRaised full(AskRaised a) {
  a = {"ask-1", "x.example", 443};
  return a;
}
QuotaExceeded full(QuotaExceeded q) {
  q = {"x.example", 1000, 1001};
  return q;
}
LimitHit full(LimitHit l) {
  l = {"disk_space", 90, "sandbox init", 1024, 4096, "/p/upper"};
  return l;
}
Notice full(Notice n) {
  n = {"warning", "broker", "event_log_capped", "capped", 4096};
  return n;
}
ConfigChanged full(ConfigChanged c) {
  c = {"/home/u/.claude/settings.json", "hooks", "added", "high"};
  return c;
}
AuditFindingEvent full(AuditFindingEvent f) {
  f = {"src/.git/hooks/pre-commit", "added", "file", "git-hooks", "git", "a hook git runs", 3, "high"};
  return f;
}
AuditIncomplete full(AuditIncomplete a) {
  a = {"/p/node_modules: more than 100000 entries", "high"};
  return a;
}
CredentialRequest full(CredentialRequest c) {
  c = {"anthropic", "api.anthropic.com", "POST", "/v1/messages", 200, 10, 20, 30, "allow", "credentials.anthropic"};
  return c;
}
Report full(Report r) {
  r.status = ReportStatus::kStopped;
  r.exit_code = 143;
  r.signal = 15;
  r.duration_ms = 12;
  r.attested = true;
  r.limits_hit = {"memory"};
  r.usage = {1, 2, 3};
  r.ended = "t";
  r.error = "e";
  r.events_dropped = 4;
  r.config_changes = {{"/f", "k", "added"}};
  r.credentials = {{"anthropic", "api.anthropic.com:443", 1, 2, 3, 4, "t"}};
  return r;
}

}  // namespace

class EventTest : public QObject {
  Q_OBJECT
 private slots:
  // Every enumerator has its name (a missing one does not compile: engine/schema.h).
  void every_event_type_has_one_name_that_reads_back_as_it() {
    std::set<std::string> names;
    for (const auto t : paddock::schema::enum_values<EventType>()) {
      const std::string n = event_name(t);
      QVERIFY2(names.insert(n).second, n.c_str());
      QVERIFY(parse_event_type(n) == t);
    }
    QCOMPARE(names.size(), paddock::schema::enumerator_count<EventType>);
    QVERIFY(!parse_event_type("session_start"));
  }

  // Every type's payload, every field set, through a line and back: the same payload; and the
  // line with one of its fields removed, or one added, is refused naming the field.
  void every_event_type_round_trips_its_payload_and_refuses_a_missing_or_unknown_field() {
    std::size_t types = 0;
    std::apply(
        [&](auto... payloads) {
          const auto one = [&](auto p) {
            using P = decltype(p);
            p = full(p);
            Event e = make_event(p);
            e.ts = "2026-01-02T03:04:05.678Z";
            const std::string line = encode_event(e);
            auto back = decode_event(line);
            QVERIFY2(back.ok(), (line + " -> " + (back.ok() ? "" : back.error().message)).c_str());
            QVERIFY(back->type == event_type_of<P>);
            auto again = payload_of<P>(*back);
            QVERIFY2(again.ok(), line.c_str());
            QVERIFY2(*again == p, line.c_str());
            QCOMPARE(event_json(p)["event"].template get<std::string>(), std::string(event_name(event_type_of<P>)));
            // Every field its declaration does not let be absent.
            paddock::schema::for_each_field(p, [&](const paddock::schema::FieldInfo& info, const auto&) {
              if (info.traits & (paddock::schema::kOmitEmpty | paddock::schema::kMayBeAbsent)) return;
              const std::string key(info.key);
              json missing = json::parse(line);
              missing.erase(key);
              auto r = decode_event(missing.dump(), "events.jsonl line 2");
              QVERIFY2(!r.ok() && r.error().message.find(key) != std::string::npos,
                       (missing.dump() + " -> " + (r.ok() ? "accepted" : r.error().message)).c_str());
            });
            json extra = json::parse(line);
            extra["surprise"] = 1;
            auto r = decode_event(extra.dump());
            QVERIFY2(!r.ok() && r.error().message.find("surprise: unknown field") != std::string::npos, extra.dump().c_str());
            ++types;
          };
          (one(payloads), ...);
        },
        EventPayloads{});
    QCOMPARE(types, paddock::schema::enumerator_count<EventType>);
  }

  void a_line_round_trips_with_its_fields_time_and_count() {
    Event e = make_event(NetRequest{"x.example", 443, "connect", "deny", "r", "why", ""});
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

  void a_test_seams_taint_is_kept_on_every_line_of_any_type() {
    // The broker of a seam session (PADDOCK_DEBUG_RESOLVE) marks each of its events; the line
    // carries the mark whatever the type's payload declares.
    for (Event e : {make_event(NetRequest{"x.example", 443, "connect", "deny", "r", "why", ""}),
                    make_event(DnsResolved{"x.example", {"127.0.0.1"}, "failed", "not in the table"})}) {
      json j = json::parse(encode_event(e));
      QVERIFY(!j.contains("taint"));
      j["taint"] = "PADDOCK_DEBUG_RESOLVE";
      auto back = event_from_json(j);
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
      QCOMPARE(back->taint, std::string("PADDOCK_DEBUG_RESOLVE"));
      QCOMPARE(back->fields, e.fields);
      QCOMPARE(json::parse(encode_event(*back))["taint"].get<std::string>(), std::string("PADDOCK_DEBUG_RESOLVE"));
    }
  }

  void session_started_and_session_ended_are_typed_both_ways() {
    SessionStarted s;
    s.session_id = "s1";
    s.command = {"sh", "-c", "true"};
    s.ir_hash = "sha256:aa";
    s.plan_hash = "sha256:bb";
    s.backend = "linux";
    s.helper_pid = 77;
    Event e = make_event(s);
    e.ts = "t";
    auto back = decode_event(encode_event(e));
    QVERIFY(back.ok());
    auto s2 = payload_of<SessionStarted>(*back);
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
        {R"({"event":"notice","ts":"t","taint":7})", "taint"},
        {R"({"event":"notice","ts":"t","taint":""})", "taint"},
    };
    for (const auto& [line, what] : cases) {
      auto e = decode_event(line, "events.jsonl line 3");
      QVERIFY2(!e.ok(), line);
      QVERIFY2(e.error().message.rfind("events.jsonl line 3", 0) == 0, e.error().message.c_str());
      QVERIFY2(e.error().message.find(what) != std::string::npos, (std::string(line) + " -> " + e.error().message).c_str());
    }
    auto started = decode_event(
        R"({"event":"session_started","ts":"t","session_id":"s","command":"sh -c true","ir_hash":"","plan_hash":"",)"
        R"("backend":"linux","tainted":false,"helper_pid":1})");
    QVERIFY(!started.ok());  // command must be a list of strings
    QVERIFY2(started.error().message.find("session_started.command") != std::string::npos, started.error().message.c_str());
    json ended = json::parse(encode_event(session_ended_event(Report{})));
    ended["status"] = "gone";
    auto bad = decode_event(ended.dump());
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message.find("exited, failed, timeout or stopped") != std::string::npos, bad.error().message.c_str());
  }

  void an_agent_argv_that_is_not_utf8_is_logged_not_thrown() {
    SessionStarted s;
    s.command = {std::string("cat"), std::string("caf\xe9.pem")};
    Event e = make_event(s);
    e.ts = "t";
    const std::string line = encode_event(e);
    auto back = decode_event(line);
    QVERIFY(back.ok());
    // Encoded as all of Paddock's JSON (engine/json_text.h), so it reads back byte for byte.
    auto started = payload_of<SessionStarted>(*back);
    QVERIFY(started.ok());
    QVERIFY(started->command == s.command);
  }

  void an_event_from_a_sink_is_read_with_or_without_its_time() {
    auto e = event_from_json(event_json(AskRaised{"a1", "h", 443}));
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
