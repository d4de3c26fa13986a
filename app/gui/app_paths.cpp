#include "app_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>

#include "engine/session/layout.h"

namespace paddock::gui {
namespace {

QString& exe_dir_override() {
  static QString dir;
  return dir;
}

// The CLI's and the helper's layout, from this process's environment as it is now (tests change
// it between cases). Without an absolute HOME there is none: the paths are "".
session::Layout layout() {
  auto l = session::from_env(AppPaths::environment());
  return l.ok() ? std::move(*l) : session::Layout{};
}

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

void AppPaths::setExecutableDir(const QString& dir) { exe_dir_override() = dir; }

QString AppPaths::executableDir() {
  if (!exe_dir_override().isEmpty()) return exe_dir_override();
  return QCoreApplication::applicationDirPath();
}

QString AppPaths::helperPath() {
  return QDir::cleanPath(executableDir() + "/../" PADDOCK_LIBEXEC_REL "/paddock-helper");
}

QString AppPaths::keyringPath() {
  return QDir::cleanPath(executableDir() + "/../" PADDOCK_LIBEXEC_REL "/paddock-keyring");
}

QString AppPaths::cliPath() { return QDir::cleanPath(executableDir() + "/paddock"); }

QString AppPaths::outputDir() {
  const QString dir = stateDir();
  return dir.isEmpty() ? QString() : dir + "/output";
}

QString AppPaths::resourcesDir() {
  return QDir::cleanPath(executableDir() + "/../" PADDOCK_DATA_REL);
}

QString AppPaths::configDir() { return q(layout().config_dir); }
QString AppPaths::stateDir() { return q(layout().state_dir); }
QString AppPaths::sessionsDir() {
  const auto l = layout();
  return l.state_dir.empty() ? QString() : q(l.sessions_dir());
}
QString AppPaths::guiConfigFile() {
  const QString dir = configDir();
  return dir.isEmpty() ? QString() : dir + "/gui.json";
}

QString AppPaths::controlSocketPath(const QString& sessionDir) {
  const auto l = layout();
  const std::string id = QFileInfo(sessionDir).fileName().toStdString();
  // The layout's rule, but next to the directory given (the app may be pointed at another one).
  if (!l.runtime_dir.empty()) return q(l.control_socket(id));
  return sessionDir + "/control.sock";
}

QString AppPaths::startPage() {
  return QProcessEnvironment::systemEnvironment().value("PADDOCK_GUI_START_PAGE", "home");
}

std::map<std::string, std::string> AppPaths::environment() {
  std::map<std::string, std::string> out;
  const auto env = QProcessEnvironment::systemEnvironment();
  for (const QString& key : env.keys()) out[key.toStdString()] = env.value(key).toStdString();
  return out;
}

}  // namespace paddock::gui
