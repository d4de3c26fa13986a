// The broker inside a real session: `paddock run --net allowlist` (paddock-helper creates the
// proxy socket in the sandbox's namespace and hands it to EgressRelay), curl inside the sandbox.
// Only refusals that need no lookup are exercised (unlisted names, IP literals): the session's
// broker uses the host resolver, and tests never resolve real names. The allowed path through the
// same socket-passing shape is covered by broker_netns_test with the resolver seam. As root and
// as uid 65534.
#include <QtTest>

#include <QStandardPaths>

#include <filesystem>
#include <fstream>

#include "tests/helpers/broker/broker_fixture.h"
#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::broker::test;

class BrokerHelperTest : public QObject {
  Q_OBJECT
 private slots:
  void a_sandboxed_curl_is_refused_with_the_rule_and_cannot_go_around_the_relay_data() {
    paddock::test::add_uid_rows();
  }
  void a_sandboxed_curl_is_refused_with_the_rule_and_cannot_go_around_the_relay() {
    QFETCH(uint, uid);
    // curl is a hard requirement (scripts/bootstrap installs it), and a refused session is what
    // this test exists to catch: neither is a reason to skip.
    QVERIFY2(!QStandardPaths::findExecutable("curl").isEmpty(), "curl is not installed; run scripts/bootstrap");
    EchoServer host_side;  // on the HOST's loopback: must be unreachable from the sandbox
    paddock::test::CliHome h;
    QVERIFY(h.create(uid, "broker-helper", {}));
    const std::string dir = h.project;
    const std::string script = dir + "/net.sh";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "echo \"proxy=$HTTPS_PROXY all=$ALL_PROXY no=[$NO_PROXY]\"\n"
                          << "curl -sv --max-time 10 https://notlisted.example.org/ 2>&1 | grep -E '^< (HTTP|X-Paddock)'\n"
                          << "curl -sS --max-time 10 -x socks5h://127.0.0.1:3128 https://10.0.0.1/ 2>&1; echo \"socks_rc=$?\"\n"
                          << "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:" << host_side.port()
                          << "/ 2>&1; echo \"direct_rc=$?\"\n";
    QFile::setPermissions(QString::fromStdString(script), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    h.chown_all();
    paddock::test::RunOptions o = h.opts;
    o.timeout_ms = 60000;
    auto r = paddock::test::run_process({paddock::test::paddock_bin(), "run", "--project", dir, "--net", "allowlist",
                                         "--allow-domain", "api.example.com", "--", script}, o);
    const std::string all = r.out + "\n--- stderr ---\n" + r.err;
    QVERIFY2(r.exit_code == 0, all.c_str());
    QVERIFY2(r.out.find("proxy=http://127.0.0.1:3128") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("no=[localhost,127.0.0.1,::1,[::1]]") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("< HTTP/1.1 403 Forbidden") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("< X-Paddock-Rule: egress.domains: notlisted.example.org not listed") != std::string::npos,
             all.c_str());
    QVERIFY2(r.out.find("socks_rc=97") != std::string::npos, all.c_str());  // SOCKS reply 0x02
    QVERIFY2(r.out.find("direct_rc=7") != std::string::npos, all.c_str());  // no route to the host's loopback
    QCOMPARE(host_side.accepted(), 0);

    // The broker's events are in the session's events.jsonl.
    QDirIterator it(QString::fromStdString(h.sessions_dir()), {"events.jsonl"}, QDir::Files,
                    QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
    QFile events(it.next());
    QVERIFY(events.open(QIODevice::ReadOnly));
    QByteArray log = events.readAll();
    QVERIFY2(log.contains("\"rule\":\"egress.domains: notlisted.example.org not listed\""), log.constData());
    QVERIFY2(log.contains("\"rule\":\"host: 10.0.0.1 is an IP literal; only host names are brokered\""), log.constData());
    std::error_code ec;
    std::filesystem::remove_all(h.root, ec);
  }

  // Loopback inside the sandbox is never proxied: a server the agent starts answers curl, Python
  // and Node there on 127.0.0.1, localhost and [::1]. Clients with proxy settings of their own
  // (gRPC, Java, the Google Cloud CLI) reach the broker through them, which refuses the unlisted
  // hosts they ask for and records each; Java still goes direct to loopback.
  void loopback_is_never_proxied_and_clients_with_their_own_proxy_settings_use_the_broker_data() {
    paddock::test::add_uid_rows();
  }
  void loopback_is_never_proxied_and_clients_with_their_own_proxy_settings_use_the_broker() {
    QFETCH(uint, uid);
    for (const char* tool : {"curl", "node", "java"})
      QVERIFY2(!QStandardPaths::findExecutable(tool).isEmpty(), "missing; run scripts/bootstrap");
    QVERIFY2(std::filesystem::exists("/usr/lib/python3/dist-packages/grpc"), "python3-grpcio missing; run scripts/bootstrap");
    const bool gcloud = !QStandardPaths::findExecutable("gcloud").isEmpty();
    paddock::test::CliHome h;
    QVERIFY(h.create(uid, "loopback", {}));
    const std::string dir = h.project;
    std::ofstream(dir + "/m.txt") << "served-inside\n";
    std::ofstream(dir + "/Probe.java")
        << "public class Probe { public static void main(String[] a) {\n"
           "  try { var c = new java.net.URL(a[0]).openConnection(); c.setConnectTimeout(10000);\n"
           "    System.out.println(\"java \" + a[0] + \": \" + new String(c.getInputStream().readAllBytes()).trim()); }\n"
           "  catch (Exception e) { System.out.println(\"java \" + a[0] + \": \" + e.getMessage()); } } }\n";
    const std::string script = dir + "/loopback.sh";
    std::ofstream(script)
        << "#!/bin/sh\n"
        << "echo \"no=[$NO_PROXY] grpc=[$grpc_proxy]\"\n"
        << "/usr/bin/python3 -m http.server 8000 --bind :: >/dev/null 2>&1 &\n"
        << "for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:8000/ && break; sleep 0.1; done\n"
        << "for u in http://127.0.0.1:8000/m.txt http://localhost:8000/m.txt 'http://[::1]:8000/m.txt'; do\n"
        << "  echo \"curl $u: $(curl -sS -g --max-time 10 \"$u\" 2>&1)\"\n"
        << "  echo \"python $u: $(/usr/bin/python3 -c 'import sys,urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())' \"$u\" 2>&1 | tail -n 1)\"\n"
        << "  echo \"node $u: $(node -e 'fetch(process.argv[1]).then(r => r.text()).then(t => console.log(t.trim()), e => console.log(String(e)))' \"$u\" 2>&1)\"\n"
        << "done\n"
        << "java Probe.java http://127.0.0.1:8000/m.txt 2>/dev/null\n"
        << "java Probe.java https://java.notlisted.example.org/ 2>/dev/null\n"
        << "/usr/bin/python3 -c 'import grpc\nch = grpc.insecure_channel(\"grpc.notlisted.example.org:443\")\n"
           "try: grpc.channel_ready_future(ch).result(timeout=5)\nexcept Exception as e: print(\"grpc:\", type(e).__name__)'\n"
        << (gcloud ? "export CLOUDSDK_CONFIG=/tmp/gcloud CLOUDSDK_CORE_DISABLE_PROMPTS=1\n"
                     "echo \"gcloud proxy: $(gcloud config get proxy/address 2>/dev/null)\"\n"
                     "timeout 20 gcloud projects list --access-token-file=/dev/null >/dev/null 2>&1\n"
                   : "echo 'gcloud: not installed'\n")
        << "exit 0\n";
    QFile::setPermissions(QString::fromStdString(script), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    h.chown_all();
    paddock::test::RunOptions o = h.opts;
    o.timeout_ms = 180000;
    auto r = paddock::test::run_process({paddock::test::paddock_bin(), "run", "--project", dir, "--net", "allowlist",
                                         "--allow-domain", "api.example.com", "--", script}, o);
    const std::string all = r.out + "\n--- stderr ---\n" + r.err;
    QVERIFY2(r.exit_code == 0, all.c_str());
    QVERIFY2(r.out.find("no=[localhost,127.0.0.1,::1,[::1]] grpc=[http://127.0.0.1:3128]") != std::string::npos, all.c_str());
    for (const char* client : {"curl", "python", "node"})
      for (const char* url : {"http://127.0.0.1:8000/m.txt", "http://localhost:8000/m.txt", "http://[::1]:8000/m.txt"})
        QVERIFY2(r.out.find(std::string(client) + " " + url + ": served-inside") != std::string::npos,
                 (std::string(client) + " " + url + "\n" + all).c_str());
    QVERIFY2(r.out.find("java http://127.0.0.1:8000/m.txt: served-inside") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("java https://java.notlisted.example.org/: Unable to tunnel through proxy. Proxy returns \"HTTP/1.1 403") !=
                 std::string::npos,
             all.c_str());
    if (gcloud) QVERIFY2(r.out.find("gcloud proxy: 127.0.0.1") != std::string::npos, all.c_str());
    else qInfo("gcloud is not installed here: its proxy settings were not checked with it");
    QDirIterator it(QString::fromStdString(h.sessions_dir()), {"events.jsonl"}, QDir::Files, QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
    QFile events(it.next());
    QVERIFY(events.open(QIODevice::ReadOnly));
    const QByteArray log = events.readAll();
    // The broker saw the unlisted hosts those clients asked for, and no loopback request at all.
    QVERIFY2(log.contains("\"host\":\"java.notlisted.example.org\""), log.constData());
    QVERIFY2(log.contains("\"host\":\"grpc.notlisted.example.org\""), log.constData());
    if (gcloud) QVERIFY2(log.contains("\"host\":\"cloudresourcemanager.googleapis.com\""), log.constData());
    QVERIFY2(!log.contains("\"host\":\"localhost\"") && !log.contains("\"host\":\"127.0.0.1\""), log.constData());
    std::error_code ec;
    std::filesystem::remove_all(h.root, ec);
  }
};

QTEST_GUILESS_MAIN(BrokerHelperTest)
#include "broker_helper_test.moc"
