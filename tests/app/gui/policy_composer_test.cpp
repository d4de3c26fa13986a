// The composer against the real engine: tier stack cards, live IR/diff/hash on edits, inline
// parse errors, stale results discarded, approvals written through the engine's API.
#include <QGuiApplication>
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>

#include "app_paths.h"
#include "gui_test_env.h"
#include "layer_document.h"
#include "policy_composer.h"
#include "tests/support/test_paths.h"

using namespace paddock::gui;

namespace {

const char* kRepoLayer =
    "version: 1\n"
    "# keep this comment\n"
    "filesystem:\n"
    "  deny:\n"
    "    - $PROJECT/secrets\n"
    "  allow_write:\n"
    "    - $PROJECT/build\n"
    "    - $PROJECT/dist\n";

bool wait_evaluated(PolicyComposer& c, int timeout_ms = 20000) {
  QSignalSpy spy(&c, &PolicyComposer::evaluated);
  return spy.wait(timeout_ms);
}

// Waits until the composer is idle and has applied its newest generation.
bool settle(PolicyComposer& c) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 30000) {
    QTest::qWait(20);
    if (!c.busy() && c.generation() > 0) {
      QTest::qWait(200);  // past the debounce
      if (!c.busy()) return true;
    }
  }
  return false;
}

int row_of(const TierStackModel& m, const QString& tier) {
  for (int i = 0; i < m.rowCount(); ++i)
    if (m.data(m.index(i), TierStackModel::TierRole).toString() == tier) return i;
  return -1;
}

}  // namespace

class PolicyComposerTest : public QObject {
  Q_OBJECT

 public:
  explicit PolicyComposerTest(test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void init() {
    project_ = std::make_unique<QTemporaryDir>();
    QVERIFY(QDir().mkpath(project_->path() + "/.paddock"));
    QVERIFY(QDir().mkpath(project_->path() + "/build"));
    QVERIFY(QDir().mkpath(project_->path() + "/dist"));
    QFile f(layerPath());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kRepoLayer);
  }

  void the_tier_stack_lists_every_tier_in_precedence_order_with_its_state() {
    PolicyComposer c;
    c.setProject(QFileInfo(project_->path()).canonicalFilePath());
    c.setAgent("claude-code");
    QVERIFY(wait_evaluated(c));
    QVERIFY2(c.status() == ModelStatus::Ready, qPrintable(c.errorString()));
    const auto& m = *c.layers();
    const QStringList order = {"system-global", "user-global", "builtin-profile", "preset", "agent-preset",
                               "repository", "local-override", "cli-flags"};
    int last = -1;
    for (const auto& tier : order) {
      const int r = row_of(m, tier);
      QVERIFY2(r > last, qPrintable(tier));
      last = r;
    }
    const int repo = row_of(m, "repository");
    QCOMPARE(m.data(m.index(repo), TierStackModel::AppliesRole).toBool(), true);
    QCOMPARE(m.data(m.index(repo), TierStackModel::ApprovalRole).toString(), QString("unapproved"));
    QCOMPARE(m.data(m.index(repo), TierStackModel::SignatureRole).toString(), QString("unsigned"));
    QCOMPARE(m.data(m.index(repo), TierStackModel::EditableRole).toBool(), true);
    QCOMPARE(m.data(m.index(row_of(m, "local-override")), TierStackModel::ExistsRole).toBool(), false);
    QCOMPARE(m.data(m.index(row_of(m, "builtin-profile")), TierStackModel::EditableRole).toBool(), false);
    QVERIFY2(c.irJson().contains(canonicalProject() + "/secrets"), qPrintable(c.irJson()));
    QVERIFY(c.irHash().startsWith("sha256:"));
  }

  void tightening_a_path_in_the_editor_changes_ir_diff_and_hash_before_saving() {
    PolicyComposer c;
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    c.setDocument(&doc);
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const QString before = c.irHash();
    QCOMPARE(c.baselineHash(), before);
    QCOMPARE(c.diff()->rowCount(), 0);

    QVERIFY(doc.addItem("filesystem", "deny", "$PROJECT/dist"));  // tighten: no more access to dist
    QVERIFY(wait_evaluated(c));
    QVERIFY(c.irHash() != before);
    QCOMPARE(c.diff()->hashBefore(), before);
    QCOMPARE(c.diff()->hashAfter(), c.irHash());
    bool removed_dist = false;
    for (const auto& ch : c.diff()->changes())
      if (ch.field == "fs.deny" && ch.added && ch.value.rfind((canonicalProject() + "/dist (").toStdString(), 0) == 0)
        removed_dist = true;
    QVERIFY2(removed_dist, qPrintable(c.irJson()));
    QVERIFY(!QFileInfo(layerPath()).lastModified().isNull());  // nothing saved yet
    QFile f(layerPath());
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(!f.readAll().contains("deny:\n    - $PROJECT/secrets\n    - $PROJECT/dist"));

    // Saving moves the baseline: the diff is empty again and the hash stays.
    const QString after = c.irHash();
    QVERIFY(doc.save());
    QVERIFY(wait_evaluated(c));
    QCOMPARE(c.baselineHash(), after);
    QCOMPARE(c.diff()->rowCount(), 0);
  }

  void a_parse_error_while_typing_is_reported_at_line_and_column_of_the_edited_file() {
    PolicyComposer c;
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    c.setDocument(&doc);
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    doc.setText(QString(kRepoLayer) + "  allow_everything: true\n");  // line 9
    QVERIFY(wait_evaluated(c));
    QCOMPARE(c.status(), ModelStatus::Error);
    QVERIFY2(c.errorFile() == doc.path() || QFileInfo(c.errorFile()).canonicalFilePath() == QFileInfo(doc.path()).canonicalFilePath(),
             qPrintable(c.errorString()));
    QCOMPARE(c.errorLine(), 9);
    QVERIFY(c.errorColumn() >= 1);
    QVERIFY(c.irJson().isEmpty());
    QCOMPARE(c.diff()->status(), ModelStatus::Error);
    // The stack keeps its cards while the text is broken.
    QVERIFY(c.layers()->rowCount() > 0);
    doc.undo();
    QVERIFY(wait_evaluated(c));
    QCOMPARE(c.status(), ModelStatus::Ready);
  }

  void a_burst_of_edits_ends_with_the_ir_of_the_last_text() {
    PolicyComposer c;
    c.setDebounceMs(0);  // every edit starts a run: stale results must be dropped
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    c.setDocument(&doc);
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    for (int i = 0; i < 12; ++i) {
      QVERIFY(QDir().mkpath(project_->path() + "/out" + QString::number(i)));
      QVERIFY(doc.addItem("filesystem", "deny", "$PROJECT/out" + QString::number(i)));
      QCoreApplication::processEvents();
    }
    QVERIFY(settle(c));
    QVERIFY2(c.irJson().contains(canonicalProject() + "/out11"), qPrintable(c.irJson()));
    // The same text evaluated from scratch gives the same hash.
    PolicyComposer fresh;
    LayerDocument copy;
    QVERIFY(copy.open(layerPath(), "repository"));
    copy.setText(doc.text());
    fresh.setDocument(&copy);
    fresh.setProject(canonicalProject());
    QVERIFY(wait_evaluated(fresh));
    QCOMPARE(fresh.irHash(), c.irHash());
  }

  void approving_records_the_saved_layer_through_the_engine() {
    PolicyComposer c;
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const int repo = row_of(*c.layers(), "repository");
    QVERIFY(c.approvalBlocker(repo).isEmpty());
    QVERIFY(c.approvalPreview(repo).contains("sha256:"));
    QVERIFY(c.approve(repo));
    QVERIFY(wait_evaluated(c));
    QCOMPARE(c.layers()->data(c.layers()->index(repo), TierStackModel::ApprovalRole).toString(), QString("approved"));
    QVERIFY(QFile::exists(env_->state() + "/paddock/approvals.json"));
    QVERIFY(!c.approvalBlocker(repo).isEmpty());  // already approved
    QVERIFY(!c.approve(row_of(*c.layers(), "builtin-profile")));
  }

  void why_answers_from_the_live_evaluation() {
    PolicyComposer c;
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const QVariantMap a = c.why(canonicalProject() + "/secrets/token.txt");
    QCOMPARE(a.value("kind").toString(), QString("path"));
    QCOMPARE(a.value("allowed").toBool(), false);
    QCOMPARE(a.value("tier").toString(), QString("repository"));
    QVERIFY(a.value("rule").toString().contains("deny"));
  }

  // A name the agent chose (here a nested repository's, whose hooks it linked to the checkout)
  // reaches the app's warnings escaped: no ESC sequence, no line of its own.
  void warnings_show_names_the_agent_chose_escaped() {
    const std::string root = canonicalProject().toStdString();
    const std::string nested = root + "/evil\x1b]0;pwned\x07\nline";
    QVERIFY(std::filesystem::create_directories(nested + "/.git"));
    std::filesystem::create_symlink("../..", nested + "/.git/hooks");
    PolicyComposer c;
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const auto* w = c.warnings();
    bool found = false;
    for (int i = 0; i < w->rowCount(); ++i) {
      const QString text = w->data(w->index(i), WarningsModel::MessageRole).toString();
      QVERIFY2(!text.contains(QChar(0x1b)) && !text.contains('\n'), qPrintable(text));
      found = found || text.contains("evil\\x1b]0;pwned\\x07\\nline/.git/hooks");
    }
    QVERIFY(found);
    std::filesystem::remove_all(nested);
  }

 private:
  QString layerPath() const { return project_->path() + "/.paddock/policy.yaml"; }
  QString canonicalProject() const { return QFileInfo(project_->path()).canonicalFilePath(); }

  test::GuiTestEnv* env_;
  std::unique_ptr<QTemporaryDir> project_;
};

int main(int argc, char** argv) {
  test::GuiTestEnv env;
  QGuiApplication app(argc, argv);
  PolicyComposerTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "policy_composer_test.moc"
