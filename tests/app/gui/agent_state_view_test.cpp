// Settings' "Agents' own state" (docs/agents.md, "Bringing a change out") against a real agent
// state left by `paddock run --agent claude-code` under the real helper: the view lists what the
// agent changed in its Paddock-owned copy of ~/.claude against the user's own, a settings change
// that makes the user's CLI run a command flagged with why; "apply all safe" brings out the safe
// change only; discarding drops the agent's version and the user's file is untouched; an agent
// with no state yet says so; and the Settings page shows the view without a QML warning.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "app_paths.h"
#include "gui_test_env.h"
#include "review_model.h"
#include "tests/support/test_paths.h"

Q_IMPORT_QML_PLUGIN(PaddockPlugin)

using paddock::gui::test::put;
using paddock::gui::test::qt_warnings;
using paddock::gui::test::slurp;

using paddock::gui::ReviewModel;

namespace {

int row_of(const ReviewModel& m, const QString& rel) {
  for (int i = 0; i < m.rowCount(); ++i)
    if (m.data(m.index(i), ReviewModel::RelPathRole).toString() == rel) return i;
  return -1;
}

const QByteArray kUserSettings = "{\"model\": \"the-users-model\"}\n";

}  // namespace

class AgentStateViewTest : public QObject {
  Q_OBJECT

 public:
  explicit AgentStateViewTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private:
  paddock::gui::test::GuiTestEnv* env_;
  QString home_;

 private slots:
  void initTestCase() {
    paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    // The app and the session it starts agree on whose agent state it is.
    home_ = env_->root() + "/home";
    qputenv("HOME", home_.toUtf8());
    QVERIFY(QDir().mkpath(home_ + "/.claude"));
    put(home_ + "/.claude/settings.json", kUserSettings);
    const QString project = home_ + "/proj";
    QVERIFY(QDir().mkpath(project));
    QProcess* run = paddock::gui::test::start_run(
        this, *env_, project, {"--agent", "claude-code"},
        {"/bin/sh", "-c",
         "set -e; cd ~/.claude; echo notes > notes.md; "
         "echo '{\"model\": \"the-users-model\", \"statusLine\": {\"type\": \"command\", \"command\": \"~/.claude/s.sh\"}}'"
         " > settings.json"});
    QVERIFY(run->waitForFinished(60000));
    QVERIFY2(run->exitCode() == 0, run->readAllStandardError().constData());
  }

  void the_view_lists_the_agents_changes_applies_the_safe_one_and_drops_the_rest() {
    ReviewModel m;
    m.setAgent("claude-code");
    QTRY_VERIFY_WITH_TIMEOUT(m.status() == paddock::gui::ModelStatus::Ready && m.rowCount() > 0, 20000);
    QVERIFY(m.reviewMode());
    const int notes = row_of(m, "~/.claude/notes.md");
    const int settings = row_of(m, "~/.claude/settings.json");
    QVERIFY2(notes >= 0 && settings >= 0, qPrintable(m.summary()));
    QVERIFY(!m.data(m.index(notes), ReviewModel::FlaggedRole).toBool());
    QVERIFY(m.data(m.index(settings), ReviewModel::FlaggedRole).toBool());
    QVERIFY(!m.data(m.index(settings), ReviewModel::ReasonsRole).toString().isEmpty());
    QVERIFY2(m.summary().contains("Paddock state differ from your own copy"), qPrintable(m.summary()));
    QVERIFY(m.diffOf(settings).value("after").toString().contains("statusLine"));

    QVERIFY(m.applySafe());
    QTRY_VERIFY_WITH_TIMEOUT(!m.busy(), 30000);
    QVERIFY2(m.lastResult().startsWith("Applied 1 change(s) to your own copy."), qPrintable(m.lastResult()));
    QCOMPARE(slurp(home_ + "/.claude/notes.md"), QString("notes\n"));
    QCOMPARE(slurp(home_ + "/.claude/settings.json"), QString::fromUtf8(kUserSettings));

    QTRY_VERIFY_WITH_TIMEOUT(row_of(m, "~/.claude/notes.md") < 0 && m.rowCount() > 0, 20000);
    QVERIFY(m.discardAll());
    QTRY_VERIFY_WITH_TIMEOUT(!m.busy(), 30000);
    QVERIFY2(m.lastResult().startsWith("Dropped"), qPrintable(m.lastResult()));
    QTRY_VERIFY_WITH_TIMEOUT(row_of(m, "~/.claude/settings.json") < 0, 20000);
    QCOMPARE(slurp(home_ + "/.claude/settings.json"), QString::fromUtf8(kUserSettings));
  }

  void an_agent_without_a_paddock_state_says_so() {
    ReviewModel m;
    m.setAgent("gemini-cli");
    QTRY_VERIFY_WITH_TIMEOUT(m.status() == paddock::gui::ModelStatus::Ready, 20000);
    QCOMPARE(m.rowCount(), 0);
    QVERIFY2(m.summary().contains("has no Paddock state yet"), qPrintable(m.summary()));
  }

  void the_settings_page_shows_the_view_without_a_warning() {
    paddock::gui::test::capture_warnings();
    {
      QQmlApplicationEngine engine;
      auto* window = paddock::gui::test::main_window(engine);
      QVERIFY(window);
      window->findChild<QObject*>("nav")->setProperty("currentIndex", 3);
      auto* view = window->findChild<QQuickItem*>("agentStateView");
      QVERIFY(view);
      auto* box = window->findChild<QObject*>("stateAgentBox");
      QVERIFY(box);
      auto* model = view->property("model").value<ReviewModel*>();
      QVERIFY(model);
      QTRY_VERIFY(!model->agent().isEmpty());
      QTRY_VERIFY_WITH_TIMEOUT(model->status() == paddock::gui::ModelStatus::Ready, 20000);
      QVERIFY(!model->summary().isEmpty());
      QTest::qWait(200);
    }
    QVERIFY2(qt_warnings().isEmpty(), qPrintable(qt_warnings().join('\n')));
  }
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  QApplication app(argc, argv);
  AgentStateViewTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "agent_state_view_test.moc"
