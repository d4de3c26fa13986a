// Qt Quick Test runner for the Paddock QML module: a private XDG tree with one demo project
// (remembered in gui.json, so the real Workspace loads it) and one running session whose helper
// is played by `fakeHelper` (it has one pending ask and records what it is sent), offscreen,
// Fusion, and any QML warning fails the run.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QQmlContext>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QTemporaryDir>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

#include <cstdio>
#include <cstdlib>

#include "app_paths.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

namespace {
QStringList g_qml_warnings;
QtMessageHandler g_previous = nullptr;
void capture(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (type == QtWarningMsg && (msg.contains(".qml:") || msg.startsWith("qrc:"))) g_qml_warnings << msg;
  if (g_previous) g_previous(type, ctx, msg);
}
void write(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
  f.write(bytes);
}

// The helper's side of a running session's control socket: {"ok":true} to every command; on
// subscribe, one ask. QML reads what it was sent (`received`, one compact JSON line each).
class FakeHelper : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString sessionDir MEMBER dir_ CONSTANT)
  Q_PROPERTY(QStringList received MEMBER received_ NOTIFY receivedChanged)

 public:
  FakeHelper(const QString& dir, QObject* parent) : QObject(parent), dir_(dir) {
    const QString path = paddock::gui::AppPaths::controlSocketPath(dir);
    QDir().mkpath(QFileInfo(path).path());
    if (!server_.listen(path)) qFatal("cannot listen on %s", qPrintable(path));
    connect(&server_, &QLocalServer::newConnection, this, [this] {
      while (QLocalSocket* c = server_.nextPendingConnection()) {
        connect(c, &QLocalSocket::readyRead, this, [this, c] {
          while (c->canReadLine()) {
            const QByteArray line = c->readLine().trimmed();
            received_ << QString::fromUtf8(line);
            emit receivedChanged();
            c->write("{\"ok\":true}\n");
            if (QJsonDocument::fromJson(line).object().value("cmd") == "subscribe")
              c->write(R"({"event":"ask","id":"ask-1","host":"api.example.test","port":443})" "\n");
            c->flush();
          }
        });
      }
    });
  }
  // A file's text, for a test to see what a save wrote ("" when it does not read).
  Q_INVOKABLE QString readFile(const QString& path) const {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
  }
  // Writes a file as another program would (the violation inbox, an editor, `paddock approve`).
  Q_INVOKABLE bool writeFile(const QString& path, const QString& text) const {
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(text.toUtf8()) >= 0;
  }
  // "Installs" a program into the directory first on this process's PATH (an empty script).
  Q_INVOKABLE bool installTool(const QString& name) const {
    const QString dir = qEnvironmentVariable("PATH").section(':', 0, 0);
    QFile f(dir + "/" + name);
    if (!f.open(QIODevice::WriteOnly)) return false;
    f.write("#!/bin/sh\nexit 0\n");
    f.close();
    return f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  }

 signals:
  void receivedChanged();

 private:
  QString dir_;
  QStringList received_;
  QLocalServer server_;
};

}  // namespace

class Setup : public QObject {
  Q_OBJECT
 public:
  Setup() {
    const QString root = dir_.path();
    session_dir_ = root + "/state/paddock/sessions/20260101T000000Z-qmltest";
    QDir().mkpath(session_dir_);
    for (const char* d : {"runtime", "config/paddock", "state", "project/.paddock", "project/build", "project/dist", "bin"})
      QDir(root).mkpath(d);
    // Programs a test installs while the app runs (installTool) go first on PATH.
    qputenv("PATH", (root + "/bin:" + qEnvironmentVariable("PATH")).toUtf8());
    QFile::setPermissions(root + "/runtime", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    qputenv("XDG_RUNTIME_DIR", (root + "/runtime").toUtf8());
    qputenv("XDG_CONFIG_HOME", (root + "/config").toUtf8());
    qputenv("XDG_STATE_HOME", (root + "/state").toUtf8());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    const QString project = QFileInfo(root + "/project").canonicalFilePath();
    write(project + "/.paddock/policy.yaml",
          "version: 1\n# keep me\nfilesystem:\n  deny:\n    - $PROJECT/secrets\n  allow_write:\n    - $PROJECT/build\n");
    write(root + "/config/paddock/gui.json",
          QString(R"({"version":1,"projects":[{"path":"%1"}],"current_project":"%1","current_agent":"claude-code","custom_agents":[]})")
              .arg(project).toUtf8());
  }

 public slots:
  void applicationAvailable() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    QQuickStyle::setStyle("Fusion");
    g_previous = qInstallMessageHandler(capture);
    helper_ = new FakeHelper(session_dir_, this);
  }
  // The module's qmldir is at qrc:/Paddock/qmldir.
  void qmlEngineAvailable(QQmlEngine* engine) {
    engine->addImportPath("qrc:/");
    engine->rootContext()->setContextProperty("fakeHelper", helper_);
  }
  void cleanupTestCase() {
    if (g_qml_warnings.isEmpty()) return;
    std::fprintf(stderr, "FAIL: %d QML warning(s):\n%s\n", static_cast<int>(g_qml_warnings.size()),
                 qPrintable(g_qml_warnings.join('\n')));
    std::fflush(stderr);
    std::_Exit(1);
  }

 private:
  QTemporaryDir dir_;
  QString session_dir_;
  FakeHelper* helper_ = nullptr;
};

QUICK_TEST_MAIN_WITH_SETUP(paddock_qml, Setup)

#include "qml_test_main.moc"
