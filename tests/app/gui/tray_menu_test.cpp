// The tray menu as data and as the QMenu built from it: running sessions (each with Open and
// Stop), recent launches (launch again), Show Paddock, Quit; the actions reach their signals.
#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QSignalSpy>
#include <QtTest>

#include "gui_test_env.h"
#include "tray_icon.h"
#include "tray_menu_model.h"

using namespace paddock::gui;

class TrayMenuTest : public QObject {
  Q_OBJECT

 private slots:
  void idle_the_menu_has_show_and_quit_only() {
    TrayMenuModel m;
    QCOMPARE(m.describe(), QStringList({"show: Show Paddock", "quit: Quit Paddock…"}));
  }

  void running_sessions_and_recent_launches_come_first_newest_first() {
    TrayMenuModel m;
    m.setRunning({QVariantMap{{"dir", "/s/b"}, {"label", "web · claude-code"}},
                  QVariantMap{{"dir", "/s/a"}, {"label", "api · codex"}}});
    QVariantList recent;
    for (int i = 0; i < 7; ++i) recent << QVariantMap{{"label", QString("p%1 · claude-code").arg(i)}};
    m.setRecent(recent);
    QCOMPARE(m.describe(), QStringList({"header: Running (2)", "session: web · claude-code -> /s/b",
                                        "session: api · codex -> /s/a", "separator: ", "header: Launch again",
                                        "recent: p0 · claude-code -> 0", "recent: p1 · claude-code -> 1",
                                        "recent: p2 · claude-code -> 2", "recent: p3 · claude-code -> 3",
                                        "recent: p4 · claude-code -> 4", "separator: ", "show: Show Paddock",
                                        "quit: Quit Paddock…"}));
  }

  void the_tray_menu_is_built_from_the_model_and_its_actions_emit_what_they_say() {
    TrayMenuModel m;
    TrayIcon tray;
    tray.setMenu(&m);
    m.setRunning({QVariantMap{{"dir", "/s/x"}, {"label", "web · claude-code"}}});
    m.setRecent({QVariantMap{{"label", "web · claude-code"}}});
    QCOMPARE(tray.menuText(), QStringList({"Running (1)", "web · claude-code > Open | Stop", "---", "Launch again",
                                           "web · claude-code", "---", "Show Paddock", "Quit Paddock…"}));
    QSignalSpy open(&tray, &TrayIcon::openSessionRequested), stop(&tray, &TrayIcon::stopSessionRequested),
        relaunch(&tray, &TrayIcon::relaunchRequested), quit(&tray, &TrayIcon::quitRequested);
    // The tray's own QMenu (the only top-level menu with these eight entries).
    QMenu* menu = nullptr;
    for (QWidget* w : QApplication::allWidgets())
      if (auto* mm = qobject_cast<QMenu*>(w); mm && mm->actions().size() == 8) menu = mm;
    QVERIFY(menu);
    const QList<QAction*> actions = menu->actions();
    actions[1]->menu()->actions()[0]->trigger();
    actions[1]->menu()->actions()[1]->trigger();
    actions[4]->trigger();
    actions[7]->trigger();
    QCOMPARE(open.size(), 1);
    QCOMPARE(open.at(0).at(0).toString(), QString("/s/x"));
    QCOMPARE(stop.at(0).at(0).toString(), QString("/s/x"));
    QCOMPARE(relaunch.at(0).at(0).toInt(), 0);
    QCOMPARE(quit.size(), 1);
  }

  void the_tooltip_says_the_state_and_the_counts() {
    TrayIcon tray;
    tray.setState(TrayIcon::Running);
    tray.setDetail("2 sessions running, 1 ask waiting");
    QCOMPARE(tray.toolTip(), QString("Paddock: running — 2 sessions running, 1 ask waiting"));
  }
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;
  QApplication app(argc, argv);
  TrayMenuTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "tray_menu_test.moc"
