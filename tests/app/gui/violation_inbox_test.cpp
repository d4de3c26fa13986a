// The violation inbox: denied requests of a session grouped by host; "allow it in a tier" is a
// diff shown first and saved atomically only as shown (comments and keys the app does not know
// stay), after which the engine's IR allows the domain; a file changed in between is not
// overwritten.
#include <QtTest>

#include "app_paths.h"
#include "engine/engine.h"
#include "gui_test_env.h"
#include "tests/support/test_paths.h"
#include "violation_inbox.h"

using namespace paddock::gui;
using paddock::Inputs;

namespace {

void write(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class ViolationInboxTest : public QObject {
  Q_OBJECT

 public:
  explicit ViolationInboxTest(test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void denials_are_grouped_by_host_and_a_fix_is_a_reviewed_diff_that_round_trips() {
    const QString project = env_->root() + "/home/inbox-project";
    const QString local = project + "/.paddock/local.yaml";
    const QByteArray original = "version: 1\n# my notes stay\nnetwork:\n  allow_domains:\n    - example.org\n"
                                "  quotas: {example.org: 1GiB}   # a key the fix does not touch\n";
    write(local, original);
    // A session of that project whose broker denied two hosts, one of them three times.
    const QString dir = env_->state() + "/paddock/sessions/20261201-000000-aaaa";
    Inputs in;
    in.project = project.toStdString();
    in.environment = {{"HOME", (env_->root() + "/home").toStdString()}, {"PATH", "/usr/bin:/bin"}};
    in.resources_dir = AppPaths::resourcesDir().toStdString();
    // The session's ir.json is the engine's bytes for that project (the inbox reads its project).
    auto ev = paddock::evaluate(in);
    QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().message.c_str());
    write(dir + "/events.jsonl",
          "{\"ts\":\"2026-12-01T00:00:00Z\",\"event\":\"session_started\",\"command\":[\"x\"],\"ir_hash\":\"sha256:0\","
          "\"plan_hash\":\"sha256:0\",\"backend\":\"linux\",\"tainted\":false,\"helper_pid\":1}\n"
          "{\"ts\":\"2026-12-01T00:00:01Z\",\"event\":\"net_request\",\"host\":\"pypi.org\",\"port\":443,\"protocol\":\"connect\","
          "\"decision\":\"deny\",\"rule\":\"no tier allows pypi.org\",\"reason\":\"not in the allowlist\",\"count\":3,"
          "\"last_ts\":\"2026-12-01T00:00:03Z\"}\n"
          "{\"ts\":\"2026-12-01T00:00:04Z\",\"event\":\"net_request\",\"host\":\"example.org\",\"port\":443,\"protocol\":\"connect\","
          "\"decision\":\"allow\",\"rule\":\"local-override\",\"reason\":\"\"}\n"
          "{\"ts\":\"2026-12-01T00:00:05Z\",\"event\":\"net_request\",\"host\":\"evil.test\",\"port\":80,\"protocol\":\"connect\","
          "\"decision\":\"deny\",\"rule\":\"no tier allows evil.test\",\"reason\":\"\"}\n");
    write(dir + "/ir.json", QByteArray::fromStdString(ev->ir_bytes));

    ViolationInbox inbox;
    inbox.setSessionDirs({dir});
    QCOMPARE(inbox.count(), 2);
    QCOMPARE(inbox.data(inbox.index(0), ViolationInbox::HostRole).toString(), QString("pypi.org"));
    QCOMPARE(inbox.data(inbox.index(0), ViolationInbox::CountRole).toInt(), 3);
    QCOMPARE(inbox.data(inbox.index(1), ViolationInbox::HostRole).toString(), QString("evil.test"));
    QCOMPARE(inbox.data(inbox.index(0), ViolationInbox::ProjectRole).toString(),
             QString::fromStdString(ev->ir.meta.project));

    // The tiers offered, with their files.
    const QVariantList tiers = ViolationInbox::fixTiers(QString::fromStdString(ev->ir.meta.project));
    QCOMPARE(tiers.size(), 3);
    QCOMPARE(tiers.at(0).toMap().value("file").toString(), QString::fromStdString(ev->ir.meta.project) + "/.paddock/local.yaml");

    // Review: nothing is written yet; the diff adds one line.
    QVERIFY(inbox.proposeFix(0, "local-override"));
    QCOMPARE(read(local), original);
    const QString diff = inbox.pending().value("diff").toString();
    QVERIFY2(diff.contains("+     - pypi.org"), qPrintable(diff));
    QCOMPARE(diff.count("\n+ "), 1);
    QVERIFY2(!diff.contains("\n- "), qPrintable(diff));

    // Save: what was shown is what is written; the rest of the file is untouched.
    QCOMPARE(inbox.applyPending(), QString());
    const QByteArray after = read(local);
    QVERIFY(after.contains("# my notes stay"));
    QVERIFY(after.contains("  quotas: {example.org: 1GiB}   # a key the fix does not touch\n"));
    QVERIFY(after.contains("- example.org"));
    QVERIFY(after.contains("- pypi.org"));

    // The save is confirmed, and the host's row says which file allows it now instead of
    // offering Allow… again; the other host is still offered.
    QCOMPARE(inbox.lastSaved().value("host").toString(), QString("pypi.org"));
    QVERIFY(inbox.lastSaved().value("file").toString().endsWith("/.paddock/local.yaml"));
    const auto allowed_by = [&](const QString& host) {
      for (int i = 0; i < inbox.count(); ++i)
        if (inbox.data(inbox.index(i), ViolationInbox::HostRole).toString() == host)
          return inbox.data(inbox.index(i), ViolationInbox::AllowedByRole).toString();
      return QString("(no row)");
    };
    QTRY_VERIFY2_WITH_TIMEOUT(allowed_by("pypi.org").endsWith("/.paddock/local.yaml"), qPrintable(allowed_by("pypi.org")), 10000);
    QCOMPARE(allowed_by("evil.test"), QString());
    inbox.dismissLastSaved();
    QVERIFY(inbox.lastSaved().isEmpty());

    // The engine reads it back: the domain is allowed now (the layer is the user's own local one).
    Inputs again = in;
    again.net = paddock::NetMode::kAllowlist;
    auto ev2 = paddock::evaluate(again);
    QVERIFY2(ev2.ok(), ev2.ok() ? "" : ev2.error().message.c_str());
    const auto& d = ev2->ir.egress.domains;
    QVERIFY(std::find(d.begin(), d.end(), "pypi.org") != d.end());

    // A file changed between review and save is not overwritten.
    QVERIFY(inbox.proposeFix(1, "local-override"));
    write(local, after + "# edited elsewhere\n");
    QVERIFY(!inbox.applyPending().isEmpty());
    QVERIFY(read(local).endsWith("# edited elsewhere\n"));
    QVERIFY(!read(local).contains("evil.test"));
  }

  void a_domain_already_listed_is_not_offered_again_and_a_new_file_starts_minimal() {
    const QString project = env_->root() + "/home/inbox-new";
    QVERIFY(QDir().mkpath(project));
    ViolationInbox inbox;
    QVERIFY(inbox.proposeDomain("crates.io", project, "local-override"));
    QCOMPARE(inbox.pending().value("created").toBool(), true);
    QCOMPARE(inbox.applyPending(), QString());
    const QByteArray text = read(project + "/.paddock/local.yaml");
    QVERIFY2(text.startsWith("version: 1\n"), text.constData());
    QVERIFY(text.contains("crates.io"));
    QVERIFY(!inbox.proposeDomain("crates.io", project, "local-override"));
    QVERIFY(inbox.pending().value("error").toString().contains("already lists"));
  }

  void line_diffs_mark_only_what_changed() {
    QCOMPARE(ViolationInbox::lineDiff("a\nb\nc\n", "a\nb\nx\nc\n"), QStringList({"  a", "  b", "+ x", "  c"}));
    QCOMPARE(ViolationInbox::lineDiff("a\nb\n", "a\n"), QStringList({"  a", "- b"}));
  }

 private:
  test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  test::GuiTestEnv env;
  QCoreApplication app(argc, argv);
  ViolationInboxTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "violation_inbox_test.moc"
