// Shared set-up for GUI tests: a private XDG tree (runtime, config, state) in a temp dir, so the
// tests never read or write the user's files, and the app's lookups pointed at the build tree.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

class QQmlApplicationEngine;
class QQuickWindow;

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

// From the first call on, Qt's warnings (anything above info: a QML binding that broke, a
// binding loop) are kept in qt_warnings(), each still passed on to the handler installed before.
// The tests that load QML check that none came.
void capture_warnings();
QStringList& qt_warnings();

// A file's text ("" when it cannot be read), and a file written whole (the test stops when it
// cannot be).
QString slurp(const QString& path);
void put(const QString& path, const QByteArray& bytes);

// The app's whole window, loaded into `engine` and shown: nullptr when it does not load.
QQuickWindow* main_window(QQmlApplicationEngine& engine);

// `paddock run OPTIONS --project PROJECT -- COMMAND` from the build tree, in PROJECT, with the
// test's HOME, started in the background as the app launches it (owned by `parent`).
QProcess* start_run(QObject* parent, const GuiTestEnv& env, const QString& project, const QStringList& options,
                    const QStringList& command);

// The test's session directories by id, and the one that came after `before` (ids sort by second
// only: of two sessions started in one second, either can sort first).
QStringList session_ids(const GuiTestEnv& env);
QString new_session(const GuiTestEnv& env, const QStringList& before);

}  // namespace paddock::gui::test
