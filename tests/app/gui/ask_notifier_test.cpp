// Asks as desktop notifications with Allow and Deny: against a fake freedesktop notification
// service on a private session bus (a dbus-daemon started here) that records each Notify and
// sends ActionInvoked as a desktop would when a button is pressed. The answer reaches the
// session's control socket (played by a local server) as the Sessions page would send it; an ask
// settled in the app withdraws its notification; with nobody owning the service's name, no
// notification with actions is attempted (the tray's plain one is the fallback).
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

#include "app_paths.h"
#include "ask_inbox.h"
#include "ask_notifier.h"
#include "gui_test_env.h"

using paddock::gui::AppPaths;
using paddock::gui::AskInbox;
using paddock::gui::AskNotifier;

namespace {

constexpr const char* kPath = "/org/freedesktop/Notifications";
constexpr const char* kName = "org.freedesktop.Notifications";

QByteArray line(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n'; }

// The helper's side of a session's control socket: ok to everything, its asks on subscribe.
class FakeSession : public QObject {
 public:
  explicit FakeSession(const QString& path, QList<QJsonObject> asks) : replay(std::move(asks)) {
    QDir().mkpath(QFileInfo(path).path());
    QLocalServer::removeServer(path);
    server.listen(path);
    connect(&server, &QLocalServer::newConnection, this, [this] {
      QLocalSocket* c = server.nextPendingConnection();
      connect(c, &QLocalSocket::readyRead, this, [this, c] {
        while (c->canReadLine()) {
          const auto cmd = QJsonDocument::fromJson(c->readLine()).object();
          received << cmd;
          c->write(line({{"ok", true}}));
          if (cmd.value("cmd").toString() == "subscribe")
            for (const auto& ev : replay) c->write(line(ev));
          c->flush();
        }
      });
    });
  }
  QJsonObject lastReply() const {
    for (auto it = received.rbegin(); it != received.rend(); ++it)
      if (it->value("cmd") == "ask_reply") return *it;
    return {};
  }
  QLocalServer server;
  QList<QJsonObject> received, replay;
};

}  // namespace

// The desktop's notification server, as far as Paddock uses it.
class FakeNotifications : public QObject {
  Q_OBJECT
  Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

 public:
  struct Shown {
    uint id;
    QString summary, body;
    QStringList actions;
    int timeout;
  };
  explicit FakeNotifications(QDBusConnection bus) : bus_(bus) {}
  void invoke(uint id, const QString& key) {
    QDBusMessage m = QDBusMessage::createSignal(kPath, kName, "ActionInvoked");
    m << id << key;
    bus_.send(m);
  }
  QList<Shown> shown;
  QList<uint> closed;

 public slots:
  QStringList GetCapabilities() { return {"actions", "body"}; }
  uint Notify(const QString&, uint, const QString&, const QString& summary, const QString& body,
              const QStringList& actions, const QVariantMap&, int timeout) {
    shown << Shown{++next_, summary, body, actions, timeout};
    return next_;
  }
  void CloseNotification(uint id) { closed << id; }

 private:
  QDBusConnection bus_;
  uint next_ = 40;
};

class AskNotifierTest : public QObject {
  Q_OBJECT
  paddock::gui::test::GuiTestEnv env_;
  QProcess bus_;
  QString address_;

  QString sessionWithAsk(const QString& id, const QString& askId, const QString& host, FakeSession** out) {
    const QString dir = env_.state() + "/paddock/sessions/" + id;
    QDir().mkpath(dir);
    *out = new FakeSession(AppPaths::controlSocketPath(dir),
                           {QJsonObject{{"event", "ask"}, {"id", askId}, {"host", host}, {"port", 443}}});
    return dir;
  }

 private slots:
  void initTestCase() {
    const QString daemon = QStandardPaths::findExecutable("dbus-daemon");
    QVERIFY2(!daemon.isEmpty(), "dbus-daemon is not installed (scripts/bootstrap installs it)");
    bus_.start(daemon, {"--session", "--nofork", "--print-address=1"});
    QVERIFY(bus_.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT((bus_.waitForReadyRead(100), bus_.canReadLine()), 20000);
    address_ = QString::fromUtf8(bus_.readLine()).trimmed();
    QVERIFY2(!address_.isEmpty(), "dbus-daemon printed no address");
    // Before anything in this process opens the session bus: the private one is it.
    qputenv("DBUS_SESSION_BUS_ADDRESS", address_.toUtf8());
    QVERIFY(QDBusConnection::sessionBus().isConnected());
  }

  void cleanupTestCase() {
    bus_.terminate();
    bus_.waitForFinished();
  }

  void allow_and_deny_on_the_notification_answer_the_ask_through_the_control_socket() {
    QDBusConnection desktop = QDBusConnection::connectToBus(address_, "desktop");
    FakeNotifications server(desktop);
    QVERIFY(desktop.registerObject(kPath, &server, QDBusConnection::ExportAllSlots));
    QVERIFY(desktop.registerService(kName));

    AskNotifier notifier;
    QTRY_VERIFY(notifier.ready());
    QVERIFY(notifier.actionsAvailable());
    AskInbox inbox;
    notifier.setInbox(&inbox);

    FakeSession *denied = nullptr, *allowed = nullptr;
    const QString d1 = sessionWithAsk("20261201T000000Z-deny", "ask-1", "evil.example", &denied);
    const QString d2 = sessionWithAsk("20261201T000001Z-allow", "ask-2", "pypi.org", &allowed);
    std::unique_ptr<FakeSession> own1(denied), own2(allowed);
    inbox.setSessionDirs({d1, d2});
    QTRY_COMPARE(server.shown.size(), 2);
    QTRY_COMPARE(notifier.openNotifications(), 2);
    for (const auto& s : server.shown) {
      QVERIFY2(s.actions.contains(AskNotifier::kAllow) && s.actions.contains(AskNotifier::kDeny), qPrintable(s.actions.join(",")));
      QVERIFY(s.timeout > 0);  // it goes away with the ask's timeout
    }
    auto shownFor = [&](const QString& host) {
      for (const auto& s : server.shown)
        if (s.summary.contains(host)) return s.id;
      return 0u;
    };
    QVERIFY(shownFor("evil.example:443") != 0 && shownFor("pypi.org:443") != 0);

    server.invoke(shownFor("evil.example"), AskNotifier::kDeny);
    QTRY_COMPARE(denied->lastReply().value("decision").toString(), QString("deny"));
    QCOMPARE(denied->lastReply().value("id").toString(), QString("ask-1"));
    server.invoke(shownFor("pypi.org"), AskNotifier::kAllow);
    QTRY_COMPARE(allowed->lastReply().value("decision").toString(), QString("allow_once"));
    QCOMPARE(allowed->lastReply().value("id").toString(), QString("ask-2"));
    QTRY_COMPARE(notifier.openNotifications(), 0);
    QTRY_VERIFY(server.closed.contains(shownFor("evil.example")) && server.closed.contains(shownFor("pypi.org")));
    QCOMPARE(inbox.count(), 0);

    // Another application's notification (an id Paddock did not get) is not Paddock's to answer.
    const auto before = denied->received.size() + allowed->received.size();
    server.invoke(7, AskNotifier::kAllow);
    QTest::qWait(200);  // (not a timing assertion: nothing may arrive, however long one waits)
    QCOMPARE(denied->received.size() + allowed->received.size(), before);
    inbox.setSessionDirs({});
    desktop.unregisterService(kName);
    desktop.unregisterObject(kPath);
    QDBusConnection::disconnectFromBus("desktop");
  }

  void an_ask_answered_in_the_app_withdraws_its_notification() {
    QDBusConnection desktop = QDBusConnection::connectToBus(address_, "desktop2");
    FakeNotifications server(desktop);
    QVERIFY(desktop.registerObject(kPath, &server, QDBusConnection::ExportAllSlots));
    QVERIFY(desktop.registerService(kName));
    AskNotifier notifier;
    QTRY_VERIFY(notifier.ready());
    AskInbox inbox;
    notifier.setInbox(&inbox);
    FakeSession* session = nullptr;
    const QString dir = sessionWithAsk("20261201T000002Z-app", "ask-3", "crates.io", &session);
    std::unique_ptr<FakeSession> own(session);
    inbox.setSessionDirs({dir});
    QTRY_COMPARE(notifier.openNotifications(), 1);
    const uint id = server.shown.last().id;
    inbox.answer(0, "allow_session");
    QTRY_VERIFY(server.closed.contains(id));
    QCOMPARE(notifier.openNotifications(), 0);
    QCOMPARE(session->lastReply().value("decision").toString(), QString("allow_session"));
    inbox.setSessionDirs({});
    desktop.unregisterService(kName);
    desktop.unregisterObject(kPath);
    QDBusConnection::disconnectFromBus("desktop2");
  }

  void without_a_notification_service_no_actions_are_offered() {
    QVERIFY(!QDBusConnection::sessionBus().interface()->isServiceRegistered(kName));
    AskNotifier notifier;
    QTRY_VERIFY(notifier.ready());
    QVERIFY(!notifier.actionsAvailable());
    AskInbox inbox;
    notifier.setInbox(&inbox);
    FakeSession* session = nullptr;
    const QString dir = sessionWithAsk("20261201T000003Z-none", "ask-4", "example.org", &session);
    std::unique_ptr<FakeSession> own(session);
    inbox.setSessionDirs({dir});
    QTRY_COMPARE(inbox.count(), 1);
    QCoreApplication::processEvents();
    QCOMPARE(notifier.openNotifications(), 0);  // nothing shown on the bus; the ask waits in the app
    inbox.setSessionDirs({});
  }
};

QTEST_GUILESS_MAIN(AskNotifierTest)
#include "ask_notifier_test.moc"
