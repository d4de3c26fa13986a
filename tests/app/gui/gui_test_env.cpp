#include "tests/app/gui/gui_test_env.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QtGlobal>

#include <utility>

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
  if (type != QtDebugMsg && type != QtInfoMsg) qt_warnings() << msg;
  if (g_previous) g_previous(type, ctx, msg);
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

}  // namespace paddock::gui::test
