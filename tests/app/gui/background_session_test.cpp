// The whole app (the real Main.qml) after "Run in background" with the real helper: the Sessions
// page shows the new session, not the one the user looked at before, and its Stop works at once
// (the detail connects to the session's control socket even when it is selected before the
// socket is up). Run as the user runs it: ten launches in a row, each stopped from the page.
#include <QApplication>
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_paths.h"
#include "gui_test_env.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using paddock::gui::test::qt_warnings;

namespace {

constexpr int kEnded = 3;  // the launcher's State enum, by value (launcher.h)

}  // namespace

class BackgroundSessionTest : public QObject {
  Q_OBJECT

 public:
  explicit BackgroundSessionTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    paddock::gui::test::capture_warnings();
    window_ = paddock::gui::test::main_window(engine_);
    QVERIFY(window_);
    nav_ = window_->findChild<QObject*>("nav");
    launcher_ = window_->findChild<QObject*>("launcher");
    page_ = window_->findChild<QQuickItem*>("sessionsPage");
    QVERIFY(nav_ && launcher_ && page_);
    const QString project = env_->root() + "/home/bg-project";
    QVERIFY(QDir().mkpath(project));
    launcher_->setProperty("project", project);
    launcher_->setProperty("agentPreset", QString());
    launcher_->setProperty("netMode", "off");
  }

  void after_run_in_background_the_sessions_page_shows_the_new_session_with_a_working_stop() {
    // An older session, ended, is the one the user looked at last.
    const QString older = launch("true");
    QVERIFY(!older.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(launcher_->property("state").toInt(), kEnded, 20000);
    page_->setProperty("selectedDir", older);

    for (int round = 0; round < 10; ++round) {
      nav_->setProperty("currentIndex", 0);
      const QString dir = launch("sleep 60");
      QVERIFY(!dir.isEmpty());
      nav_->setProperty("currentIndex", 1);  // the user goes to Sessions (not through "Open session")
      QTRY_COMPARE_WITH_TIMEOUT(page_->property("selectedDir").toString(), dir, 5000);
      auto* stop = window_->findChild<QQuickItem*>("stopButton");
      QVERIFY(stop);
      QTRY_VERIFY_WITH_TIMEOUT(stop->property("enabled").toBool(), 5000);
      QMetaObject::invokeMethod(stop, "clicked");
      QTRY_COMPARE_WITH_TIMEOUT(launcher_->property("state").toInt(), kEnded, 20000);
      QTRY_VERIFY_WITH_TIMEOUT(!stop->property("enabled").toBool(), 10000);
    }
    QVERIFY(window_->isVisible());
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }

 private:
  // Launches `command` as "Run in background" does; the new session's directory, or "".
  QString launch(const QString& command) {
    launcher_->setProperty("command", command);
    bool ok = false;
    QMetaObject::invokeMethod(launcher_, "launchInBackground", Q_RETURN_ARG(bool, ok));
    QElapsedTimer t;
    t.start();
    while (ok && launcher_->property("sessionId").toString().isEmpty() && t.elapsed() < 20000) QTest::qWait(20);
    const QString id = launcher_->property("sessionId").toString();
    if (id.isEmpty()) qWarning("launch failed: %s", qPrintable(launcher_->property("message").toString()));
    return id.isEmpty() ? QString() : env_->state() + "/paddock/sessions/" + id;
  }

  paddock::gui::test::GuiTestEnv* env_;
  QQmlApplicationEngine engine_;
  QQuickWindow* window_ = nullptr;
  QObject* nav_ = nullptr;
  QObject* launcher_ = nullptr;
  QQuickItem* page_ = nullptr;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before QApplication: the platform reads XDG_RUNTIME_DIR
  QApplication app(argc, argv);
  QQuickStyle::setStyle("Fusion");
  BackgroundSessionTest test(&env);
  return QTest::qExec(&test, argc, argv);
}

#include "background_session_test.moc"
