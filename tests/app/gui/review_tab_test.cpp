// The app's review (docs/review.md) against real review-mode sessions started with `paddock run
// --review`: the Review tab's model shows the changes while the agent runs, flagged ones first
// with their reasons, a file the user edited meanwhile as a conflict with both sides; "apply all
// safe" applies the rest and nothing else, a flagged change goes in on its own, discard throws
// away what is left and the session shrinks to its records; the inbox announces a review-mode
// session that ends holding changes; and the whole window shows the tab without a QML warning.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include <functional>

#include "app_paths.h"
#include "gui_test_env.h"
#include "review_inbox.h"
#include "review_model.h"
#include "sessions_model.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using paddock::gui::test::new_session;
using paddock::gui::test::put;
using paddock::gui::test::qt_warnings;
using paddock::gui::test::session_ids;
using paddock::gui::test::slurp;

using paddock::gui::ReviewInbox;
using paddock::gui::ReviewModel;
using paddock::gui::SessionsModel;

class ReviewTabTest : public QObject {
  Q_OBJECT

 public:
  explicit ReviewTabTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private:
  paddock::gui::test::GuiTestEnv* env_;
  QString project_;

  // `paddock run --review` in the background, as the app launches it.
  QProcess* start(const QString& script) {
    return paddock::gui::test::start_run(this, *env_, project_, {"--review"}, {"/bin/sh", "-c", script});
  }

  int row_of(const ReviewModel& m, const QString& rel) {
    for (int i = 0; i < m.rowCount(); ++i)
      if (m.data(m.index(i), ReviewModel::RelPathRole).toString() == rel) return i;
    return -1;
  }

 private slots:
  void initTestCase() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
  }

  void init() {
    project_ = env_->root() + "/home/proj-" + QString::number(QDateTime::currentMSecsSinceEpoch());
    QVERIFY(QDir().mkpath(project_ + "/src"));
    put(project_ + "/src/main.txt", "hello\n");
    put(project_ + "/notes.txt", "mine\n");
  }

  void the_review_model_follows_a_running_session_and_applies_only_what_it_should() {
    const QStringList before = session_ids(*env_);
    QProcess* run = start("echo early > early.txt; sleep 4; echo changed >> src/main.txt; echo agent > notes.txt; echo new > new.txt; "
                          "printf 'export PATH=/x:$PATH\\n' > .envrc");
    QVERIFY(run->waitForStarted());
    QString dir;
    QTRY_VERIFY_WITH_TIMEOUT(!(dir = new_session(*env_, before)).isEmpty(), 20000);
    ReviewModel m;
    m.setSessionDir(dir);
    m.setRunning(true);
    // Its first change appears while it runs.
    QTRY_VERIFY_WITH_TIMEOUT(row_of(m, "early.txt") >= 0, 20000);
    QVERIFY(m.reviewMode());
    QVERIFY(!QFile::exists(project_ + "/early.txt"));
    // Let it finish; then the user edits a file the agent also edited.
    QTRY_VERIFY_WITH_TIMEOUT(run->state() == QProcess::NotRunning, 30000);
    QCOMPARE(run->exitCode(), 0);
    put(project_ + "/notes.txt", "mine, edited while it ran\n");
    m.setRunning(false);
    // The listing made while it ran can already hold every file, without the user's edit: the one
    // made after it ended shows the conflict.
    QTRY_VERIFY_WITH_TIMEOUT(row_of(m, ".envrc") >= 0 && row_of(m, "notes.txt") >= 0 && m.conflictCount() == 1, 20000);
    // Flagged first, with its reason; then the conflict; then the rest.
    QCOMPARE(m.data(m.index(0), ReviewModel::RelPathRole).toString(), QString(".envrc"));
    QVERIFY(m.data(m.index(0), ReviewModel::FlaggedRole).toBool());
    QVERIFY(m.data(m.index(0), ReviewModel::ReasonsRole).toString().contains("direnv"));
    QCOMPARE(m.flaggedCount(), 1);
    QCOMPARE(m.conflictCount(), 1);
    const int conflict = row_of(m, "notes.txt");
    QCOMPARE(conflict, 1);
    QVariantMap sides = m.diffOf(conflict);
    QCOMPARE(sides.value("before").toString(), QString("mine, edited while it ran\n"));
    QCOMPARE(sides.value("after").toString(), QString("agent\n"));
    const QVariantMap diff = m.diffOf(row_of(m, "src/main.txt"));
    bool added = false;
    for (const auto& l : diff.value("lines").toList())
      added = added || (l.toMap().value("op") == "+" && l.toMap().value("text") == "changed");
    QVERIFY(added);
    // Apply all safe: the project gets the safe ones, keeps the user's edit, and no .envrc.
    QVERIFY(m.applySafe());
    QTRY_VERIFY_WITH_TIMEOUT(!m.busy(), 30000);
    QCOMPARE(slurp(project_ + "/src/main.txt"), QString("hello\nchanged\n"));
    QCOMPARE(slurp(project_ + "/new.txt"), QString("new\n"));
    QCOMPARE(slurp(project_ + "/early.txt"), QString("early\n"));
    QCOMPARE(slurp(project_ + "/notes.txt"), QString("mine, edited while it ran\n"));
    QVERIFY(!QFile::exists(project_ + "/.envrc"));
    QVERIFY2(m.lastResult().contains("flagged"), qPrintable(m.lastResult()));
    // The flagged change, on its own.
    QTRY_COMPARE(m.pendingCount(), 2);
    QVERIFY(m.applyOne(row_of(m, ".envrc")));
    QTRY_VERIFY_WITH_TIMEOUT(!m.busy(), 30000);
    QVERIFY(QFile::exists(project_ + "/.envrc"));
    // Discard what is left: the session keeps only its records.
    QTRY_COMPARE(m.pendingCount(), 1);
    QVERIFY(m.discardAll());
    QTRY_VERIFY_WITH_TIMEOUT(!m.busy(), 30000);
    QTRY_COMPARE(m.pendingCount(), 0);
    QVERIFY(!QFile::exists(dir + "/review/0"));
    QVERIFY(QFile::exists(dir + "/review/roots.json"));
    QCOMPARE(slurp(project_ + "/notes.txt"), QString("mine, edited while it ran\n"));
  }

  void the_inbox_announces_a_session_that_ends_holding_changes() {
    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    ReviewInbox inbox;
    inbox.setSessions(&sessions);
    QSignalSpy ready(&inbox, &ReviewInbox::reviewReady);
    QProcess* run = start("echo a > a.txt; echo b > b.txt; sleep 3");
    QVERIFY(run->waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), sessions.runningCount() == 1), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(run->state() == QProcess::NotRunning, 30000);
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), ready.size() == 1), 20000);
    QCOMPARE(ready.first().at(2).toInt(), 2);
    QCOMPARE(inbox.sessionCount(), 1);
    QCOMPARE(inbox.count(), 2);
  }

  void the_window_shows_a_sessions_review_tab_without_a_warning() {
    const QStringList before = session_ids(*env_);
    QProcess* run = start("echo hi > hi.txt");
    QVERIFY(run->waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(run->state() == QProcess::NotRunning, 30000);
    const QString dir = new_session(*env_, before);
    paddock::gui::test::capture_warnings();
    {
      QQmlApplicationEngine engine;
      auto* window = paddock::gui::test::main_window(engine);
      QVERIFY(window);
      window->findChild<QObject*>("nav")->setProperty("currentIndex", 1);
      auto* page = window->findChild<QObject*>("sessionsPage");
      page->setProperty("selectedDir", dir);
      auto* tabs = window->findChild<QObject*>("sessionTabs");
      tabs->setProperty("currentIndex", 4);
      auto* tab = window->findChild<QQuickItem*>("reviewTab");
      QVERIFY(tab);
      auto* model = tab->property("model").value<ReviewModel*>();
      QVERIFY(model);
      QTRY_COMPARE(model->pendingCount(), 1);
      QTRY_VERIFY(tab->findChild<QObject*>("applySafeButton")->property("enabled").toBool());
      QTRY_VERIFY(window->findChild<QObject*>("reviewTabButton")->property("text").toString().contains("(1)"));
      // Its row in the sessions list says it holds a change to review (the list's rows are items
      // of the view, not QObject children: walked as items).
      const std::function<bool(QQuickItem*)> row_says = [&](QQuickItem* item) {
        if (item->objectName() == "rowReview" && item->isVisible() &&
            item->property("text").toString() == "1 change(s) to review")
          return true;
        for (auto* child : item->childItems())
          if (row_says(child)) return true;
        return false;
      };
      auto* list = window->findChild<QQuickItem*>("sessionsList");
      QVERIFY(list);
      QTRY_VERIFY(row_says(list));
      QTest::qWait(200);
    }
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  QApplication app(argc, argv);
  ReviewTabTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "review_tab_test.moc"
