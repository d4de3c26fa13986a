// The whole app (the real Main.qml: every page, the sessions list, the ask inbox, the tray
// model) while real sessions end: one ends on its own, one is stopped the way the tray stops it,
// one from the open session's Stop button, one in a terminal (a script acting as the emulator),
// and the selected session's monitor sees every end. The test command also builds and runs this
// under AddressSanitizer (docs/architecture.md, "The app's lifetimes"), where a monitor used
// after the list that owned it retired it is a reported error, not a lucky run.
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

// The launcher's State enum, by value (launcher.h).
constexpr int kEnded = 3;

// Runs the event loop until `done` holds or `ms` pass; whether it held.
template <class F>
bool wait_for(F done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > ms) return false;
    QTest::qWait(50);
  }
  return true;
}

}  // namespace

class SessionEndTest : public QObject {
  Q_OBJECT

 public:
  explicit SessionEndTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    paddock::gui::test::capture_warnings();
    window_ = paddock::gui::test::main_window(engine_);
    QVERIFY(window_);
    // Every page is made once, so that each page's bindings to the sessions are alive.
    nav_ = window_->findChild<QObject*>("nav");
    QVERIFY(nav_);
    for (int i : {1, 2, 3, 0}) {
      nav_->setProperty("currentIndex", i);
      QTest::qWait(50);
    }
    launcher_ = window_->findChild<QObject*>("launcher");
    sessions_page_ = window_->findChild<QQuickItem*>("sessionsPage");
    QVERIFY(launcher_ && sessions_page_);
    project_ = env_->root() + "/home/end-project";
    QVERIFY(QDir().mkpath(project_));
    launcher_->setProperty("project", project_);
    launcher_->setProperty("agentPreset", QString());
    launcher_->setProperty("netMode", "off");
  }

  void a_session_that_ends_on_its_own_leaves_the_app_up() {
    for (int round = 0; round < 3; ++round) {
      const QString dir = launch("sh -c 'sleep 0.5; echo done'");
      QVERIFY(!dir.isEmpty());
      QTRY_COMPARE_WITH_TIMEOUT(launcher_->property("state").toInt(), kEnded, 20000);
      QTRY_VERIFY_WITH_TIMEOUT(!running(dir), 10000);
      QTest::qWait(200);  // the inbox's monitor of that session is retired on a later turn
    }
  }

  void a_session_stopped_as_the_tray_stops_it_leaves_the_app_up() {
    for (int round = 0; round < 3; ++round) {
      const QString dir = launch("sleep 60");
      QVERIFY(!dir.isEmpty());
      QTRY_VERIFY_WITH_TIMEOUT(running(dir), 10000);
      auto* inbox = window_->findChild<QObject*>("askInbox");
      QVERIFY(inbox);
      // The tray's Stop: through the inbox's connection to the session's control socket.
      const auto stop_from_tray = [&] {
        bool watched = false;
        QMetaObject::invokeMethod(inbox, "stopSession", Q_RETURN_ARG(bool, watched), Q_ARG(QString, dir));
        return watched;
      };
      QVERIFY(wait_for(stop_from_tray, 10000));
      QTRY_COMPARE_WITH_TIMEOUT(launcher_->property("state").toInt(), kEnded, 20000);
      QTRY_VERIFY_WITH_TIMEOUT(!running(dir), 10000);
      QTest::qWait(200);
    }
  }

  void a_session_stopped_from_its_open_detail_leaves_the_app_up() {
    nav_->setProperty("currentIndex", 1);
    for (int round = 0; round < 2; ++round) {
      const QString dir = launch("sleep 60");
      QVERIFY(!dir.isEmpty());
      sessions_page_->setProperty("selectedDir", dir);
      auto* stop = window_->findChild<QQuickItem*>("stopButton");
      QVERIFY(stop);
      QTRY_VERIFY_WITH_TIMEOUT(stop->property("enabled").toBool(), 10000);
      QMetaObject::invokeMethod(stop, "clicked");
      QTRY_COMPARE_WITH_TIMEOUT(launcher_->property("state").toInt(), kEnded, 20000);
      QTRY_VERIFY_WITH_TIMEOUT(!running(dir), 10000);
      QTRY_VERIFY_WITH_TIMEOUT(!stop->property("enabled").toBool(), 10000);
      QTest::qWait(200);
    }
    nav_->setProperty("currentIndex", 0);
  }

  void a_terminal_session_that_ends_leaves_the_app_up() {
    const QString script = env_->root() + "/fake-terminal";
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\n"
            "# A terminal emulator without a window: `-e COMMAND ARGS...` runs COMMAND.\n"
            "[ \"$1\" = -e ] || exit 64\n"
            "shift\n"
            "\"$@\" >/dev/null 2>&1\n");
    f.close();
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    launcher_->setProperty("terminal", script);
    launcher_->setProperty("command", "sh -c 'sleep 0.5'");
    const QStringList before = session_dirs();
    bool ok = false;
    QMetaObject::invokeMethod(launcher_, "launchInTerminal", Q_RETURN_ARG(bool, ok));
    QVERIFY(ok);
    QString dir;
    QTRY_VERIFY_WITH_TIMEOUT(!(dir = new_dir(before)).isEmpty(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(dir + "/report.json"), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!running(dir), 10000);
    QTest::qWait(300);
  }

  void nothing_went_wrong_on_the_way() {
    QVERIFY(window_->isVisible());
    // QML warnings name the binding that broke; a monitor used after it was deleted crashes
    // before here (or, under AddressSanitizer, stops the test with the report).
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }

 private:
  QAbstractItemModel* sessions_model() const {
    auto* list = window_->findChild<QQuickItem*>("sessionsList");
    return list ? qvariant_cast<QAbstractItemModel*>(list->property("model")) : nullptr;
  }

  // Whether the sessions list has `dir` as a running session.
  bool running(const QString& dir) const {
    auto* model = sessions_model();
    if (!model) return false;
    const auto roles = model->roleNames();
    for (int i = 0; i < model->rowCount(); ++i) {
      const auto idx = model->index(i, 0);
      if (model->data(idx, roles.key("dir")).toString() == dir) return model->data(idx, roles.key("running")).toBool();
    }
    return false;
  }

  QStringList session_dirs() const {
    const QString root = env_->state() + "/paddock/sessions";
    QStringList out;
    for (const QString& d : QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) out << root + "/" + d;
    return out;
  }

  QString new_dir(const QStringList& before) const {
    for (const QString& d : session_dirs())
      if (!before.contains(d)) return d;
    return {};
  }

  // Launches `command` in the background as the Home page does; the new session's directory,
  // "" when the launch did not become a running session.
  QString launch(const QString& command) {
    launcher_->setProperty("command", command);
    bool ok = false;
    QMetaObject::invokeMethod(launcher_, "launchInBackground", Q_RETURN_ARG(bool, ok));
    if (!ok || !wait_for([&] { return !launcher_->property("sessionId").toString().isEmpty(); }, 20000)) {
      qWarning("launch failed: %s", qPrintable(launcher_->property("message").toString()));
      return {};
    }
    return env_->state() + "/paddock/sessions/" + launcher_->property("sessionId").toString();
  }

  paddock::gui::test::GuiTestEnv* env_;
  QQmlApplicationEngine engine_;
  QQuickWindow* window_ = nullptr;
  QObject* nav_ = nullptr;
  QObject* launcher_ = nullptr;
  QQuickItem* sessions_page_ = nullptr;
  QString project_;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before QApplication: the platform reads XDG_RUNTIME_DIR
  QApplication app(argc, argv);
  QQuickStyle::setStyle("Fusion");
  SessionEndTest test(&env);
  return QTest::qExec(&test, argc, argv);
}

#include "session_end_test.moc"
