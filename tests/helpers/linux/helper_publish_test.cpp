// Published ports (egress.publish, helpers/linux/port_forward.h) with the real helper on the real
// kernel, each case as root and as uid 65534: a server the agent runs on the sandbox's loopback is
// reached from the host's loopback only through a published port, in every net mode, with bytes
// relayed both ways; a host port already taken fails the launch; the agent gets no way out.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QtTest>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;

namespace {

// A listening socket on a free host port of 127.0.0.1 (the caller closes it, or keeps it to hold
// the port).
int listen_free(int* port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 4) != 0) qFatal("listen_free");
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return s;
}

// Listens on [::1]:port (v6only: 127.0.0.1 stays free), or on the IPv4 or IPv6 wildcard; -1
// where the host cannot.
int listen_held(const std::string& where, int port) {
  const bool v6 = where != "0.0.0.0";
  int s = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  if (v6) ::setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<std::uint16_t>(port));
    a->sin6_addr = where == "::1" ? in6addr_loopback : in6addr_any;
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<std::uint16_t>(port));
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    len = sizeof *a;
  }
  if (::bind(s, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(s, 4) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

int free_port() {
  int port = 0;
  ::close(listen_free(&port));
  return port;
}

// Connects to the host's 127.0.0.1:port; -1 with errno set when refused.
int connect_host(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval patience{30, 0};  // a relay that stalls must fail the test, not hang it
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    const int e = errno;
    ::close(s);
    errno = e;
    return -1;
  }
  return s;
}

// Sends `payload` on s (from a second thread, then EOF) while reading everything that comes back.
std::string round_trip(int s, const std::string& payload) {
  std::thread writer([&] {
    for (std::size_t off = 0; off < payload.size();) {
      const ssize_t n = ::send(s, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::shutdown(s, SHUT_WR);
  });
  std::string back;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    back.append(buf, static_cast<std::size_t>(n));
  }
  writer.join();
  return back;
}

// 8 MiB that no shift or truncation can pass for the original.
std::string big_payload() {
  std::string p(8u << 20, '\0');
  std::uint32_t x = 2463534242u;
  for (char& c : p) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return p;
}

}  // namespace

class HelperPublishTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;

  bool setup_row() {
    QFETCH(uint, uid);
    remove_fixture(fixture_);
    fixture_ = make_fixture(uid);
    return !fixture_.root.empty();
  }

  FrozenIr ir_with(NetMode mode, const std::vector<int>& publish) {
    FrozenIr ir = base_ir(fixture_);
    ir.egress.mode = mode;
    ir.egress.publish = publish;
    normalize(ir);
    return ir;
  }

 private slots:
  void cleanup() {
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void a_server_in_the_sandbox_is_reached_from_the_host_through_its_published_port_in_every_net_mode_data() {
    add_uid_rows();
  }
  void a_server_in_the_sandbox_is_reached_from_the_host_through_its_published_port_in_every_net_mode() {
    QVERIFY2(setup_row(), "fixture/probe failed");
    const std::string payload = big_payload();
    for (NetMode mode : {NetMode::kOff, NetMode::kAllowlist, NetMode::kStrict, NetMode::kAsk}) {
      const std::string what = std::string("net mode ") + to_string(mode);
      const int port = free_port();
      const std::string ready = fixture_.project + "/ready";
      std::filesystem::remove(ready);
      HelperInvocation h = prepare_helper(fixture_, ir_with(mode, {port}),
                                          {fixture_.probe_tool(), "echo-server", std::to_string(port), ready});
      const std::string log = fixture_.root + "/log";
      const pid_t pid = spawn_process(h.argv(), log);
      QVERIFY2(eventually([&] { return std::filesystem::exists(ready); }, 60), (what + "\n" + slurp(log)).c_str());
      const int s = connect_host(port);
      QVERIFY2(s >= 0, (what + ": connect: " + std::strerror(errno)).c_str());
      const std::string back = round_trip(s, payload);
      ::close(s);
      const int code = wait_exit(pid);
      QVERIFY2(code == 0, (what + ": exit " + std::to_string(code) + "\n" + slurp(log)).c_str());
      QVERIFY2(back.size() == payload.size() && back == payload,
               (what + ": " + std::to_string(back.size()) + " bytes came back\n" + slurp(log)).c_str());
      QVERIFY2(slurp(log).find("echo:" + std::to_string(payload.size())) != std::string::npos, slurp(log).c_str());
      // The port is the session's only while it runs: the helper let go of it.
      errno = 0;
      QVERIFY2(connect_host(port) < 0 && errno == ECONNREFUSED, what.c_str());
    }
  }

  void without_publish_the_sandboxs_server_is_out_of_the_hosts_reach_data() { add_uid_rows(); }
  void without_publish_the_sandboxs_server_is_out_of_the_hosts_reach() {
    QVERIFY2(setup_row(), "fixture/probe failed");
    const int port = free_port();
    const std::string ready = fixture_.project + "/ready";
    HelperInvocation h = prepare_helper(fixture_, ir_with(NetMode::kOff, {}),
                                        {fixture_.probe_tool(), "echo-server", std::to_string(port), ready});
    const std::string log = fixture_.root + "/log";
    const pid_t pid = spawn_process(h.argv(), log);
    QVERIFY2(eventually([&] { return std::filesystem::exists(ready); }, 60), slurp(log).c_str());
    errno = 0;
    const int s = connect_host(port);
    const int e = errno;
    ::kill(pid, SIGTERM);  // the server waits for a client that never comes: stop the session
    wait_exit(pid);
    if (s >= 0) ::close(s);
    QVERIFY2(s < 0 && e == ECONNREFUSED, std::strerror(e));
  }

  void a_published_port_the_host_already_holds_fails_the_launch_with_125_naming_it_data() { add_uid_rows(); }
  void a_published_port_the_host_already_holds_fails_the_launch_with_125_naming_it() {
    QVERIFY2(setup_row(), "fixture/probe failed");
    int port = 0;
    const int held = listen_free(&port);
    const std::string marker = fixture_.project + "/ran";
    auto r = run_helper(fixture_, ir_with(NetMode::kOff, {port}), {fixture_.probe_tool(), "write", marker});
    ::close(held);
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.err.find("127.0.0.1:" + std::to_string(port)) != std::string::npos, dump(r));
    QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1L);  // one line
    QVERIFY(!std::filesystem::exists(marker));  // the agent never started
  }

  // A host service on the other loopback family, or on a wildcard, holds the port as much as one
  // on 127.0.0.1: `localhost:<port>` reaches it for many clients, so publishing the agent's
  // server there would confuse the two.
  void a_published_port_held_on_ipv6_loopback_or_a_wildcard_fails_the_launch_with_125_naming_it_data() {
    QTest::addColumn<uint>("uid");
    QTest::addColumn<QString>("where");
    for (const char* where : {"::1", "::", "0.0.0.0"})
      for (uint uid : {0u, 65534u})
        QTest::addRow("%s %s", where, uid == 0 ? "root" : "uid65534") << uid << QString(where);
  }
  void a_published_port_held_on_ipv6_loopback_or_a_wildcard_fails_the_launch_with_125_naming_it() {
    QFETCH(QString, where);
    QVERIFY2(setup_row(), "fixture/probe failed");
    const int port = free_port();
    const int held = listen_held(where.toStdString(), port);
    QVERIFY2(held >= 0, "the host could not listen there");
    const std::string marker = fixture_.project + "/ran";
    auto r = run_helper(fixture_, ir_with(NetMode::kOff, {port}), {fixture_.probe_tool(), "write", marker});
    ::close(held);
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.err.find(":" + std::to_string(port)) != std::string::npos, dump(r));
    QVERIFY2(r.err.find("already holds") != std::string::npos, dump(r));
    QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1L);
    QVERIFY(!std::filesystem::exists(marker));
  }

  // Forwarding goes one way. The helper's listener is on the host's loopback; the agent's
  // 127.0.0.1 is its own namespace's, where nothing listens on the port, so the published port
  // leads nowhere from inside, and a host service stays out of reach too.
  void the_agent_cannot_reach_the_host_through_a_published_port_data() { add_uid_rows(); }
  void the_agent_cannot_reach_the_host_through_a_published_port() {
    QVERIFY2(setup_row(), "fixture/probe failed");
    const int port = free_port();
    int host_port = 0;
    const int host_service = listen_free(&host_port);
    for (NetMode mode : {NetMode::kOff, NetMode::kAllowlist}) {
      auto r = run_helper(fixture_, ir_with(mode, {port}),
                          {"/bin/sh", "-c",
                           fixture_.probe_tool() + " connect " + std::to_string(port) + "; " + fixture_.probe_tool() +
                               " connect " + std::to_string(host_port)});
      QVERIFY2(r.exit_code == 0, dump(r));
      QVERIFY2(r.out == "connect:ECONNREFUSED\nconnect:ECONNREFUSED\n", dump(r));
    }
    // Control: the host service answers from the host.
    const int direct = connect_host(host_port);
    QVERIFY(direct >= 0);
    ::close(direct);
    ::close(host_service);
  }
};

QTEST_GUILESS_MAIN(HelperPublishTest)
#include "helper_publish_test.moc"
