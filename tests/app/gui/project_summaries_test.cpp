// The project cards' lines: each project is evaluated by the engine off the caller's thread (the
// first answer is "" and the line arrives later), the line says in words what the agent may write,
// its network and that secrets are hidden, and refresh() evaluates again after a policy file
// changed.
#include <QDir>
#include <QRegularExpression>
#include <QtTest>

#include "app_paths.h"
#include "gui_test_env.h"
#include "project_summaries.h"
#include "tests/support/test_paths.h"

using paddock::gui::ProjectSummaries;

namespace {

QString makeProject(const QString& root, const QString& name, const QByteArray& policy) {
  const QString dir = root + "/" + name;
  QDir().mkpath(dir + "/.paddock");
  QFile f(dir + "/.paddock/policy.yaml");
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(policy);
  f.close();
  QFile env(dir + "/.env");
  if (env.open(QIODevice::WriteOnly)) env.write("TOKEN=x\n");
  return QFileInfo(dir).canonicalFilePath();
}

int domainsIn(const QString& line) {
  const QRegularExpressionMatch m = QRegularExpression(" · (\\d+) domains? · ").match(line);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

}  // namespace

class ProjectSummariesTest : public QObject {
  Q_OBJECT
  paddock::gui::test::GuiTestEnv env_;

 private slots:
  void initTestCase() { paddock::gui::AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void each_card_gets_its_own_line_off_the_callers_thread() {
    const QString open = makeProject(env_.root(), "open",
                                     "version: 1\nnetwork:\n  allow_domains: [a.example.test, b.example.test]\n");
    const QString closed = makeProject(env_.root(), "closed", "version: 1\nnetwork:\n  mode: off\n");
    // The agent preset gives the network mode (claude-code: only listed domains); a repository
    // layer may only add domains, or turn the network off.
    ProjectSummaries s;
    QCOMPARE(s.lineFor(open, "claude-code"), QString());  // nothing is evaluated while the caller waits
    QCOMPARE(s.lineFor(closed, "custom"), QString());
    QTRY_COMPARE_WITH_TIMEOUT(s.evaluations(), 2, 30000);
    const QString a = s.lineFor(open, "claude-code"), b = s.lineFor(closed, "custom");
    QVERIFY2(a.startsWith("writes this folder"), qPrintable(a));
    QVERIFY2(a.endsWith(" · secrets hidden"), qPrintable(a));
    QVERIFY2(domainsIn(a) >= 2, qPrintable(a));
    QVERIFY2(b.startsWith("writes this folder · no network"), qPrintable(b));
    // Asked again, a fresh line is answered from what was kept.
    s.lineFor(open, "claude-code");
    QCoreApplication::processEvents();
    QCOMPARE(s.evaluations(), 2);
  }

  void refresh_evaluates_again_after_a_policy_file_changed() {
    const QString p = makeProject(env_.root(), "grows",
                                  "version: 1\nnetwork:\n  allow_domains: [a.example.test]\n");
    ProjectSummaries s;
    s.lineFor(p, "claude-code");
    QTRY_COMPARE_WITH_TIMEOUT(s.evaluations(), 1, 30000);
    const QString before = s.lineFor(p, "claude-code");
    const int n = domainsIn(before);
    QVERIFY2(n >= 1, qPrintable(before));
    QFile f(p + "/.paddock/policy.yaml");
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("version: 1\nnetwork:\n  allow_domains: [a.example.test, c.example.test]\n");
    f.close();
    s.refresh();
    QCOMPARE(s.lineFor(p, "claude-code"), before);  // shown as it was until the new line arrives
    QTRY_COMPARE_WITH_TIMEOUT(s.evaluations(), 2, 30000);
    const QString after = s.lineFor(p, "claude-code");
    QCOMPARE(domainsIn(after), n + 1);
  }
};

QTEST_MAIN(ProjectSummariesTest)
#include "project_summaries_test.moc"
