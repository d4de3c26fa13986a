// Shared set-up for GUI tests: a private XDG tree (runtime, config, state) in a temp dir, so the
// tests never read or write the user's files, and the app's lookups pointed at the build tree.
#pragma once

#include <QString>
#include <QTemporaryDir>

namespace paddock::gui::test {

class GuiTestEnv {
 public:
  GuiTestEnv();
  QString root() const { return root_.path(); }
  QString state() const { return root_.path() + "/state"; }
  QString config() const { return root_.path() + "/config"; }

 private:
  QTemporaryDir root_;
};

}  // namespace paddock::gui::test
