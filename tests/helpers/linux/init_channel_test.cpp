// What each message from the sandbox's init means for the session (helpers/linux/
// init_channel.h), and the channel itself over a socket pair in this process: no sandbox.
#include <QtTest>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/session/init_message.h"
#include "helpers/linux/init_channel.h"
#include "platform/fd_passing.h"

using namespace paddock;
using namespace paddock::helper;
using session::InitMessage;
using session::InitMessageType;

namespace {

Result<InitMessage> ok(InitMessage m) { return m; }

InitMessage exit_message(int status) {
  InitMessage m;
  m.type = InitMessageType::kExit;
  m.status = status;
  m.pids = 7;
  m.cpu_ms = 120;
  m.max_rss = 4096;
  m.left_cgroup = true;
  return m;
}

}  // namespace

class InitChannelTest : public QObject {
  Q_OBJECT
 private slots:
  void a_message_that_does_not_decode_stops_the_session_with_its_reason() {
    InitOutcome out;
    const auto bad = session::decode_init_message("{\"type\":\"no_such_type\"}");
    QVERIFY(!bad.ok());
    QCOMPARE(absorb_init_message(out, bad), InitAction::kStop);
    QCOMPARE(out.setup_error, bad.error().message);
  }

  void a_setup_failure_and_an_exec_failure_are_kept_apart() {
    InitOutcome out;
    QCOMPARE(absorb_init_message(out, ok(InitMessage::setup_failed("mount /x: EPERM"))), InitAction::kNone);
    QCOMPARE(absorb_init_message(out, ok(InitMessage::exec_failed(2, "agent: No such file"))), InitAction::kNone);
    QCOMPARE(out.setup_error, std::string("mount /x: EPERM"));
    QCOMPARE(out.exec_error, std::string("agent: No such file"));
    QVERIFY(!out.have_exit);
  }

  void readiness_asks_for_the_attestation_to_be_stored_once_only() {
    InitOutcome out;
    const auto ready = ok(InitMessage::ready("{\"abi\":7}"));
    QCOMPARE(absorb_init_message(out, ready), InitAction::kStoreAttestation);
    QCOMPARE(absorb_init_message(out, ready), InitAction::kStoreAttestation);  // not stored yet
    out.attested = true;
    QCOMPARE(absorb_init_message(out, ready), InitAction::kNone);
  }

  void the_proxy_socket_asks_for_the_relay() {
    InitOutcome out;
    QCOMPARE(absorb_init_message(out, ok(InitMessage::proxy_listen())), InitAction::kStartRelay);
    QVERIFY(out.setup_error.empty());
  }

  void the_network_namespace_asks_for_the_forwarder_of_published_ports() {
    InitOutcome out;
    QCOMPARE(absorb_init_message(out, ok(InitMessage::network_namespace())), InitAction::kStartForward);
    QVERIFY(out.setup_error.empty());
  }

  void a_host_ports_listening_socket_is_added_to_the_relay() {
    InitOutcome out;
    QCOMPARE(absorb_init_message(out, ok(InitMessage::host_port_listen())), InitAction::kAddHostPort);
    QVERIFY(out.setup_error.empty());
  }

  void placeholders_accumulate_until_recorded() {
    InitOutcome out;
    (void)absorb_init_message(out, ok(InitMessage::placeholders_made({{"/p/a", true, 1, 2}})));
    (void)absorb_init_message(out, ok(InitMessage::placeholders_made({{"/p/b", false, 1, 3}, {"/p/c", true, 1, 4}})));
    QCOMPARE(out.placeholders.size(), std::size_t(3));
    QCOMPARE(out.placeholders[1].path, std::string("/p/b"));
    QVERIFY(!out.placeholders[1].dir);
    QCOMPARE(out.placeholders[2].ino, std::uint64_t(4));
  }

  void the_exit_carries_the_agents_status_and_the_trees_usage() {
    InitOutcome out;
    QCOMPARE(absorb_init_message(out, ok(exit_message(3 << 8))), InitAction::kNone);
    QVERIFY(out.have_exit);
    QCOMPARE(out.agent_status, 3 << 8);
    QCOMPARE(out.pids, 7L);
    QCOMPARE(out.cpu_ms.value_or(-1), 120L);
    QCOMPARE(out.max_rss.value_or(-1), 4096L);
    QVERIFY(out.left_cgroup);
    QVERIFY(!out.init_timed_out);
  }

  void inits_deadline_is_remembered_through_a_later_exit_that_omits_it() {
    InitOutcome out;
    (void)absorb_init_message(out, ok(InitMessage::deadline()));
    QVERIFY(out.init_timed_out);
    (void)absorb_init_message(out, ok(exit_message(SIGKILL)));
    QVERIFY(out.init_timed_out);
  }

  void an_exit_without_usage_leaves_the_usage_to_the_kernels_account() {
    InitOutcome out;
    InitMessage m = exit_message(0);
    m.cpu_ms.reset();
    (void)absorb_init_message(out, ok(m));
    QVERIFY(!out.cpu_ms && !out.max_rss);
  }

  void the_channel_delivers_messages_in_order_with_a_passed_descriptor_and_answers() {
    int sp[2];
    QVERIFY(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
    const std::string attestation = "{\"plan_hash\":\"sha256:00\"}";
    InitChannel channel(platform::UniqueFd(sp[0]), session::encode_init_message(InitMessage::ready(attestation)));
    platform::UniqueFd init_end(sp[1]);
    QVERIFY(!channel.next());  // nothing queued: no wait

    int pipe_fds[2];
    QVERIFY(::pipe(pipe_fds) == 0);
    platform::UniqueFd rd(pipe_fds[0]), wr(pipe_fds[1]);
    QVERIFY(platform::send_message(init_end.get(), session::encode_init_message(InitMessage::proxy_listen()),
                                   wr.get()) > 0);
    QVERIFY(platform::send_message(init_end.get(), session::encode_init_message(InitMessage::ready(attestation))) > 0);
    auto first = channel.next();
    QVERIFY(first && first->message.ok());
    QCOMPARE(first->message->type, InitMessageType::kProxyListen);
    QVERIFY(first->passed.valid());
    auto second = channel.next();
    QVERIFY(second && second->message.ok());
    QCOMPARE(second->message->type, InitMessageType::kAttestation);
    QCOMPARE(second->message->attestation, attestation);
    QVERIFY(!second->passed.valid());

    channel.answer(true);
    channel.answer(false);
    char got[2] = {};
    QCOMPARE(::read(init_end.get(), got, 1), ssize_t(1));
    QCOMPARE(::read(init_end.get(), got + 1, 1), ssize_t(1));
    QCOMPARE(got[0], session::kStoredAnswer);
    QCOMPARE(got[1], session::kNotStoredAnswer);
  }
};

QTEST_APPLESS_MAIN(InitChannelTest)
#include "init_channel_test.moc"
