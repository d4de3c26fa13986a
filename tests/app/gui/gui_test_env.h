// Shared set-up for GUI tests: a private XDG tree (runtime, config, state) in a temp dir, so the
// tests never read or write the user's files, and the app's lookups pointed at the build tree.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QTemporaryDir>
#include <QtGlobal>

namespace paddock::gui::test {

class GuiTestEnv {
 public:
  GuiTestEnv() {
    root_.setAutoRemove(true);
    for (const char* d : {"runtime", "config", "state", "home"}) QDir(root_.path()).mkpath(d);
    QFile::setPermissions(root_.path() + "/runtime", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    qputenv("XDG_RUNTIME_DIR", (root_.path() + "/runtime").toUtf8());
    qputenv("XDG_CONFIG_HOME", (root_.path() + "/config").toUtf8());
    qputenv("XDG_STATE_HOME", (root_.path() + "/state").toUtf8());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QString root() const { return root_.path(); }
  QString state() const { return root_.path() + "/state"; }
  QString config() const { return root_.path() + "/config"; }

 private:
  QTemporaryDir root_;
};

}  // namespace paddock::gui::test
