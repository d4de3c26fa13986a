// The live session view: the log read from events.jsonl exactly once and in order while the
// session runs, asks from the control socket, answers and stop sent back — first against a
// scripted control socket (every protocol case), then against a real sandboxed agent whose ask
// is denied from the inbox.
#include <QLocalServer>
#include <QLocalSocket>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <sys/stat.h>

#include "app_paths.h"
#include "engine/session/event.h"
#include "engine/session/report.h"
#include "ask_inbox.h"
#include "gui_test_env.h"
#include "session_monitor.h"
#include "sessions_model.h"
#include "tests/support/test_paths.h"

using paddock::gui::AskInbox;
using paddock::gui::SessionMonitor;
using paddock::gui::SessionsModel;

namespace {

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  f.write(bytes);
}

QByteArray line(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n'; }

QStringList kinds(const SessionMonitor& m) {
  QStringList out;
  for (int i = 0; i < m.rowCount(); ++i) out << m.data(m.index(i), SessionMonitor::KindRole).toString();
  return out;
}

// Plays the helper's side of the control socket: replies ok, replays, records what it is sent.
class FakeSession : public QObject {
 public:
  explicit FakeSession(const QString& path) {
    QLocalServer::removeServer(path);
    server.listen(path);
    connect(&server, &QLocalServer::newConnection, this, [this] {
      client = server.nextPendingConnection();
      connect(client, &QLocalSocket::readyRead, this, [this] {
        while (client->canReadLine()) {
          const auto cmd = QJsonDocument::fromJson(client->readLine()).object();
          received << cmd;
          client->write(line({{"ok", true}}));
          if (cmd.value("cmd").toString() == "subscribe")
            for (const auto& ev : replay) client->write(line(ev));
        }
      });
    });
  }
  void send(const QJsonObject& ev) { client->write(line(ev)); client->flush(); }

  QLocalServer server;
  QLocalSocket* client = nullptr;
  QList<QJsonObject> received;
  QList<QJsonObject> replay;
};

}  // namespace

class SessionMonitorTest : public QObject {
  Q_OBJECT

 public:
  explicit SessionMonitorTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void the_log_shows_every_event_once_and_in_order_while_the_session_writes_and_broadcasts() {
    const QString dir = env_->state() + "/paddock/sessions/s-log";
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(QDir().mkpath(env_->root() + "/runtime/paddock"));
    const QString events = dir + "/events.jsonl";
    append(events, line({{"event", "session_started"}, {"ts", "2026-11-30T02:00:00.000Z"}, {"session_id", "s-log"},
                         {"command", QJsonArray{"sh"}}, {"ir_hash", "sha256:1"}, {"plan_hash", "sha256:2"},
                         {"backend", "linux"}, {"tainted", false}, {"helper_pid", 1}}));
    append(events, line({{"event", "attestation"}, {"ts", "2026-11-30T02:00:00.001Z"},
                         {"attestation", QJsonObject{{"ir_hash", "sha256:1"}, {"plan_hash", "sha256:2"}, {"backend", "linux"},
                                                     {"abi", 7}, {"capability_vector", QJsonArray{}}, {"taint", QJsonArray{}},
                                                     {"source_layers", QJsonArray{}}}}}));
    FakeSession fake(paddock::gui::AppPaths::controlSocketPath(dir));
    fake.replay << QJsonObject{{"event", "ask"}, {"id", "ask-1"}, {"host", "pypi.org"}, {"port", 443}};

    SessionMonitor m;
    QSignalSpy asked(&m, &SessionMonitor::askRaised);
    m.setSessionDir(dir);
    QCOMPARE(m.sessionId(), QString("s-log"));
    QTRY_VERIFY(m.live());
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    QCOMPARE(asked.size(), 1);
    QCOMPARE(m.pendingAsks().first().toMap().value("host").toString(), QString("pypi.org"));
    QCOMPARE(fake.received.first().value("cmd").toString(), QString("subscribe"));
    QCOMPARE(kinds(m), QStringList({"session_started", "attestation"}));

    // The helper appends to the file, then broadcasts: the row comes from the file, once.
    const QJsonObject req{{"event", "net_request"}, {"host", "pypi.org"}, {"port", 443}, {"protocol", "connect"},
                          {"decision", "allow"}, {"rule", "ask: pypi.org allowed once"}, {"ask_id", "ask-1"},
                          {"reason", "the user allowed it once"}, {"ts", "2026-11-30T02:00:01.000Z"}};
    append(events, line(req));
    fake.send(req);
    QTRY_COMPARE(m.rowCount(), 3);
    QCOMPARE(m.data(m.index(2), SessionMonitor::RuleRole).toString(), QString("ask: pypi.org allowed once"));
    QCOMPARE(m.data(m.index(2), SessionMonitor::PortRole).toInt(), 443);
    QVERIFY2(m.pendingAsks().isEmpty(), "the broker's ask verdict settles the pending ask");
    // The same ask replayed again (subscribe racing an ask) is not asked twice.
    fake.send(fake.replay.first());
    QTest::qWait(50);
    QCOMPARE(asked.size(), 1);

    // Half a line is not shown until its end arrives; a broken line is shown as broken.
    append(events, R"({"event":"net_egress","host":"pypi.org","ip":"151.101.0.223","port":443,)");
    fake.send({{"event", "notice"}});
    QTest::qWait(100);
    QCOMPARE(m.rowCount(), 3);
    append(events, "\"bytes_tx\":10,\"bytes_rx\":4096,\"end\":\"eof\"}\nnot json at all\n");
    QTRY_COMPARE(m.rowCount(), 5);
    QCOMPARE(m.data(m.index(3), SessionMonitor::IpRole).toString(), QString("151.101.0.223"));
    QCOMPARE(m.data(m.index(3), SessionMonitor::BytesRxRole).toLongLong(), 4096);
    QCOMPARE(m.data(m.index(4), SessionMonitor::KindRole).toString(), QString("unreadable"));

    // Answers and stop go to the session as the documented commands.
    fake.send({{"event", "ask"}, {"id", "ask-2"}, {"host", "evil.example"}, {"port", 443}});
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    m.answerAsk("ask-2", "deny");
    QVERIFY(m.pendingAsks().isEmpty());
    m.stop();
    QTRY_COMPARE(fake.received.size(), 3);
    QCOMPARE(fake.received[1], (QJsonObject{{"cmd", "ask_reply"}, {"id", "ask-2"}, {"decision", "deny"}}));
    QCOMPARE(fake.received[2], (QJsonObject{{"cmd", "stop"}}));
    m.answerAsk("ask-3", "maybe");
    QVERIFY(m.lastError().contains("allow_once, allow_session or deny"));

    // The session ends: not live any more, nothing left to answer.
    fake.send({{"event", "ask"}, {"id", "ask-4"}, {"host", "a.example"}, {"port", 443}});
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    fake.client->disconnectFromServer();
    QTRY_VERIFY(!m.live());
    QVERIFY(m.pendingAsks().isEmpty());
  }

  // The inbox watches every running session: asks and answers only, no log read or kept.
  void an_asks_only_monitor_keeps_no_log_but_sees_and_settles_asks() {
    const QString dir = env_->state() + "/paddock/sessions/s-asks";
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(QDir().mkpath(env_->root() + "/runtime/paddock"));
    append(dir + "/events.jsonl", line({{"event", "session_started"}, {"ts", "2026-11-30T02:00:00.000Z"}}));
    FakeSession fake(paddock::gui::AppPaths::controlSocketPath(dir));
    fake.replay << QJsonObject{{"event", "ask"}, {"id", "ask-1"}, {"host", "pypi.org"}, {"port", 443}};
    SessionMonitor m;
    m.setKeepLog(false);
    m.setSessionDir(dir);
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    // A second ask for the same host and port, raised by another connection.
    fake.send({{"event", "ask"}, {"id", "ask-9"}, {"host", "pypi.org"}, {"port", 443}});
    QTRY_COMPARE(m.pendingAsks().size(), 2);
    const QJsonObject req{{"event", "net_request"}, {"host", "pypi.org"}, {"port", 443}, {"protocol", "connect"}, {"decision", "deny"},
                          {"rule", "ask: pypi.org denied"}, {"ask_id", "ask-1"}, {"ts", "2026-11-30T02:00:01.000Z"}};
    append(dir + "/events.jsonl", line(req));
    fake.send(req);
    // Only the ask the event names is settled: the other one still waits for its answer.
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    QCOMPARE(m.pendingAsks().first().toMap().value("id").toString(), QString("ask-9"));
    // A request event without an ask (an ordinary denial of the same host) settles nothing.
    fake.send({{"event", "net_request"}, {"host", "pypi.org"}, {"port", 443}, {"decision", "deny"},
               {"rule", "default deny"}});
    QTest::qWait(50);
    QCOMPARE(m.pendingAsks().size(), 1);
    fake.send({{"event", "net_request"}, {"host", "pypi.org"}, {"port", 443}, {"decision", "deny"},
               {"rule", "ask: pypi.org timed out"}, {"ask_id", "ask-9"}});
    QTRY_VERIFY(m.pendingAsks().isEmpty());
    QTest::qWait(1200);  // longer than the log's poll interval
    QCOMPARE(m.rowCount(), 0);
    fake.send({{"event", "ask"}, {"id", "ask-2"}, {"host", "a.example"}, {"port", 443}});
    QTRY_COMPARE(m.pendingAsks().size(), 1);
    m.answerAsk("ask-2", "allow_once");
    QTRY_COMPARE(fake.received.size(), 2);
    QCOMPARE(fake.received[1], (QJsonObject{{"cmd", "ask_reply"}, {"id", "ask-2"}, {"decision", "allow_once"}}));
  }

  // Selected as it starts (the sessions list shows its directory before the helper listens):
  // the monitor connects once the socket is up, so Stop works without selecting it again.
  void a_session_selected_before_its_socket_is_up_becomes_live_when_it_is() {
    const QString dir = env_->state() + "/paddock/sessions/s-early";
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(QDir().mkpath(env_->root() + "/runtime/paddock"));
    append(dir + "/events.jsonl", line({{"event", "session_started"}, {"ts", "2026-11-30T02:00:00.000Z"}}));
    SessionMonitor m;
    m.setSessionDir(dir);
    QTest::qWait(300);
    QVERIFY(!m.live());
    QVERIFY(m.lastError().isEmpty());
    FakeSession fake(paddock::gui::AppPaths::controlSocketPath(dir));
    QTRY_VERIFY_WITH_TIMEOUT(m.live(), 5000);
    m.stop();
    QTRY_VERIFY(!fake.received.isEmpty() && fake.received.last().value("cmd").toString() == "stop");
  }

  void an_ended_session_shows_its_log_and_refuses_stop_in_words() {
    const QString dir = env_->state() + "/paddock/sessions/s-ended";
    QVERIFY(QDir().mkpath(dir));
    append(dir + "/events.jsonl", line({{"event", "session_ended"}, {"status", "exited"}, {"exit_code", 0}}));
    append(dir + "/report.json", "{}\n");
    SessionMonitor m;
    m.setSessionDir(dir);
    QCOMPARE(kinds(m), QStringList({"session_ended"}));
    QVERIFY(m.data(m.index(0), SessionMonitor::TextRole).toString().contains("exit_code=0"));
    QVERIFY(!m.live());
    m.stop();
    QCOMPARE(m.lastError(), QString("the session is not running"));
  }

  // What the direct-mode audit found when the session ended is an alert row in words: the path,
  // the tool that would run it and why; a part not audited says so.
  void an_audit_finding_is_an_alert_row_naming_the_path_the_tool_and_why() {
    const QString dir = env_->state() + "/paddock/sessions/s-audit";
    QVERIFY(QDir().mkpath(dir));
    append(dir + "/events.jsonl", line({{"event", "audit_finding"}, {"path", "/p/.envrc"}, {"kind", "added"}, {"type", "file"},
                                        {"inside", 0}, {"rule", "tool-executed"}, {"tool", "direnv"},
                                        {"why", "direnv runs it on cd"}, {"severity", "high"}}));
    append(dir + "/events.jsonl", line({{"event", "audit_incomplete"}, {"problem", "/p/big: over its budget"},
                                        {"severity", "high"}}));
    append(dir + "/report.json", "{}\n");
    SessionMonitor m;
    m.setSessionDir(dir);
    QCOMPARE(kinds(m), QStringList({"audit_finding", "audit_incomplete"}));
    QCOMPARE(m.data(m.index(0), SessionMonitor::TextRole).toString(),
             QString("/p/.envrc: direnv would run it (direnv runs it on cd)"));
    QVERIFY(m.data(m.index(0), SessionMonitor::AlertRole).toBool());
    QCOMPARE(m.data(m.index(1), SessionMonitor::TextRole).toString(), QString("not audited: /p/big: over its budget"));
    QVERIFY(m.data(m.index(1), SessionMonitor::AlertRole).toBool());
  }

  // The Network tab's credential rows (docs/credentials.md): each brokered request is a row in
  // words (credential, method, path, status, duration), summed per credential while the session
  // runs (a refusal counted apart); once it ends, the report's sums are the final word.
  void brokered_requests_are_rows_summed_per_credential_and_the_report_is_the_final_word() {
    namespace s = paddock::session;
    const QString dir = env_->state() + "/paddock/sessions/s-credentials";
    QVERIFY(QDir().mkpath(dir));
    const auto request = [](const char* name, const char* decision, int status, int tx, int rx) {
      return QByteArray::fromStdString(s::encode_event(s::make_event(s::CredentialRequest{
                 name, "api.anthropic.com", "POST", "/v1/messages", status, tx, rx, 120, decision,
                 "credential anthropic-api-key"}))) +
             '\n';
    };
    append(dir + "/events.jsonl", request("anthropic-api-key", "allow", 200, 1000, 5000));
    append(dir + "/events.jsonl", request("anthropic-api-key", "allow", 200, 500, 2000));
    append(dir + "/events.jsonl", request("anthropic-api-key", "deny", 403, 100, 0));
    append(dir + "/events.jsonl", request("github-token", "allow", 200, 10, 20));
    SessionMonitor m;
    m.setSessionDir(dir);
    QTRY_COMPARE(m.rowCount(), 4);
    QCOMPARE(m.data(m.index(0), SessionMonitor::TextRole).toString(),
             QString("anthropic-api-key: POST /v1/messages -> 200 (120 ms)"));
    QCOMPARE(m.data(m.index(2), SessionMonitor::DecisionRole).toString(), QString("deny"));
    QVariantList sums = m.credentialUsage();
    QCOMPARE(sums.size(), 2);
    QVariantMap a = sums.at(0).toMap();
    QCOMPARE(a.value("name").toString(), QString("anthropic-api-key"));
    QCOMPARE(a.value("requests").toLongLong(), 2);
    QCOMPARE(a.value("refused").toLongLong(), 1);
    QCOMPARE(a.value("bytesTx").toLongLong(), 1600);  // a refused request's bytes count too
    QCOMPARE(a.value("bytesRx").toLongLong(), 7000);

    // The session ends: its report (what the broker itself counted) replaces the running sums.
    s::Report r;
    r.session_id = "s-credentials";
    r.status = s::ReportStatus::kExited;
    s::CredentialUsage u;
    u.name = "anthropic-api-key";
    u.upstream = "api.anthropic.com:443";
    u.requests = 3;
    u.refused = 1;
    u.bytes_tx = 1700;
    u.bytes_rx = 7100;
    r.credentials.push_back(u);
    append(dir + "/events.jsonl", QByteArray::fromStdString(s::encode_event(s::session_ended_event(r))) + '\n');
    append(dir + "/report.json", "{}\n");
    QTRY_COMPARE(m.credentialUsage().size(), 1);
    a = m.credentialUsage().at(0).toMap();
    QCOMPARE(a.value("requests").toLongLong(), 3);
    QCOMPARE(a.value("bytesRx").toLongLong(), 7100);
  }

  // A log longer than the tail the view reads: a worker finds where the tail starts, the lines
  // before it are counted (not shown), the tail's rows follow in order, and the events written
  // meanwhile are read after it.
  void a_long_log_opens_at_its_tail_without_reading_it_on_the_ui_thread() {
    const QString dir = env_->state() + "/paddock/sessions/s-long";
    QVERIFY(QDir().mkpath(dir));
    const QString events = dir + "/events.jsonl";
    {
      QFile out(events);
      QVERIFY(out.open(QIODevice::WriteOnly));
      QByteArray chunk;
      for (int i = 0; i < 60000; ++i)
        chunk += line({{"event", "notice"}, {"message", QString("n=%1 ").arg(i) + QString(80, 'x')}});
      out.write(chunk);
    }
    const qint64 size = QFileInfo(events).size();
    QVERIFY2(size > 5 * 1024 * 1024, "the log is longer than the tail the view reads");
    SessionMonitor m;
    m.setMaxRows(100000);
    m.setSessionDir(dir);
    QCOMPARE(m.rowCount(), 0);  // nothing was read on this thread yet
    QCOMPARE(m.status(), paddock::gui::ModelStatus::Loading);
    append(events, line({{"event", "session_ended"}, {"status", "exited"}, {"exit_code", 0}}));
    QTRY_COMPARE(m.status(), paddock::gui::ModelStatus::Ready);
    QTRY_VERIFY(m.rowCount() > 0 && m.data(m.index(m.rowCount() - 1), SessionMonitor::KindRole) == "session_ended");
    // Every line is either shown or counted as dropped, none twice.
    QCOMPARE(m.droppedRows() + m.rowCount(), 60001);
    QVERIFY(m.droppedRows() > 0);
    const QString first = m.data(m.index(0), SessionMonitor::TextRole).toString();
    QVERIFY2(first.contains(QString("n=%1 ").arg(m.droppedRows())), qPrintable(first));
  }

  // A report that names changed agent settings is said in the row, in one line of plain words,
  // as `paddock sessions` says it under the session; a report without any says nothing.
  void a_sessions_changed_agent_settings_are_one_line_of_its_row() {
    const QString root = env_->root() + "/config-sessions";
    const QByteArray started =
        R"({"event":"session_started","ts":"2026-11-30T02:00:00.000Z","session_id":"s","command":["sh"],"ir_hash":"sha256:1",)"
        R"("plan_hash":"sha256:2","backend":"linux","tainted":false,"helper_pid":1})" "\n";
    for (const char* id : {"s-changed", "s-plain"}) {
      QVERIFY(QDir().mkpath(root + "/" + id));
      QFile events(root + "/" + id + "/events.jsonl");
      QVERIFY(events.open(QIODevice::WriteOnly));
      events.write(started);
    }
    const QString settings = QDir::homePath() + "/.claude/settings.json";
    QFile changed(root + "/s-changed/report.json");
    QVERIFY(changed.open(QIODevice::WriteOnly));
    changed.write(QString(R"({"session_id":"s-changed","status":"exited","exit_code":0,"config_changes":[)"
                          R"x({"file":"%1","key":"hooks","change":"added"},{"file":"/p/x.json","key":"(file)","change":"unparseable"}]})x")
                      .arg(settings).toUtf8());
    changed.close();
    QFile plain(root + "/s-plain/report.json");
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.write(R"({"session_id":"s-plain","status":"exited","exit_code":0})");
    plain.close();
    SessionsModel sessions;
    sessions.setDirectory(root);
    QCOMPARE(sessions.rowCount(), 2);
    for (int i = 0; i < 2; ++i) {
      const QString id = sessions.data(sessions.index(i), SessionsModel::IdRole).toString();
      const QString line = sessions.get(i).value("configChanges").toString();
      if (id == "s-plain") {
        QVERIFY2(line.isEmpty(), qPrintable(line));
        continue;
      }
      QVERIFY2(line.startsWith("Changed settings that run on your machine: ~/.claude/settings.json hooks, /p/x.json"),
               qPrintable(line));
      QVERIFY2(!line.contains('\n'), qPrintable(line));
    }
  }

  // The app reads sessions with the CLI's reader: whatever a session's files hold, the list shows
  // a row (unreadable, the file named) and the log shows every line (unreadable, with its
  // number and why), and neither crashes.
  void malformed_session_files_are_rows_marked_unreadable_with_the_file_named() {
    const QString root = env_->root() + "/malformed-sessions";
    auto put = [&](const QString& id, const QString& name, const QByteArray& bytes) {
      QVERIFY(QDir().mkpath(root + "/" + id));
      QFile f(root + "/" + id + "/" + name);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    };
    const QByteArray started =
        R"({"event":"session_started","ts":"2026-11-30T02:00:00.000Z","session_id":"s","command":["sh"],"ir_hash":"sha256:1",)"
        R"("plan_hash":"sha256:2","backend":"linux","tainted":false,"helper_pid":1})" "\n";
    put("s-ok", "events.jsonl", started);
    put("s-ok", "report.json", R"({"session_id":"s-ok","status":"stopped","exit_code":143})");
    put("s-confused", "events.jsonl", started);
    put("s-confused", "report.json", R"({"session_id":"s","status":{"a":1},"exit_code":[]})");
    put("s-badline", "events.jsonl", "{\"event\":\"session_started\",\"ts\":5}\n");
    put("s-gone", "events.jsonl", started);
    // Quiet for a minute: a helper gone long ago (a fresh log would be a session starting).
    QFile gone_log(root + "/s-gone/events.jsonl");
    QVERIFY(gone_log.open(QIODevice::ReadWrite) &&
            gone_log.setFileTime(QDateTime::currentDateTime().addSecs(-60), QFileDevice::FileModificationTime));
    gone_log.close();
    QVERIFY(QDir().mkpath(root + "/s-fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(root + "/s-fifo/report.json").constData(), 0600), 0);
    SessionsModel sessions;
    sessions.setDirectory(root);
    QCOMPARE(sessions.rowCount(), 5);
    QMap<QString, int> row;
    for (int i = 0; i < sessions.rowCount(); ++i)
      row[sessions.data(sessions.index(i), SessionsModel::IdRole).toString()] = i;
    auto at = [&](const char* id, int role) { return sessions.data(sessions.index(row.value(id)), role); };
    QCOMPARE(at("s-ok", SessionsModel::StateRole).toString(), QString("stopped"));
    QVERIFY(!at("s-ok", SessionsModel::AttentionRole).toBool());
    QCOMPARE(at("s-gone", SessionsModel::StateRole).toString(), QString("abandoned"));
    QVERIFY(at("s-gone", SessionsModel::AttentionRole).toBool());
    for (const auto& [id, file] : {std::pair{"s-confused", "report.json"}, std::pair{"s-badline", "events.jsonl"},
                                   std::pair{"s-fifo", "report.json"}}) {
      QCOMPARE(at(id, SessionsModel::StateRole).toString(), QString("unreadable"));
      QVERIFY2(at(id, SessionsModel::ProblemRole).toString().contains(file),
               qPrintable(at(id, SessionsModel::ProblemRole).toString()));
      QVERIFY(at(id, SessionsModel::AttentionRole).toBool());
    }

    put("s-log", "events.jsonl",
        started + R"({"event":"no_such_event","ts":"t"})" "\n" R"({"event":"limit_hit","ts":[],"limit":"x"})" "\n"
                  R"({"event":"net_request","ts":"t","count":7,"last_ts":"u","host":"a","port":1,"protocol":"connect",)"
                  R"("decision":"deny","rule":"r","reason":""})" "\n");
    SessionMonitor m;
    m.setSessionDir(root + "/s-log");
    QCOMPARE(kinds(m), QStringList({"session_started", "unreadable", "unreadable", "net_request"}));
    QVERIFY(m.data(m.index(1), SessionMonitor::TextRole).toString().contains("events.jsonl line 2"));
    QVERIFY(m.data(m.index(1), SessionMonitor::TextRole).toString().contains("unknown event type"));
    QVERIFY(m.data(m.index(2), SessionMonitor::TextRole).toString().contains("line 3"));
    QVERIFY(m.data(m.index(1), SessionMonitor::AlertRole).toBool());
    QVERIFY(m.data(m.index(3), SessionMonitor::AlertRole).toBool());  // a denial
    QVERIFY(m.data(m.index(3), SessionMonitor::TextRole).toString().contains("7 times"));
    QVERIFY(!m.data(m.index(0), SessionMonitor::AlertRole).toBool());
  }

  void a_real_sandboxed_agents_ask_reaches_the_inbox_and_its_deny_reaches_the_agent() {
    // Real `paddock run --net ask`: curl inside asks the broker for a domain no policy lists;
    // the inbox (as the tray and Sessions page use it) denies it; curl sees the 403. A deny
    // never resolves the name, so nothing leaves this machine.
    const QString project = env_->root() + "/home/ask-project";
    QVERIFY(QDir().mkpath(project));
    QProcess run;
    run.setWorkingDirectory(project);
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert("HOME", env_->root() + "/home");
    run.setProcessEnvironment(e);
    run.start(QString::fromStdString(paddock::test::build_bin()) + "/paddock",
              {"run", "--profile", "permissive", "--net", "ask", "--", "curl", "-sS", "-o", "/dev/null",
               "-w", "%{http_code}", "https://unlisted.invalid/"});
    QVERIFY(run.waitForStarted());

    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    AskInbox inbox;
    QSignalSpy raised(&inbox, &AskInbox::askRaised);
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), inbox.setSessionDirs(sessions.runningDirs()), inbox.count() == 1),
                             20000);
    QCOMPARE(inbox.data(inbox.index(0), AskInbox::HostRole).toString(), QString("unlisted.invalid"));
    QCOMPARE(inbox.data(inbox.index(0), AskInbox::PortRole).toInt(), 443);
    QCOMPARE(raised.size(), 1);
    const QString dir = inbox.data(inbox.index(0), AskInbox::SessionDirRole).toString();
    inbox.answer(0, "deny");

    // Not waitForFinished(): it would block the event loop that carries the answer.
    QTRY_VERIFY_WITH_TIMEOUT(run.state() == QProcess::NotRunning, 20000);
    const QByteArray out = run.readAllStandardOutput(), err = run.readAllStandardError();
    QVERIFY2(run.exitCode() != 0, out + err);
    QVERIFY2(out.contains("403") || err.contains("403"), out + err);
    QFile events(dir + "/events.jsonl");
    QVERIFY(events.open(QIODevice::ReadOnly));
    const QByteArray log = events.readAll();
    QVERIFY2(log.contains("ask: unlisted.invalid denied by the user"), log);
    QTRY_COMPARE(inbox.count(), 0);
  }

 private:
  paddock::gui::test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  QGuiApplication app(argc, argv);
  SessionMonitorTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "session_monitor_test.moc"
