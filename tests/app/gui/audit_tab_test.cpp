// The app's side of the direct-mode audit (docs/audit.md), against real sessions started with
// `paddock run` (direct mode, the CLI's default) under the real helper: the inbox counts a
// session's undecided findings and announces a session that ends leaving some; the project's card
// says so in plain words; the Audit tab's Quarantine moves a finding out of the project and Keep
// leaves one, each counted again; a session whose helper was killed is audited the first time the
// app sees it; and the whole window shows the tab, the badge and Home's line without a QML warning.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_paths.h"
#include "audit_inbox.h"
#include "audit_model.h"
#include "gui_test_env.h"
#include "platform/audit/audit.h"
#include "sessions_model.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using paddock::gui::test::put;
using paddock::gui::test::qt_warnings;
using paddock::gui::test::slurp;

using paddock::gui::AuditInbox;
using paddock::gui::AuditModel;
using paddock::gui::SessionsModel;

class AuditTabTest : public QObject {
  Q_OBJECT

 public:
  explicit AuditTabTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private:
  paddock::gui::test::GuiTestEnv* env_;
  QString project_;

  // `paddock run` in direct mode, in the background, as the app launches it.
  QProcess* start(const QString& script) {
    return paddock::gui::test::start_run(this, *env_, project_, {}, {"/bin/sh", "-c", script});
  }
  QStringList session_ids() { return paddock::gui::test::session_ids(*env_); }
  QString new_session(const QStringList& before) { return paddock::gui::test::new_session(*env_, before); }

  // Runs the agent's script to its end; the session it made.
  QString finished(const QString& script) {
    const QStringList before = session_ids();
    QProcess* run = start(script);
    if (!run->waitForStarted()) return {};
    if (!run->waitForFinished(60000) || run->exitCode() != 0) {
      qWarning() << run->readAllStandardError();
      return {};
    }
    return new_session(before);
  }

  static int row_of(const AuditModel& m, const QString& rel) {
    for (int i = 0; i < m.rowCount(); ++i)
      if (m.data(m.index(i), AuditModel::RelPathRole).toString() == rel) return i;
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
  }

  void quarantine_moves_a_finding_out_of_the_project_and_keep_leaves_one() {
    const QString dir = finished("echo 'echo hi' > .envrc; echo '{}' > .mcp.json; echo more >> src/main.txt");
    QVERIFY(!dir.isEmpty());
    AuditModel m;
    m.setSessionDir(dir);
    QCOMPARE(m.status(), paddock::gui::ModelStatus::Ready);
    QVERIFY(m.direct() && m.audited() && m.complete());
    QCOMPARE(m.rowCount(), 2);  // the changed main.txt is no finding
    QCOMPARE(m.pendingCount(), 2);
    QVERIFY2(m.summary().contains("2 file(s) that a tool on this machine would run"), qPrintable(m.summary()));
    const int envrc = row_of(m, ".envrc");
    QVERIFY(envrc >= 0);
    QCOMPARE(m.data(m.index(envrc), AuditModel::ToolsRole).toString(), QString("direnv"));
    QVERIFY(!m.data(m.index(envrc), AuditModel::WhyRole).toString().isEmpty());
    QCOMPARE(m.data(m.index(envrc), AuditModel::DecisionTextRole).toString(), QString("Waiting for your decision"));
    QCOMPARE(m.data(m.index(row_of(m, ".mcp.json")), AuditModel::ToolsRole).toString(), QString("Claude Code, OpenCode, Aider"));

    QVERIFY2(m.quarantine(envrc), qPrintable(m.lastResult()));
    QVERIFY(!QFile::exists(project_ + "/.envrc"));
    QCOMPARE(m.data(m.index(row_of(m, ".envrc")), AuditModel::DecisionRole).toString(), QString("quarantined"));
    const QString moved = m.data(m.index(row_of(m, ".envrc")), AuditModel::DecisionTextRole).toString();
    QVERIFY2(moved.startsWith("Quarantined to " + dir + "/audit/quarantine/"), qPrintable(moved));
    QCOMPARE(slurp(moved.mid(QString("Quarantined to ").size())), QString("echo hi\n"));
    QCOMPARE(m.pendingCount(), 1);

    QVERIFY2(m.keep(row_of(m, ".mcp.json")), qPrintable(m.lastResult()));
    QCOMPARE(slurp(project_ + "/.mcp.json"), QString("{}\n"));
    QCOMPARE(m.data(m.index(row_of(m, ".mcp.json")), AuditModel::DecisionTextRole).toString(), QString("Kept"));
    QCOMPARE(m.pendingCount(), 0);
    QCOMPARE(slurp(project_ + "/src/main.txt"), QString("hello\nmore\n"));
    // Nothing is left to decide: no second decision on the same finding.
    QVERIFY(!m.quarantineAll());
    QVERIFY(!m.keepAll());
  }

  void the_inbox_announces_a_direct_session_that_ends_leaving_findings_and_the_card_says_so() {
    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    AuditInbox inbox;
    inbox.setSessions(&sessions);
    QTRY_VERIFY_WITH_TIMEOUT(inbox.count() == 0, 20000);
    QSignalSpy ready(&inbox, &AuditInbox::findingsReady);
    QProcess* run = start("sleep 3; echo 'echo hi' > .envrc; echo '{}' > .mcp.json");
    QVERIFY(run->waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), sessions.runningCount() == 1), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(run->state() == QProcess::NotRunning, 30000);
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), ready.size() == 1), 20000);
    const QString dir = ready.first().at(1).toString();
    QCOMPARE(ready.first().at(2).toInt(), 2);
    QCOMPARE(inbox.pendingOf(dir), 2);
    QCOMPARE(inbox.projectSession(project_), dir);
    QVERIFY2(inbox.projectLine(project_).contains("2 file(s) here that a tool on this machine would run"),
             qPrintable(inbox.projectLine(project_)));
    QCOMPARE(inbox.projectLine(project_ + "-other"), QString());

    // Quarantine all from the tab; the inbox counts the session again and the line goes.
    AuditModel m;
    m.setSessionDir(dir);
    QObject::connect(&m, &AuditModel::decided, &inbox, [&] { inbox.recount(dir); });
    QVERIFY2(m.quarantineAll(), qPrintable(m.lastResult()));
    QVERIFY(!QFile::exists(project_ + "/.envrc") && !QFile::exists(project_ + "/.mcp.json"));
    QTRY_COMPARE(inbox.pendingOf(dir), 0);
    QCOMPARE(inbox.projectLine(project_), QString());
    QCOMPARE(ready.size(), 1);
  }

  void a_session_whose_helper_was_killed_is_audited_when_the_app_first_sees_it() {
    const QStringList before = session_ids();
    QProcess* run = start("echo x > .envrc; sleep 120");
    QVERIFY(run->waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(project_ + "/.envrc"), 20000);
    const QString dir = new_session(before);
    run->kill();  // `paddock run` became the helper: SIGKILL ends it without an audit
    QVERIFY(run->waitForFinished(20000));
    QVERIFY(QFile::exists(dir + "/audit/start.json"));
    QVERIFY(!QFile::exists(dir + "/audit/audit.json"));

    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    AuditInbox inbox;
    QSignalSpy ready(&inbox, &AuditInbox::findingsReady);
    inbox.setSessions(&sessions);
    QTRY_VERIFY_WITH_TIMEOUT(inbox.pendingOf(dir) == 1, 30000);
    QCOMPARE(ready.size(), 1);
    QCOMPARE(ready.first().at(1).toString(), dir);
    AuditModel m;
    m.setSessionDir(dir);
    QVERIFY(m.audited());
    QCOMPARE(m.data(m.index(0), AuditModel::RelPathRole).toString(), QString(".envrc"));
    QCOMPARE(QJsonDocument::fromJson(slurp(dir + "/audit/audit.json").toUtf8()).object().value("by").toString(),
             QString("Paddock app"));
    // Seen again (a new inbox, the app started again): audited once, announced once.
    AuditInbox again;
    QSignalSpy ready_again(&again, &AuditInbox::findingsReady);
    again.setSessions(&sessions);
    QTRY_VERIFY_WITH_TIMEOUT(again.pendingOf(dir) == 1, 20000);
    QCOMPARE(ready_again.size(), 0);
  }

  // The helper writes its audit under the audit lock after its control socket has gone; its report
  // can appear while the inbox's first look runs, and then nothing in the sessions list changes
  // again. The inbox keeps looking until the audit is there.
  void a_session_whose_audit_is_written_after_the_inbox_looked_is_counted_without_the_list_changing() {
    const QString dir = finished("echo 'echo hi' > .envrc");
    QVERIFY(!dir.isEmpty());
    const QString audit = dir + "/audit/audit.json";
    QVERIFY(QFile::exists(audit));
    paddock::platform::UniqueFd lock = paddock::platform::try_lock_audit(dir.toStdString());
    QVERIFY(lock.valid());
    QVERIFY(QFile::rename(audit, audit + ".held"));

    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    AuditInbox inbox;
    inbox.setSessions(&sessions);
    QTest::qWait(3000);  // its first look finds the audit not written
    QCOMPARE(inbox.pendingOf(dir), 0);
    QVERIFY(!QFile::exists(audit));  // the app did not audit a session whose helper holds the lock

    QVERIFY(QFile::rename(audit + ".held", audit));
    lock.reset();
    QTRY_VERIFY_WITH_TIMEOUT(inbox.pendingOf(dir) == 1, 10000);
    QVERIFY2(inbox.projectLine(project_).contains("1 file(s) here"), qPrintable(inbox.projectLine(project_)));
  }

  // Until its control socket listens a starting session looks abandoned, and its helper writes
  // audit/start.json only after that: a session first seen then is still looked at when it ends.
  void a_session_first_seen_while_it_started_is_looked_at_when_it_ends() {
    const QString dir = finished("echo 'echo hi' > .envrc");
    QVERIFY(!dir.isEmpty());
    QVERIFY(QDir().rename(dir, dir + ".whole"));
    QVERIFY(QDir().mkdir(dir));  // as the helper has made it, before anything else

    SessionsModel sessions;
    sessions.setDirectory(env_->state() + "/paddock/sessions");
    AuditInbox inbox;
    inbox.setSessions(&sessions);
    auto state_of = [&] {
      for (const auto& r : sessions.records())
        if (r.dir == dir) return r.state;
      return QString();
    };
    QTRY_COMPARE(state_of(), QString("abandoned"));

    QVERIFY(QDir().rmdir(dir));
    QVERIFY(QDir().rename(dir + ".whole", dir));
    QTRY_VERIFY_WITH_TIMEOUT((sessions.reload(), inbox.pendingOf(dir) == 1), 10000);
  }

  void the_window_shows_the_audit_tab_the_badge_and_homes_line_without_a_warning() {
    const QString dir = finished("echo 'echo hi' > .envrc");
    QVERIFY(!dir.isEmpty());
    paddock::gui::test::capture_warnings();
    {
      QQmlApplicationEngine engine;
      auto* window = paddock::gui::test::main_window(engine);
      QVERIFY(window);
      auto* inbox = window->findChild<AuditInbox*>("auditInbox");
      QVERIFY(inbox);
      QTRY_VERIFY_WITH_TIMEOUT(inbox->pendingOf(dir) == 1, 20000);
      // The Sessions entry's badge.
      QTRY_VERIFY(window->findChild<QObject*>("nav")->property("auditCount").toInt() >= 1);
      // Home: the project's line, and "Decide…" opens the session's Audit tab.
      auto* workspace = engine.rootObjects().first()->findChild<QObject*>("homePage")->property("workspace").value<QObject*>();
      QVERIFY(workspace);
      QMetaObject::invokeMethod(workspace, "addProject", Q_ARG(QString, project_));
      workspace->setProperty("currentProject", project_);
      auto* line = window->findChild<QObject*>("homeAudit");
      QVERIFY(line);
      QTRY_VERIFY2(line->property("text").toString().contains("1 file(s) here"), qPrintable(line->property("text").toString()));
      QMetaObject::invokeMethod(window->findChild<QObject*>("homeAuditButton"), "clicked");
      QTRY_COMPARE(window->findChild<QObject*>("nav")->property("currentIndex").toInt(), 1);
      QTRY_COMPARE(window->findChild<QObject*>("sessionsPage")->property("selectedDir").toString(), dir);
      QTRY_COMPARE(window->findChild<QObject*>("sessionTabs")->property("currentIndex").toInt(), 5);
      auto* tab = window->findChild<QQuickItem*>("auditTab");
      QVERIFY(tab);
      auto* model = tab->property("model").value<AuditModel*>();
      QVERIFY(model);
      QTRY_COMPARE(model->pendingCount(), 1);
      QTRY_VERIFY(window->findChild<QObject*>("auditTabButton")->property("text").toString().contains("(1)"));
      // Quarantine all from the tab: the badge and Home's line go.
      QMetaObject::invokeMethod(tab->findChild<QObject*>("quarantineAllButton"), "clicked");
      QTRY_COMPARE(model->pendingCount(), 0);
      QVERIFY(!QFile::exists(project_ + "/.envrc"));
      QTRY_COMPARE(inbox->pendingOf(dir), 0);
      QTRY_COMPARE(line->property("text").toString(), QString());
      QTest::qWait(200);
    }
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  QApplication app(argc, argv);
  AuditTabTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "audit_tab_test.moc"
