// The Usage tab's model: it asks the session's control socket for usage only while active, shows
// the helper's answer (decoded by the session module's decoder) with its limits, stops asking
// (and disconnects) when made inactive or when the session goes away, and says why when an answer
// does not read. The helper's side is played by a local server that answers with the session
// module's encoder.
#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QtTest>

#include "app_paths.h"
#include "engine/session/usage_message.h"
#include "gui_test_env.h"
#include "usage_monitor.h"

using paddock::gui::AppPaths;
using paddock::gui::UsageMonitor;
using paddock::session::LiveUsage;

namespace {

class FakeHelper : public QObject {
 public:
  explicit FakeHelper(const QString& path) {
    QDir().mkpath(QFileInfo(path).path());
    QLocalServer::removeServer(path);
    server.listen(path);
    connect(&server, &QLocalServer::newConnection, this, [this] {
      client = server.nextPendingConnection();
      ++connections;
      connect(client, &QLocalSocket::disconnected, this, [this] { ++disconnections; });
      connect(client, &QLocalSocket::readyRead, this, [this] {
        while (client->canReadLine()) {
          received << client->readLine().trimmed();
          client->write(answer + '\n');
          client->flush();
        }
      });
    });
  }
  QLocalServer server;
  QLocalSocket* client = nullptr;
  QList<QByteArray> received;
  QByteArray answer;
  int connections = 0, disconnections = 0;
};

}  // namespace

class UsageMonitorTest : public QObject {
  Q_OBJECT
  paddock::gui::test::GuiTestEnv env_;

  QString makeSession(const QString& id) {
    const QString dir = env_.state() + "/paddock/sessions/" + id;
    QDir().mkpath(dir);
    return dir;
  }

 private slots:
  void it_asks_only_while_active_and_shows_the_answer_with_its_limits() {
    const QString dir = makeSession("20260101T000000Z-aaaa");
    FakeHelper helper(AppPaths::controlSocketPath(dir));
    LiveUsage u;
    u.cpu_ms = 1500;
    u.memory_bytes = 48ll << 20;
    u.processes = 3;
    u.limits.memory_bytes = 512ll << 20;
    u.limits.processes = 64;
    helper.answer = QByteArray::fromStdString(paddock::session::encode_usage_reply(u));

    UsageMonitor m;
    m.setSessionDir(dir);
    QCoreApplication::processEvents();
    QCOMPARE(helper.connections, 0);  // not shown: not asked
    QVERIFY(!m.live());

    m.setActive(true);
    QTRY_VERIFY(m.live());
    QCOMPARE(helper.received.first(), QByteArray(R"({"cmd":"usage"})"));
    QCOMPARE(m.cpuMs(), qint64(1500));
    QCOMPARE(m.memoryBytes(), qint64(48) << 20);
    QCOMPARE(m.processes(), qint64(3));
    QCOMPARE(m.cpuLimitMs(), qint64(-1));  // the plan sets no CPU limit
    QCOMPARE(m.memoryLimit(), qint64(512) << 20);
    QCOMPARE(m.processLimit(), qint64(64));

    // The next answer replaces the values: it is asked again.
    u.cpu_ms = 2600;
    helper.answer = QByteArray::fromStdString(paddock::session::encode_usage_reply(u));
    QTRY_COMPARE_WITH_TIMEOUT(m.cpuMs(), qint64(2600), 10000);
    QVERIFY(helper.received.size() >= 2);

    m.setActive(false);
    QTRY_COMPARE(helper.disconnections, 1);
    QVERIFY(!m.live());
    QCOMPARE(m.cpuMs(), qint64(-1));
  }

  void an_ended_session_is_not_asked() {
    const QString dir = makeSession("20260101T000000Z-bbbb");
    FakeHelper helper(AppPaths::controlSocketPath(dir));
    QFile report(dir + "/report.json");
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write("{}");
    report.close();
    UsageMonitor m;
    m.setSessionDir(dir);
    m.setActive(true);
    QCoreApplication::processEvents();
    QCOMPARE(helper.connections, 0);
    QVERIFY(!m.live());
  }

  void an_answer_that_does_not_read_is_named_and_the_asking_stops() {
    const QString dir = makeSession("20260101T000000Z-cccc");
    FakeHelper helper(AppPaths::controlSocketPath(dir));
    helper.answer = R"({"ok":false,"error":"unknown command; expected stop, subscribe or ask_reply"})";
    UsageMonitor m;
    m.setSessionDir(dir);
    m.setActive(true);
    QTRY_VERIFY(m.error().contains("unknown command"));
    QVERIFY(!m.live());
    helper.answer = R"({"ok":true,"usage":{"cpu_ms":"many"}})";
    m.setActive(false);
    m.setActive(true);
    QTRY_VERIFY2(m.error().contains("usage.cpu_ms"), qPrintable(m.error()));
    QVERIFY(!m.live());
  }

  void the_session_going_away_ends_the_live_values() {
    const QString dir = makeSession("20260101T000000Z-dddd");
    auto* helper = new FakeHelper(AppPaths::controlSocketPath(dir));
    helper->answer = QByteArray::fromStdString(paddock::session::encode_usage_reply(LiveUsage{}));
    UsageMonitor m;
    m.setSessionDir(dir);
    m.setActive(true);
    QTRY_VERIFY(m.live());
    delete helper;  // the helper's socket closes as the session ends
    QTRY_VERIFY(!m.live());
    QCOMPARE(m.error(), QString());
  }
};

QTEST_MAIN(UsageMonitorTest)
#include "usage_monitor_test.moc"
