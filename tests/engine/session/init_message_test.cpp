// The messages from the sandbox's init to the helper: one encoder (used in the sandbox) and one
// decoder (used by the helper), each type round-tripping, the readiness message recognised
// without parsing exactly when it is byte for byte the expected one, and anything else refused.
#include <QtTest>

#include "engine/session/init_message.h"

using namespace paddock::session;

class InitMessageTest : public QObject {
  Q_OBJECT
 private slots:
  void every_message_round_trips() {
    auto failed = decode_init_message(encode_init_message(InitMessage::setup_failed("mount /x: EPERM")));
    QVERIFY(failed.ok() && failed->type == InitMessageType::kSetupFailed && failed->message == "mount /x: EPERM");
    auto exec = decode_init_message(encode_init_message(InitMessage::exec_failed(2, "nope: No such file")));
    QVERIFY(exec.ok() && exec->type == InitMessageType::kExecFailed && exec->error_number == 2);
    QVERIFY(decode_init_message(encode_init_message(InitMessage::proxy_listen()))->type == InitMessageType::kProxyListen);
    QVERIFY(decode_init_message(encode_init_message(InitMessage::network_namespace()))->type ==
            InitMessageType::kNetworkNamespace);
    QVERIFY(decode_init_message(encode_init_message(InitMessage::host_port_listen()))->type ==
            InitMessageType::kHostPortListen);
    auto made = decode_init_message(encode_init_message(
        InitMessage::placeholders_made({{"/p/.git", true, 2049, 77}, {"/p/.envrc", false, 2049, 18446744073709551615ull}})));
    QVERIFY(made.ok() && made->type == InitMessageType::kPlaceholders);
    QCOMPARE(made->placeholders.size(), std::size_t{2});
    QCOMPARE(made->placeholders[0].path, std::string("/p/.git"));
    QVERIFY(made->placeholders[0].dir && !made->placeholders[1].dir);
    QCOMPARE(made->placeholders[1].ino, std::uint64_t{18446744073709551615ull});
    QVERIFY(decode_init_message(encode_init_message(InitMessage::deadline()))->type == InitMessageType::kDeadline);
    InitMessage exit;
    exit.type = InitMessageType::kExit;
    exit.status = 256;
    exit.pids = 3;
    exit.cpu_ms = 10;
    exit.max_rss = 4096;
    exit.timed_out = true;
    exit.left_cgroup = true;
    auto e = decode_init_message(encode_init_message(exit));
    QVERIFY(e.ok());
    QCOMPARE(e->status, 256);
    QCOMPARE(e->pids, std::int64_t{3});
    QCOMPARE(*e->cpu_ms, std::int64_t{10});
    QCOMPARE(*e->max_rss, std::int64_t{4096});
    QVERIFY(e->timed_out && e->left_cgroup);
    InitMessage bare;
    bare.type = InitMessageType::kExit;
    auto b = decode_init_message(encode_init_message(bare));
    QVERIFY(b.ok() && !b->cpu_ms && !b->timed_out);
  }

  void paths_and_messages_that_are_not_utf8_come_back_byte_for_byte() {
    const std::string path = "/p/caf\xe9.pem", plain_marker = "/p/bytes:x";
    auto made = decode_init_message(
        encode_init_message(InitMessage::placeholders_made({{path, false, 1, 2, 7, ".\n"}, {plain_marker, true, 1, 3, 8, ""}})));
    QVERIFY(made.ok());
    QCOMPARE(made->placeholders[0].path, path);
    QCOMPARE(made->placeholders[1].path, plain_marker);
    QCOMPARE(made->placeholders[0].content, std::string(".\n"));  // a pointer's placeholder
    auto failed = decode_init_message(encode_init_message(InitMessage::setup_failed("mount " + path + ": EPERM")));
    QVERIFY(failed.ok());
    QCOMPARE(failed->message, "mount " + path + ": EPERM");
    auto exec = decode_init_message(encode_init_message(InitMessage::exec_failed(2, "bytes:odd argv")));
    QVERIFY(exec.ok());
    QCOMPARE(exec->message, std::string("bytes:odd argv"));
  }

  void readiness_is_recognised_byte_for_byte_and_otherwise_parsed() {
    const std::string attestation = R"({"abi":7,"ir_hash":"sha256:aa","plan_hash":"sha256:bb"})";
    const std::string ready = encode_init_message(InitMessage::ready(attestation));
    auto fast = decode_init_message(ready, ready);
    QVERIFY(fast.ok() && fast->type == InitMessageType::kAttestation);
    QCOMPARE(fast->attestation, attestation);
    auto parsed = decode_init_message(ready);  // without the expected bytes: parsed, same answer
    QVERIFY(parsed.ok() && parsed->type == InitMessageType::kAttestation);
    QCOMPARE(parsed->attestation, attestation);
    // Another attestation than the one prepared is parsed, not mistaken for it.
    const std::string other = encode_init_message(InitMessage::ready(R"({"abi":1})"));
    auto o = decode_init_message(other, ready);
    QVERIFY(o.ok());
    QCOMPARE(o->attestation, std::string(R"({"abi":1})"));
  }

  void a_message_that_is_not_one_is_refused() {
    for (const char* bad : {"", "{", "[]", R"({"type":5})", R"({"type":"launch"})", R"({"message":"x"})",
                            R"({"type":"setup_failed"})", R"({"type":"exit","status":"0","pids":1})",
                            R"({"type":"exit","status":0})", R"({"type":"exec_failed","message":"m"})",
                            R"({"attestation":[],"type":"attestation"})", R"({"type":"placeholders"})",
                            R"({"type":"placeholders","list":[{"path":"/x","dir":true,"dev":-1,"ino":2,"content":""}]})",
                            R"({"type":"placeholders","list":[{"path":"/x","dir":1,"dev":1,"ino":2,"content":""}]})",
                            R"({"type":"placeholders","list":[{"path":"/x","dir":true,"dev":1,"ino":2}]})"}) {
      auto m = decode_init_message(bad);
      QVERIFY2(!m.ok(), bad);
    }
  }
};

QTEST_APPLESS_MAIN(InitMessageTest)
#include "init_message_test.moc"
