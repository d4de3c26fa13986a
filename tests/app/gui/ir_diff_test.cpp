#include <QtTest>

#include "ir_diff.h"

using namespace paddock;
using namespace paddock::gui;

class IrDiffTest : public QObject {
  Q_OBJECT
 private slots:
  void equal_irs_have_no_difference() {
    FrozenIr a;
    a.fs.write_roots = {"/p"};
    QVERIFY(diff_ir(a, a).empty());
  }

  void a_tightened_path_shows_as_one_removed_grant() {
    FrozenIr a, b;
    a.fs.write_roots = {"/p", "/p/build"};
    b.fs.write_roots = {"/p"};
    const auto d = diff_ir(a, b);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0], (IrChange{"fs.write_roots", "/p/build", false}));
  }

  void additions_removals_and_scalar_changes_are_all_listed() {
    FrozenIr a, b;
    b.fs.deny = {{"/p/.env", PathKind::kFile}};
    a.egress.domains = {"github.com"};
    b.egress.domains = {"api.anthropic.com"};
    b.egress.mode = NetMode::kAllowlist;
    a.resources.memory_bytes = 1024;
    const auto d = diff_ir(a, b);
    auto has = [&](const IrChange& c) { return std::find(d.begin(), d.end(), c) != d.end(); };
    QVERIFY(has({"fs.deny", "/p/.env (file)", true}));
    QVERIFY(has({"egress.domains", "github.com", false}));
    QVERIFY(has({"egress.domains", "api.anthropic.com", true}));
    QVERIFY(has({"egress.mode", "off", false}));
    QVERIFY(has({"egress.mode", "allowlist", true}));
    QVERIFY(has({"resources.memory_bytes", "1 KiB", false}));
    QVERIFY(has({"resources.memory_bytes", "no limit", true}));
    QCOMPARE(d.size(), size_t(7));
  }

  void byte_counts_and_durations_read_in_units() {
    FrozenIr a, b;
    a.resources.memory_bytes = 17179869184;
    b.resources.memory_bytes = 1536;
    b.resources.wall_time_secs = 7200;
    b.egress.quotas = {{"api.openai.com", 2147483648}};
    const auto d = diff_ir(a, b);
    auto has = [&](const IrChange& c) { return std::find(d.begin(), d.end(), c) != d.end(); };
    QVERIFY(has({"resources.memory_bytes", "16 GiB", false}));
    QVERIFY(has({"resources.memory_bytes", "1.5 KiB", true}));
    QVERIFY(has({"resources.wall_time_secs", "2 h", true}));
    QVERIFY(has({"egress.quotas", "api.openai.com=2 GiB", true}));
    for (const auto& c : d) QVERIFY2(c.value.find("2147483648") == std::string::npos, c.value.c_str());
  }

  // Every field the schema declares is compared, so a field the IR gains later is never missing
  // from the Diff (these came with the egress seam and --git-ssh); a map compares as entries.
  void every_declared_field_shows_its_change() {
    FrozenIr a, b;
    b.egress.debug_resolve = {{"git.paddock.test", {"127.0.0.1"}}};
    b.egress.git_ssh_connect = "/opt/paddock/libexec/paddock/paddock-connect";
    b.meta.project = "/home/u/other";
    const auto d = diff_ir(a, b);
    auto named = [&](const std::string& field) {
      return std::count_if(d.begin(), d.end(), [&](const IrChange& c) { return c.field == field && c.added; });
    };
    QCOMPARE(named("egress.debug_resolve"), 1l);
    QCOMPARE(named("egress.git_ssh_connect"), 1l);
    QCOMPARE(named("meta.project"), 1l);
    QVERIFY(std::find(d.begin(), d.end(), IrChange{"egress.debug_resolve", "git.paddock.test=127.0.0.1", true}) != d.end());
    QCOMPARE(d.size(), size_t(5));  // one added map entry, two old -> new pairs
  }
};

QTEST_GUILESS_MAIN(IrDiffTest)
#include "ir_diff_test.moc"
