// The control socket's usage answer: one encoder (the helper) and one decoder (the app); the
// answer round-trips with and without limits, and anything else is refused with the field named.
#include <QtTest>

#include "engine/session/usage_message.h"

using namespace paddock::session;

class UsageMessageTest : public QObject {
  Q_OBJECT
 private slots:
  void an_answer_round_trips_with_and_without_limits() {
    LiveUsage u;
    u.cpu_ms = 1234;
    u.memory_bytes = 64ll << 20;
    u.processes = 3;
    auto none = decode_usage_reply(encode_usage_reply(u));
    QVERIFY2(none.ok(), none.ok() ? "" : none.error().message.c_str());
    QVERIFY(*none == u);
    QVERIFY(!none->limits.cpu_ms && !none->limits.memory_bytes && !none->limits.processes);
    u.limits.cpu_ms = 60000;
    u.limits.memory_bytes = 1ll << 32;
    u.limits.processes = 256;
    auto all = decode_usage_reply(encode_usage_reply(u));
    QVERIFY(all.ok() && *all == u);
    QVERIFY(encode_usage_reply(u).find(R"("limits":{"cpu_ms":60000,"memory_bytes":4294967296,"processes":256})") !=
            std::string::npos);
  }

  void a_refusal_or_a_malformed_answer_is_an_error_naming_why() {
    auto refused = decode_usage_reply(R"({"ok":false,"error":"unknown command"})");
    QVERIFY(!refused.ok() && refused.error().message.find("unknown command") != std::string::npos);
    const std::string good = encode_usage_reply(LiveUsage{});
    struct Case { std::string line, names; };
    for (const Case& c : {Case{"not json", "usage answer"},
                          Case{R"({"ok":true})", "field usage: missing field"},
                          Case{R"({"ok":"yes","usage":{}})", "field ok: expected true or false"},
                          Case{R"({"ok":true,"usage":{"cpu_ms":-1,"memory_bytes":0,"processes":0,"limits":{"cpu_ms":null,"memory_bytes":null,"processes":null}}})", "usage.cpu_ms"},
                          Case{R"({"ok":true,"usage":{"cpu_ms":1,"memory_bytes":"2","processes":0,"limits":{"cpu_ms":null,"memory_bytes":null,"processes":null}}})", "usage.memory_bytes"},
                          Case{R"({"ok":true,"usage":{"cpu_ms":1,"memory_bytes":2,"processes":0,"limits":{"cpu_ms":null,"memory_bytes":null}}})", "usage.limits.processes"},
                          Case{R"({"ok":true,"usage":{"cpu_ms":1,"memory_bytes":2,"processes":0,"extra":1,"limits":{"cpu_ms":null,"memory_bytes":null,"processes":null}}})", "usage.extra"}}) {
      auto r = decode_usage_reply(c.line);
      QVERIFY2(!r.ok(), c.line.c_str());
      QVERIFY2(r.error().message.find(c.names) != std::string::npos, (c.line + " -> " + r.error().message).c_str());
    }
    QVERIFY(decode_usage_reply(good).ok());
  }
};

QTEST_APPLESS_MAIN(UsageMessageTest)
#include "usage_message_test.moc"
