// The composer against the real engine: tier stack cards, live IR/diff/hash on edits, inline
// parse errors, stale results discarded, approvals written through the engine's API.
#include <QGuiApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>

#include "app_paths.h"
#include "backends/backend.h"
#include "gui_test_env.h"
#include "layer_document.h"
#include "policy_composer.h"
#include "tests/support/test_paths.h"
#include "violation_inbox.h"

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

  // The Capabilities tab has a column per backend the engine knows, in its order, each filled
  // from that backend's own matrix (a new backend appears without a change to the app).
  void the_capabilities_have_a_column_per_backend_from_its_own_matrix() {
    PolicyComposer c;
    c.setProject(QFileInfo(project_->path()).canonicalFilePath());
    CapabilityModel& m = *c.capabilities();
    QTRY_VERIFY_WITH_TIMEOUT(m.status() == ModelStatus::Ready, 20000);
    QStringList names;
    for (paddock::backends::BackendId b : paddock::backends::all_backends()) names << paddock::backends::to_string(b);
    QCOMPARE(m.backends(), names);
    QVERIFY(names.contains("oci") && names.contains("kubernetes"));
    int row = -1;
    for (int i = 0; i < m.rowCount(); ++i)
      if (m.data(m.index(i), CapabilityModel::FieldRole).toString() == "egress.mode=allowlist") row = i;
    QVERIFY(row >= 0);
    const QVariantList cells = m.data(m.index(row), CapabilityModel::CellsRole).toList();
    QCOMPARE(cells.size(), names.size());
    for (qsizetype col = 0; col < names.size(); ++col) {
      const auto matrix = paddock::backends::capability_matrix(paddock::backends::all_backends()[static_cast<std::size_t>(col)],
                                                      nlohmann::json::object());
      for (const auto& r : matrix)
        if (r.field == "egress.mode=allowlist" && names[col] != "linux")
          QCOMPARE(cells[col].toMap()["support"].toString(), QString(paddock::to_string(r.support)));
    }
    QCOMPARE(cells[names.indexOf("oci")].toMap()["support"].toString(), QString("partial"));
    QCOMPARE(cells[names.indexOf("kubernetes")].toMap()["support"].toString(), QString("partial"));
    QCOMPARE(cells[names.indexOf("macos")].toMap()["support"].toString(), QString("unsupported"));
  }

  // Home's "Review changes before they reach the project" reaches the summary: the launch it
  // describes holds the agent's writes, and the summary says so in plain words; off, it does not.
  void the_summary_says_changes_are_held_for_review_when_the_launch_reviews_them() {
    PolicyComposer c;
    c.setProject(QFileInfo(project_->path()).canonicalFilePath());
    c.setAgent("claude-code");
    c.setReview(true);
    QVERIFY(wait_evaluated(c));
    QVERIFY2(c.status() == ModelStatus::Ready, qPrintable(c.errorString()));
    const auto held = [&] {
      for (const auto& l : c.summary()->lines())
        if (l.label == "Its changes") return QString::fromStdString(l.text);
      return QString();
    };
    QVERIFY2(held().startsWith("held for review: nothing it writes reaches your files until you apply it"),
             qPrintable(held()));
    QVERIFY2(c.irJson().contains("review_roots"), qPrintable(c.irJson()));
    c.setReview(false);
    QVERIFY(wait_evaluated(c));
    QCOMPARE(held(), QString());
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

  // A fix saved from the violation inbox into the layer open in the editor: the editor shows
  // it at once (it had no unsaved edits), the IR has the domain, and the stack says what
  // `paddock explain` says: the changed layer is not approved.
  void a_fix_saved_elsewhere_reloads_the_editor_and_the_stack_agrees_with_explain() {
    PolicyComposer c;
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    c.setDocument(&doc);
    c.setProject(canonicalProject());
    c.setAgent("claude-code");
    QVERIFY(wait_evaluated(c));
    const int repo = row_of(*c.layers(), "repository");
    QVERIFY(c.approve(repo));
    QVERIFY(settle(c));
    const auto approval = [&] { return c.layers()->data(c.layers()->index(repo), TierStackModel::ApprovalRole).toString(); };
    QCOMPARE(approval(), QString("approved"));

    ViolationInbox inbox;
    QVERIFY(inbox.proposeDomain("api.example.test", canonicalProject(), "repository"));
    QCOMPARE(inbox.applyPending(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(doc.text().contains("api.example.test"), 5000);
    QVERIFY(!doc.dirty());
    QVERIFY(doc.diskNotice().contains("changed on disk and was reloaded"));
    QTRY_VERIFY2_WITH_TIMEOUT(c.irJson().contains("api.example.test") && approval() == "unapproved",
                              qPrintable(approval()), 10000);

    QProcess explain;
    explain.start(AppPaths::cliPath(), {"explain", "--project", canonicalProject(), "--agent", "claude-code"});
    QVERIFY(explain.waitForFinished(30000));
    const QString out = QString::fromUtf8(explain.readAllStandardOutput());
    QVERIFY2(out.contains(layerPath() + ", NOT APPROVED") || out.contains(QFileInfo(layerPath()).canonicalFilePath() + ", NOT APPROVED"),
             qPrintable(out));
    QVERIFY2(out.contains("api.example.test"), qPrintable(out));
  }

  // With unsaved edits, the stack shows the approval of the saved file (what `paddock run`
  // checks), and follows that file when it changes on disk.
  void approval_is_the_saved_files_also_under_unsaved_edits() {
    PolicyComposer c;
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    c.setDocument(&doc);
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const int repo = row_of(*c.layers(), "repository");
    QVERIFY(c.approve(repo));
    QVERIFY(settle(c));
    const auto approval = [&] { return c.layers()->data(c.layers()->index(repo), TierStackModel::ApprovalRole).toString(); };
    doc.setText(doc.text() + "# an unsaved comment\n");
    QVERIFY(settle(c));
    QCOMPARE(approval(), QString("approved"));  // the saved bytes are approved; the edit is not saved

    ViolationInbox inbox;
    QVERIFY(inbox.proposeDomain("api.example.test", canonicalProject(), "repository"));
    QCOMPARE(inbox.applyPending(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(doc.changedOnDisk(), 5000);
    QVERIFY(doc.dirty());
    QTRY_COMPARE_WITH_TIMEOUT(approval(), QString("unapproved"), 10000);
  }

  // Unsaved edits over a file that changed on disk are never saved over it: save() refuses (even
  // before the watcher has said anything), the editor says so, and reload() shows the file.
  void a_save_never_writes_stale_text_over_a_newer_file() {
    LayerDocument doc;
    QVERIFY(doc.open(layerPath(), "repository"));
    doc.setText(doc.text() + "# a comment typed in the YAML view\n");
    QVERIFY(doc.dirty());
    const QByteArray newer = QByteArray(kRepoLayer) + "network:\n  allow_domains: [api.example.test]\n";
    {
      QFile f(layerPath());
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(newer);
    }
    QVERIFY(!doc.save());
    QVERIFY2(doc.errorString().contains("changed on disk"), qPrintable(doc.errorString()));
    QVERIFY(doc.changedOnDisk());
    QVERIFY(doc.dirty());  // the edits are still there to copy
    QFile f(layerPath());
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), newer);
    f.close();
    QVERIFY(doc.reload());
    QCOMPARE(doc.text().toUtf8(), newer);
    QVERIFY(!doc.changedOnDisk());
    // Saved from here on, against the bytes it now holds.
    doc.setText(doc.text() + "# now it saves\n");
    QVERIFY2(doc.save(), qPrintable(doc.errorString()));
  }

  // A layer file that does not parse keeps the tier stack on screen, the error on its card.
  void a_layer_that_does_not_parse_keeps_the_stack_with_the_error_on_its_card() {
    {
      QFile f(layerPath());
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("version: 1\nfilesystem:\n  allow_evrything: true\n");
    }
    PolicyComposer c;
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    QCOMPARE(c.status(), ModelStatus::Error);
    const auto& m = *c.layers();
    QCOMPARE(m.status(), ModelStatus::Ready);
    const int repo = row_of(m, "repository");
    QVERIFY(repo >= 0);
    QVERIFY(row_of(m, "builtin-profile") >= 0);
    const QString error = m.data(m.index(repo), TierStackModel::ErrorRole).toString();
    QVERIFY2(error.startsWith("does not evaluate (line 3, column"), qPrintable(error));
    QVERIFY(m.data(m.index(row_of(m, "builtin-profile")), TierStackModel::ErrorRole).toString().isEmpty());
    QVERIFY(m.data(m.index(repo), TierStackModel::ExistsRole).toBool());

    // Fixed, then a new file appears broken (written by another program): its card says it is
    // there, with its error; the others keep what they said.
    {
      QFile f(layerPath());
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(kRepoLayer);
    }
    c.refresh();
    QVERIFY(settle(c));
    QCOMPARE(c.status(), ModelStatus::Ready);
    {
      QFile f(project_->path() + "/.paddock/local.yaml");
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("version: 1\nnetwork: [\n");
    }
    QTRY_COMPARE_WITH_TIMEOUT(c.status(), ModelStatus::Error, 10000);
    QVERIFY(settle(c));
    const int local = row_of(m, "local-override");
    QVERIFY(m.data(m.index(local), TierStackModel::ExistsRole).toBool());
    QVERIFY2(!m.data(m.index(local), TierStackModel::ErrorRole).toString().isEmpty(), qPrintable(c.errorString()));
    QVERIFY(m.data(m.index(repo), TierStackModel::AppliesRole).toBool());
  }

  void the_approval_preview_says_sizes_and_durations_in_units() {
    {
      QFile f(layerPath());
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("version: 1\nlimits:\n  memory: 8GiB\n  wall_time: 2h\nnetwork:\n  quotas: {api.example.test: 2GiB}\n");
    }
    PolicyComposer c;
    c.setProject(canonicalProject());
    QVERIFY(wait_evaluated(c));
    const QString preview = c.approvalPreview(row_of(*c.layers(), "repository"));
    QVERIFY2(preview.contains("limits.memory: 8 GiB") && preview.contains("limits.wall_time: 2 h") &&
                 preview.contains("network.quotas: api.example.test 2 GiB"),
             qPrintable(preview));
    QVERIFY2(!preview.contains("8589934592") && !preview.contains("2147483648"), qPrintable(preview));
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
