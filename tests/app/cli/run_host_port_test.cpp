// `paddock run --host-port PORT` and `network.host_ports` with the real CLI, helper and kernel, as
// root and as uid 65534: a loopback server on the host standing in for a local model server
// (Ollama's /api/tags) answers the sandbox's curl only through a granted host port, in every net
// mode, and not at all without the grant, in both Linux tiers (the landlock tier's helper connects
// the granted port itself); a repository layer that asks for one is refused until the user
// approves it.
#include <sys/socket.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "tests/app/cli/cli_home.h"
#include "tests/support/loopback_server.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;

namespace {

// Ollama as far as a client listing its models sees it: any request on 127.0.0.1:<free port> gets
// a 200 with a JSON list of one model.
class FakeOllama : public LoopbackServer {
 public:
  FakeOllama()
      : LoopbackServer([](int c) {
          char buf[4096];
          (void)::recv(c, buf, sizeof buf, 0);
          const std::string body = R"({"models":[{"name":"paddock-test-model:latest"}]})";
          const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
          (void)::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        }) {}
  int served() const { return accepted(); }
};

}  // namespace

class RunHostPortTest : public QObject {
  Q_OBJECT

  CliHome h_;

  bool landlock_ = false;

  ProcessResult curl_models(const std::vector<std::string>& options, int port) {
    std::vector<std::string> argv = paddock_run_argv(landlock_);
    argv.insert(argv.end(), options.begin(), options.end());
    for (const char* a : {"--", "sh", "-c"}) argv.push_back(a);
    argv.push_back("curl -sS --max-time 20 http://127.0.0.1:" + std::to_string(port) + "/api/tags; echo \" rc=$?\"");
    return run_process(argv, h_.opts);
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void a_local_model_server_is_reached_only_through_a_granted_host_port_data() { add_uid_and_tier_rows(); }
  void a_local_model_server_is_reached_only_through_a_granted_host_port() {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    landlock_ = tier == "landlock";
    QVERIFY(h_.create(uid, "hostport", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    h_.chown_all();
    FakeOllama ollama;
    const std::string port = std::to_string(ollama.port());
    // Without the grant: the sandbox's loopback is its own, and the broker refuses loopback. (In
    // the landlock tier, with the network filtered, the connection is the broker's, which answers
    // a plain GET with its refusal.)
    for (const char* net : {"off", "allowlist"}) {
      auto r = curl_models({"--net", net}, ollama.port());
      const bool brokered = landlock_ && std::string(net) != "off";
      QVERIFY2(r.exit_code == 0 && r.out.find("paddock-test-model") == std::string::npos, dump(r));
      QVERIFY2(r.out.find(brokered ? "Paddock sandbox proxy" : "rc=7") != std::string::npos, dump(r));
    }
    QCOMPARE(ollama.served(), 0);
    // With it, in every mode (loopback is never sent to the broker).
    for (const char* net : {"off", "allowlist", "strict"}) {
      auto r = curl_models({"--net", net, "--host-port", port}, ollama.port());
      QVERIFY2(r.exit_code == 0 && r.out.find("paddock-test-model:latest") != std::string::npos, dump(r));
      QVERIFY2(r.out.find("rc=0") != std::string::npos, dump(r));
    }
    QCOMPARE(ollama.served(), 3);
    // explain names the grant and where it came from.
    auto why = run_process({paddock_bin(), "explain", "--host-port", port}, h_.opts);
    QVERIFY2(why.exit_code == 0 && why.out.find(port) != std::string::npos, dump(why));
  }

  // A repository layer that asks for a host port is untrusted input like any other: refused (126)
  // until approved, then granted.
  void a_repository_layer_asking_for_a_host_port_needs_approval_data() { add_uid_rows(); }
  void a_repository_layer_asking_for_a_host_port_needs_approval() {
    QFETCH(uint, uid);
    QVERIFY(h_.create(uid, "hostport-repo", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    FakeOllama ollama;
    fs::create_directories(h_.project + "/.paddock");
    put(h_.project + "/.paddock/policy.yaml",
        "version: 1\nnetwork:\n  host_ports: [" + std::to_string(ollama.port()) + "]\n");
    h_.chown_all();
    auto refused = curl_models({"--net", "off"}, ollama.port());
    QVERIFY2(refused.exit_code == 126, dump(refused));
    QCOMPARE(ollama.served(), 0);
    auto approve = run_process({paddock_bin(), "approve"}, h_.opts);
    QVERIFY2(approve.exit_code == 0 && approve.out.find("network.host_ports") != std::string::npos, dump(approve));
    auto r = curl_models({"--net", "off"}, ollama.port());
    QVERIFY2(r.exit_code == 0 && r.out.find("paddock-test-model:latest") != std::string::npos, dump(r));
  }
};

QTEST_GUILESS_MAIN(RunHostPortTest)
#include "run_host_port_test.moc"
