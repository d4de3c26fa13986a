#include "tests/app/gui/gui_test_env.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QTest>
#include <QtGlobal>

#include <execinfo.h>

#include <utility>

#include "tests/support/test_paths.h"

namespace paddock::gui::test {

GuiTestEnv::GuiTestEnv() {
  root_.setAutoRemove(true);
  for (const char* d : {"runtime", "config", "state", "home"}) QDir(root_.path()).mkpath(d);
  QFile::setPermissions(root_.path() + "/runtime", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  qputenv("XDG_RUNTIME_DIR", (root_.path() + "/runtime").toUtf8());
  qputenv("XDG_CONFIG_HOME", (root_.path() + "/config").toUtf8());
  qputenv("XDG_STATE_HOME", (root_.path() + "/state").toUtf8());
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
}

namespace {
QtMessageHandler g_previous = nullptr;
bool g_capturing = false;

void capture(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (g_previous) g_previous(type, ctx, msg);
  if (type == QtDebugMsg || type == QtInfoMsg) return;
  qt_warnings() << msg;
  // Where it came from: a warning of Qt's own names no caller, and one that shows up once in many
  // runs must be traceable from that one log (the tests link with -rdynamic for the names).
  void* frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}
}  // namespace

void capture_warnings() {
  if (std::exchange(g_capturing, true)) return;
  g_previous = qInstallMessageHandler(capture);
}

QStringList& qt_warnings() {
  static QStringList warnings;
  return warnings;
}

QString slurp(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

void put(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size() || !f.flush())
    qFatal("cannot write %s: %s", qPrintable(path), qPrintable(f.errorString()));
}

QQuickWindow* main_window(QQmlApplicationEngine& engine) {
  engine.load(QUrl("qrc:/Paddock/qml/Main.qml"));
  if (engine.rootObjects().size() != 1) return nullptr;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
  return window && QTest::qWaitForWindowExposed(window) ? window : nullptr;
}

QProcess* start_run(QObject* parent, const GuiTestEnv& env, const QString& project, const QStringList& options,
                    const QStringList& command) {
  auto* run = new QProcess(parent);
  run->setWorkingDirectory(project);
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  e.insert("HOME", env.root() + "/home");
  run->setProcessEnvironment(e);
  run->start(QString::fromStdString(paddock::test::build_bin()) + "/paddock",
             QStringList{"run"} + options + QStringList{"--project", project, "--"} + command);
  return run;
}

QStringList session_ids(const GuiTestEnv& env) {
  return QDir(env.state() + "/paddock/sessions").entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

QString new_session(const GuiTestEnv& env, const QStringList& before) {
  for (const QString& id : session_ids(env))
    if (!before.contains(id)) return env.state() + "/paddock/sessions/" + id;
  return {};
}

}  // namespace paddock::gui::test
