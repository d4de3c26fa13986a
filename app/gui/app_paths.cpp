#include "app_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace paddock::gui {
namespace {

QString& exe_dir_override() {
  static QString dir;
  return dir;
}

QString xdg_dir(const char* var, const char* fallback_under_home) {
  const auto env = QProcessEnvironment::systemEnvironment();
  QString base = env.value(var);
  // XDG: a relative value is invalid and must be ignored.
  if (base.isEmpty() || !QDir::isAbsolutePath(base))
    base = QDir::homePath() + "/" + fallback_under_home;
  return QDir::cleanPath(base + "/paddock");
}

}  // namespace

void AppPaths::setExecutableDir(const QString& dir) { exe_dir_override() = dir; }

QString AppPaths::executableDir() {
  if (!exe_dir_override().isEmpty()) return exe_dir_override();
  return QCoreApplication::applicationDirPath();
}

QString AppPaths::helperPath() {
  return QDir::cleanPath(executableDir() + "/../" PADDOCK_LIBEXEC_REL "/paddock-helper");
}

QString AppPaths::resourcesDir() {
  return QDir::cleanPath(executableDir() + "/../" PADDOCK_DATA_REL);
}

QString AppPaths::configDir() { return xdg_dir("XDG_CONFIG_HOME", ".config"); }
QString AppPaths::stateDir() { return xdg_dir("XDG_STATE_HOME", ".local/state"); }
QString AppPaths::sessionsDir() { return stateDir() + "/sessions"; }
QString AppPaths::guiConfigFile() { return configDir() + "/gui.json"; }

QString AppPaths::controlSocketPath(const QString& sessionDir) {
  const QString runtime = QProcessEnvironment::systemEnvironment().value("XDG_RUNTIME_DIR");
  if (!runtime.isEmpty() && QDir::isAbsolutePath(runtime))
    return runtime + "/paddock/" + QFileInfo(sessionDir).fileName() + ".sock";
  return sessionDir + "/control.sock";
}

QString AppPaths::startPage() {
  return QProcessEnvironment::systemEnvironment().value("PADDOCK_GUI_START_PAGE", "profiles");
}

std::map<std::string, std::string> AppPaths::environment() {
  std::map<std::string, std::string> out;
  const auto env = QProcessEnvironment::systemEnvironment();
  for (const QString& key : env.keys()) out[key.toStdString()] = env.value(key).toStdString();
  return out;
}

}  // namespace paddock::gui
