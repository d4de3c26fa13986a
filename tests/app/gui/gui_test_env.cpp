#include "tests/app/gui/gui_test_env.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QtGlobal>

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

}  // namespace paddock::gui::test
