// paddock-broker and paddock-connect as processes: loopback only, names from --resolve.
#include <QtTest>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "tests/helpers/broker/broker_fixture.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

using namespace paddock::broker::test;

namespace {

const QString kBroker = QString::fromStdString(paddock::test::build_bin() + "/paddock-broker");
const std::string kConnect = paddock::test::build_libexec() + "/paddock-connect";

// Starts paddock-broker with `args` and returns its port (0 on failure).
int start_broker(QProcess& p, const QStringList& args) {
  p.start(kBroker, QStringList{"--listen", "127.0.0.1:0"} + args);
  if (!p.waitForStarted(5000)) return 0;
  for (int i = 0; i < 50 && !p.canReadLine(); ++i) p.waitForReadyRead(100);
  QString line = QString::fromUtf8(p.readLine()).trimmed();
  if (!line.startsWith("listening on 127.0.0.1:")) return 0;
  return line.section(':', -1).toInt();
}

void stop(QProcess& p) {
  p.terminate();
  p.waitForFinished(5000);
}

}  // namespace

class BrokerCliTest : public QObject {
  Q_OBJECT
 private slots:
  void paddock_connect_pumps_stdin_and_stdout_through_the_broker() {
    EchoServer echo;
    QTemporaryDir dir;
    QProcess broker;
    int port = start_broker(broker, {"--allow-domain", "git.example.com", "--resolve", "git.example.com:127.0.0.1",
                                     "--unsafe-allow-loopback-targets", "--events", dir.filePath("events.jsonl")});
    QVERIFY(port > 0);
    paddock::test::RunOptions o;
    o.env_override["HTTPS_PROXY"] = "http://127.0.0.1:" + std::to_string(port);
    o.stdin_data = "SSH-2.0-test\r\nmore bytes";
    o.timeout_ms = 20000;
    auto r = paddock::test::run_process({kConnect, "git.example.com", std::to_string(echo.port())}, o);
    QCOMPARE(r.exit_code, 0);
    QCOMPARE(QString::fromStdString(r.out), QString("SSH-2.0-test\r\nmore bytes"));
    stop(broker);
    QByteArray err = broker.readAllStandardError();
    QVERIFY2(err.contains("UNSAFE") && err.contains("TAINTED"), err.constData());
    QFile events(dir.filePath("events.jsonl"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    QByteArray log = events.readAll();
    QVERIFY2(log.contains("\"event\":\"net_request\"") && log.contains("\"event\":\"net_egress\""), log.constData());
    QVERIFY2(log.contains("\"taint\":\"unsafe_allow_loopback_targets\""), log.constData());
  }

  void strict_mode_needs_the_ssh_port_listed() {
    EchoServer echo;
    QProcess broker;
    int port = start_broker(broker, {"--mode", "strict", "--allow-domain", "git.example.com", "--resolve",
                                     "git.example.com:127.0.0.1", "--unsafe-allow-loopback-targets"});
    QVERIFY(port > 0);
    paddock::test::RunOptions o;
    o.env_override["HTTPS_PROXY"] = "http://127.0.0.1:" + std::to_string(port);
    o.timeout_ms = 20000;
    auto r = paddock::test::run_process({kConnect, "git.example.com", std::to_string(echo.port())}, o);
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.err.find("403 Forbidden") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("Rule: egress.strict_ports: git.example.com allows port(s) 443") != std::string::npos, r.err.c_str());
    stop(broker);
    QCOMPARE(echo.accepted(), 0);

    QProcess listed;
    port = start_broker(listed, {"--mode", "strict", "--allow-domain", "git.example.com:" + QString::number(echo.port()),
                                 "--resolve", "git.example.com:127.0.0.1", "--unsafe-allow-loopback-targets"});
    QVERIFY(port > 0);
    o.env_override["HTTPS_PROXY"] = "http://127.0.0.1:" + std::to_string(port);
    o.stdin_data = "hello";
    r = paddock::test::run_process({kConnect, "git.example.com", std::to_string(echo.port())}, o);
    QCOMPARE(r.exit_code, 0);
    QCOMPARE(QString::fromStdString(r.out), QString("hello"));
    stop(listed);
  }

  void without_the_unsafe_switch_a_loopback_answer_is_refused() {
    EchoServer echo;
    QProcess broker;
    int port = start_broker(broker, {"--allow-domain", "git.example.com", "--resolve", "git.example.com:127.0.0.1"});
    QVERIFY(port > 0);
    paddock::test::RunOptions o;
    o.env_override["HTTPS_PROXY"] = "http://127.0.0.1:" + std::to_string(port);
    auto r = paddock::test::run_process({kConnect, "git.example.com", std::to_string(echo.port())}, o);
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.err.find("vetting: 127.0.0.1 is loopback") != std::string::npos, r.err.c_str());
    stop(broker);
    QVERIFY(!broker.readAllStandardError().contains("UNSAFE"));
    QCOMPARE(echo.accepted(), 0);
  }

  void curl_works_over_connect_and_socks5h() {
    const QString curl = QStandardPaths::findExecutable("curl");
    QVERIFY2(!curl.isEmpty(), "curl is not installed; run scripts/bootstrap");
    QTemporaryDir dir;
    QFile page(dir.filePath("index.html"));
    QVERIFY(page.open(QIODevice::WriteOnly));
    page.write("hello from loopback\n");
    page.close();
    int web_port = 0;
    { paddock::platform::UniqueFd probe = loopback_listener(&web_port); }  // a free port
    QProcess web;
    web.start("python3", {"-m", "http.server", QString::number(web_port), "--bind", "127.0.0.1", "-d", dir.path()});
    QVERIFY2(web.waitForStarted(5000), "python3 (the loopback web server) did not start; run scripts/bootstrap");
    QProcess broker;
    int port = start_broker(broker, {"--allow-domain", "www.example.com", "--resolve", "www.example.com:127.0.0.1",
                                     "--unsafe-allow-loopback-targets"});
    QVERIFY(port > 0);
    const std::string url = "http://www.example.com:" + std::to_string(web_port) + "/index.html";
    std::string proxy = "127.0.0.1:" + std::to_string(port);
    paddock::test::ProcessResult r;
    for (int i = 0; i < 50; ++i) {  // wait for the web server to listen
      r = paddock::test::run_process({curl.toStdString(), "-sS", "--noproxy", "", "-p", "-x", "http://" + proxy, url});
      if (r.exit_code == 0) break;
      QThread::msleep(100);
    }
    QCOMPARE(QString::fromStdString(r.out), QString("hello from loopback\n"));
    r = paddock::test::run_process({curl.toStdString(), "-sS", "--noproxy", "", "-x", "socks5h://" + proxy, url});
    QCOMPARE(QString::fromStdString(r.out), QString("hello from loopback\n"));
    r = paddock::test::run_process({curl.toStdString(), "-s", "--noproxy", "", "-x", "http://" + proxy, url,
                                    "-w", "%{http_code}"});
    QVERIFY2(r.out.find("only tunnels CONNECT") != std::string::npos && r.out.find("501") != std::string::npos, r.out.c_str());
    stop(broker);
    web.terminate();
    web.waitForFinished(5000);
  }

  void bad_arguments_fail_closed() {
    for (const QStringList& args : {QStringList{"--listen", "0.0.0.0:0"}, QStringList{"--listen", "10.0.0.1:0"},
                                    QStringList{"--listen", "127.0.0.1:0", "--allow-domain", "10.0.0.1"},
                                    QStringList{"--listen", "127.0.0.1:0", "--allow-domain", "a b"},
                                    QStringList{"--listen", "127.0.0.1:0", "--mode", "ask"},
                                    QStringList{"--listen", "127.0.0.1:0", "--resolve", "x.test"},
                                    // The IR's egress record: only JSON, only the record's keys, only
                                    // the modes a broker serves, never beside the flags it replaces.
                                    QStringList{"--listen", "127.0.0.1:0", "--egress", "{"},
                                    QStringList{"--listen", "127.0.0.1:0", "--egress", R"({"mode":"allowlist","extra":1})"},
                                    QStringList{"--listen", "127.0.0.1:0", "--egress", R"({"mode":"ask"})"},
                                    QStringList{"--listen", "127.0.0.1:0", "--egress", R"({"mode":"off"})"},
                                    QStringList{"--listen", "127.0.0.1:0", "--egress", R"({"mode":"allowlist"})",
                                                "--allow-domain", "x.test"}}) {
      QProcess p;
      p.start(kBroker, args);
      QVERIFY(p.waitForFinished(5000));
      QVERIFY2(p.exitCode() == 2, qPrintable(args.join(' ')));
      const QByteArray err = p.readAllStandardError();
      QVERIFY2(err.startsWith("paddock-broker: ") && err.count('\n') == 1, err.constData());
    }
  }
};

QTEST_GUILESS_MAIN(BrokerCliTest)
#include "broker_cli_test.moc"
