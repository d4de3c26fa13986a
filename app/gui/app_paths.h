// Where the GUI finds everything, relative to its own executable (the installed prefix is
// relocatable; the build tree mirrors it): <bin>/../libexec/paddock/paddock-helper and
// <bin>/../share/paddock. Config, state and sessions are session::Layout's, the same for the
// CLI, the helper and the app.
#pragma once

#include <map>
#include <string>

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {

class AppPaths : public QObject {
  Q_OBJECT
  QML_ELEMENT
  QML_SINGLETON
  Q_PROPERTY(QString helperPath READ helperPath CONSTANT)
  Q_PROPERTY(QString cliPath READ cliPath CONSTANT)
  Q_PROPERTY(QString resourcesDir READ resourcesDir CONSTANT)
  Q_PROPERTY(QString configDir READ configDir CONSTANT)
  Q_PROPERTY(QString stateDir READ stateDir CONSTANT)
  Q_PROPERTY(QString sessionsDir READ sessionsDir CONSTANT)
  Q_PROPERTY(QString guiConfigFile READ guiConfigFile CONSTANT)
  // PADDOCK_GUI_START_PAGE=home|sessions|customize|settings: the page shown first (scripts/screenshot).
  Q_PROPERTY(QString startPage READ startPage CONSTANT)

 public:
  using QObject::QObject;

  // Tests run from their own directory: they point the lookups at the build tree's bin/.
  static void setExecutableDir(const QString& dir);
  static QString executableDir();

  static QString helperPath();
  // paddock-keyring beside the helper: the desktop's secret service for brokered credentials.
  static QString keyringPath();
  // The command-line front end (<bin>/paddock): the app launches sessions through it, so a launch
  // from the app is exactly `paddock run` with the same arguments.
  static QString cliPath();
  // Captured output of sessions launched in the background: <state>/output/<session id>.log.
  static QString outputDir();
  static QString resourcesDir();
  static QString configDir();    // $XDG_CONFIG_HOME/paddock
  static QString stateDir();     // $XDG_STATE_HOME/paddock
  static QString sessionsDir();  // <state>/sessions
  static QString guiConfigFile();  // <config>/gui.json
  // A session's control socket, by the layout's rule: $XDG_RUNTIME_DIR/paddock/<id>.sock, or
  // <session dir>/control.sock when there is no (absolute) runtime dir.
  static QString controlSocketPath(const QString& sessionDir);
  static QString startPage();
  // The launch environment handed to the engine (it never calls getenv itself).
  static std::map<std::string, std::string> environment();
};

}  // namespace paddock::gui
