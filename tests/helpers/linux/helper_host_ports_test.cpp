// Host ports (egress.host_ports, helpers/linux/host_ports.h) with the real helper on the real
// kernel, as root and as uid 65534: a service on the host's loopback (standing in for a local
// model server) is reached from the sandbox's 127.0.0.1:<port> only when that port is granted,
// in every net mode, each connection an event; no other host port is reachable, and the agent
// cannot take the granted port for itself.
#include <sys/socket.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/loopback_server.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;

namespace {

// A service on the host's 127.0.0.1, on a free port: it answers every connection with
// "HOST-SERVICE:" and what it read, until stopped.
class HostService : public LoopbackServer {
 public:
  HostService()
      : LoopbackServer([](int c) {
          timeval patience{10, 0};
          ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
          std::string got;
          char buf[4096];
          for (ssize_t n; (n = ::recv(c, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<std::size_t>(n));
          const std::string reply = "HOST-SERVICE:" + got;
          (void)::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        }) {}
};

int unused_port() {
  HostService s;
  return s.port();
}

// A client in the sandbox: connects to 127.0.0.1:port, sends "ping", prints what came back
// ("got:..."), or the error ("error:...").
std::string client(int port) {
  return "python3 -c 'import socket,sys\n"
         "try:\n"
         "  s=socket.create_connection((\"127.0.0.1\",int(sys.argv[1])),timeout=10)\n"
         "  s.sendall(b\"ping\"); s.shutdown(socket.SHUT_WR); d=b\"\"\n"
         "  while True:\n"
         "    b=s.recv(65536)\n"
         "    if not b: break\n"
         "    d+=b\n"
         "  print(\"got:\"+d.decode())\n"
         "except Exception as e:\n"
         "  print(\"error:\"+type(e).__name__)' " +
         std::to_string(port) + "; ";
}

}  // namespace

class HelperHostPortsTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;

  FrozenIr ir_with(NetMode mode, const std::vector<int>& host_ports) {
    FrozenIr ir = base_ir(fixture_);
    ir.egress.mode = mode;
    ir.egress.host_ports = host_ports;
    normalize(ir);
    return ir;
  }

  std::string all_events() {
    std::string out;
    for (const auto& e : fs::directory_iterator(fixture_.state))
      if (fs::exists(e.path() / "events.jsonl")) out += slurp((e.path() / "events.jsonl").string());
    return out;
  }

 private slots:
  void cleanup() {
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void a_host_service_on_a_granted_port_is_reached_from_the_sandbox_in_every_net_mode_data() { add_uid_rows(); }
  void a_host_service_on_a_granted_port_is_reached_from_the_sandbox_in_every_net_mode() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    HostService service;
    for (NetMode mode : {NetMode::kOff, NetMode::kAllowlist}) {
      auto r = run_sh(fixture_, ir_with(mode, {service.port()}), client(service.port()));
      QVERIFY2(r.exit_code == 0, dump(r));
      QVERIFY2(r.out.find("got:HOST-SERVICE:ping") != std::string::npos, dump(r));
    }
    QCOMPARE(service.accepted(), 2);
    // Each connection is in the session's record: who asked, and what went through.
    const std::string events = all_events();
    const std::string port = std::to_string(service.port());
    QVERIFY2(events.find("\"protocol\":\"host_port\"") != std::string::npos, events.c_str());
    QVERIFY2(events.find("\"rule\":\"host_ports: " + port + "\"") != std::string::npos, events.c_str());
    QVERIFY2(events.find("\"bytes_rx\":17") != std::string::npos && events.find("\"bytes_tx\":4") != std::string::npos,
             events.c_str());
  }

  // Without the grant the host's service is out of reach, and with it only the granted port is
  // reachable: the sandbox's loopback is its own everywhere else. The agent cannot listen on the
  // granted port itself (the helper holds it before the agent starts).
  void only_a_granted_port_reaches_the_host_and_the_agent_cannot_take_it_data() { add_uid_rows(); }
  void only_a_granted_port_reaches_the_host_and_the_agent_cannot_take_it() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    HostService granted, other;
    auto none = run_sh(fixture_, ir_with(NetMode::kOff, {}), client(granted.port()));
    QVERIFY2(none.out.find("error:ConnectionRefusedError") != std::string::npos, dump(none));
    auto r = run_sh(fixture_, ir_with(NetMode::kAllowlist, {granted.port()}),
                    client(other.port()) + fixture_.probe_tool() + " serve-loopback " + std::to_string(granted.port()));
    QVERIFY2(r.out.find("error:ConnectionRefusedError") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("bind4:EADDRINUSE") != std::string::npos, dump(r));
    QCOMPARE(granted.accepted(), 0);
    QCOMPARE(other.accepted(), 0);
  }

  // A granted port where nothing listens on the host: the agent's connection is accepted and
  // closed, and the record says why.
  void a_granted_port_with_no_host_service_closes_the_connection_and_says_why_data() { add_uid_rows(); }
  void a_granted_port_with_no_host_service_closes_the_connection_and_says_why() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const int port = unused_port();
    auto r = run_sh(fixture_, ir_with(NetMode::kOff, {port}), client(port));
    QVERIFY2(r.exit_code == 0, dump(r));
    // Accepted (the helper holds the port), then closed: no data, or a reset or a closed socket
    // seen by the client's send, depending on when the helper's connect failed.
    QVERIFY2(r.out.find("got:\n") != std::string::npos ||
                 (r.out.find("error:") != std::string::npos && r.out.find("ConnectionRefused") == std::string::npos),
             dump(r));
    const std::string events = all_events();
    QVERIFY2(events.find("\"end\":\"error: Connection refused\"") != std::string::npos, events.c_str());
  }
};

QTEST_GUILESS_MAIN(HelperHostPortsTest)
#include "helper_host_ports_test.moc"
