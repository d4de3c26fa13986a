// Qt Quick Test runner for the Paddock QML module: a private XDG tree with one demo project
// (remembered in gui.json, so the real Workspace loads it), offscreen, Fusion, and any QML
// warning fails the run.
#include <QDir>
#include <QFile>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QTemporaryDir>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

#include <cstdio>
#include <cstdlib>

#include "app_paths.h"

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
}  // namespace

class Setup : public QObject {
  Q_OBJECT
 public:
  Setup() {
    const QString root = dir_.path();
    for (const char* d : {"runtime", "config/paddock", "state", "project/.paddock", "project/build", "project/dist"})
      QDir(root).mkpath(d);
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
    paddock::gui::AppPaths::setExecutableDir(PADDOCK_BUILD_BIN);
    QQuickStyle::setStyle("Fusion");
    g_previous = qInstallMessageHandler(capture);
  }
  // The module's qmldir is at qrc:/Paddock/qmldir.
  void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath("qrc:/"); }
  void cleanupTestCase() {
    if (g_qml_warnings.isEmpty()) return;
    std::fprintf(stderr, "FAIL: %d QML warning(s):\n%s\n", static_cast<int>(g_qml_warnings.size()),
                 qPrintable(g_qml_warnings.join('\n')));
    std::fflush(stderr);
    std::_Exit(1);
  }

 private:
  QTemporaryDir dir_;
};

QUICK_TEST_MAIN_WITH_SETUP(paddock_qml, Setup)

#include "qml_test_main.moc"
