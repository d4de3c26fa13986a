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
    QVERIFY2(r.out.find("no=[localhost,127.0.0.1,::1]") != std::string::npos, all.c_str());
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
};

QTEST_GUILESS_MAIN(BrokerHelperTest)
#include "broker_helper_test.moc"
