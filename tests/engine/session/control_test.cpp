// The control socket's requests and replies: what the CLI and the app encode is what the helper
// decodes and the other way round, and a line that is not one of them is refused with a reason,
// never half-read.
#include <QtTest>

#include "engine/session/control.h"

using namespace paddock::session;

class ControlTest : public QObject {
  Q_OBJECT

 private slots:
  void every_request_decodes_to_what_was_encoded() {
    for (auto cmd : {ControlCommand::kStop, ControlCommand::kAsks, ControlCommand::kSubscribe, ControlCommand::kUsage}) {
      auto back = decode_control_request(encode_control_request(request_of(cmd)));
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
      QVERIFY(back->cmd == cmd);
    }
    for (auto a : {AskAnswer::kAllowOnce, AskAnswer::kAllowSession, AskAnswer::kDeny}) {
      auto back = decode_control_request(encode_control_request(ask_reply_request("ask-7", a)));
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
      QVERIFY(back->cmd == ControlCommand::kAskReply);
      QCOMPARE(back->ask_id, std::string("ask-7"));
      QVERIFY(back->answer == a);
    }
    // The wire form the app has always sent.
    QCOMPARE(encode_control_request(ask_reply_request("ask-1", AskAnswer::kAllowOnce)),
             std::string(R"({"cmd":"ask_reply","decision":"allow_once","id":"ask-1"})"));
    QCOMPARE(encode_control_request(request_of(ControlCommand::kStop)), std::string(R"({"cmd":"stop"})"));
    QCOMPARE(encode_control_request(request_of(ControlCommand::kUsage)), std::string(R"({"cmd":"usage"})"));
  }

  void a_request_that_is_not_one_is_refused_with_its_reason() {
    const std::pair<const char*, const char*> bad[] = {
        {"not json", "not JSON"},
        {"[1]", "not a JSON object"},
        {R"({"type":"stop"})", "cmd"},
        {R"({"cmd":"reboot"})", "unknown command 'reboot'"},
        {R"({"cmd":7})", "expected a string"},
        {R"({"cmd":"stop","force":true})", "unknown field"},
        {R"({"cmd":"ask_reply","id":"ask-1"})", "missing field"},
        {R"({"cmd":"ask_reply","id":"ask-1","decision":"maybe"})", "allow_once, allow_session or deny"},
        {R"({"cmd":"ask_reply","id":1,"decision":"deny"})", "expected a string"},
    };
    for (const auto& [line, why] : bad) {
      auto r = decode_control_request(line);
      QVERIFY2(!r.ok(), line);
      QVERIFY2(r.error().message.find(why) != std::string::npos, (std::string(line) + " -> " + r.error().message).c_str());
    }
  }

  void a_reply_carries_the_pending_asks_and_the_error() {
    ControlReply ok;
    QCOMPARE(encode_control_reply(ok), std::string(R"({"ok":true})"));
    ok.asks = {{"ask-1", "api.example.test", 443, "2026-01-02T03:04:05.000Z"}, {"ask-2", "x.test", 8443, "t"}};
    auto back = decode_control_reply(encode_control_reply(ok), "session s");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back->ok);
    QVERIFY(back->asks == ok.asks);
    ControlReply no{false, "no ask ask-9 in this session", {}};
    auto refused = decode_control_reply(encode_control_reply(no), "session s");
    QVERIFY(refused.ok() && !refused->ok);
    QCOMPARE(refused->error, no.error);
    for (const char* line : {R"({"ok":false})", R"({"ok":"yes"})", R"({"ok":true,"asks":[{"id":"a"}]})",
                             R"({"ok":true,"extra":1})", "{"}) {
      auto r = decode_control_reply(line, "session s");
      QVERIFY2(!r.ok(), line);
      QVERIFY2(r.error().message.find("session s") != std::string::npos, r.error().message.c_str());
    }
  }

  void the_ask_event_names_the_ask() {
    auto e = ask_event({"ask-3", "h.test", 443, "ts"});
    QCOMPARE(e.dump(), std::string(R"({"event":"ask","host":"h.test","id":"ask-3","port":443,"ts":"ts"})"));
  }
};

QTEST_GUILESS_MAIN(ControlTest)
#include "control_test.moc"
