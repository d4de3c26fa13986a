// --why answers from the same IR the helper enforces (checked for every path of a fixture),
// provenance names the deciding tier and file, and each lint rule fires when it should.
#include <QtTest>

#include <filesystem>

#include "engine/engine.h"
#include "tests/engine/engine_test_env.h"
#include "tests/engine/fixture_project.h"

using namespace paddock;
using paddock::test::EngineEnv;
using paddock::test::FixtureProject;

namespace {
bool within(const std::string& p, const std::string& r) {
  return r == "/" || p == r || (p.size() > r.size() && p.compare(0, r.size(), r) == 0 && p[r.size()] == '/');
}
bool any_within(const std::string& p, const std::vector<std::string>& roots) {
  for (const auto& r : roots)
    if (within(p, r)) return true;
  return false;
}
bool any_within(const std::string& p, const std::vector<DenyEntry>& v) {
  for (const auto& d : v)
    if (within(p, d.path)) return true;
  return false;
}
std::vector<std::string> rules(const Evaluation& e) {
  std::vector<std::string> out;
  for (const auto& f : e.lint) out.push_back(f.rule);
  return out;
}
}  // namespace

class WhyLintTest : public QObject {
  Q_OBJECT
 private slots:
  void why_agrees_with_the_ir_for_every_path_in_a_fixture() {
    FixtureProject fx("rust-service", "/tmp/paddock-why");
    auto r = evaluate(fx.inputs());
    QVERIFY(r.ok());
    const auto& ir = r->ir;
    std::vector<std::string> paths = {"/etc/shadow", "/etc/passwd", "/usr/bin/env", "/root", "/srv", "/tmp/x",
                                      fx.home, fx.home + "/.ssh/id_ed25519", fx.home + "/.claude/x"};
    for (const auto& e : std::filesystem::recursive_directory_iterator(fx.root)) paths.push_back(e.path().string());
    int checked = 0;
    for (const auto& p : paths) {
      const WhyAnswer w = why(*r, p);
      const std::string ctx = p + " -> " + w.access + " (" + w.reason + ")";
      QCOMPARE(w.kind, std::string("path"));
      const bool denied = any_within(p, ir.fs.deny);
      if (w.access == "write") {
        QVERIFY2(!denied && !any_within(p, ir.fs.deny_write) && any_within(p, ir.fs.write_roots), ctx.c_str());
      } else if (w.access == "read") {
        QVERIFY2(!denied && (any_within(p, ir.fs.read_roots) || any_within(p, ir.fs.write_roots)), ctx.c_str());
        QVERIFY2(!any_within(p, ir.fs.write_roots) || any_within(p, ir.fs.deny_write), ctx.c_str());
      } else {
        QCOMPARE(w.access, std::string("none"));
        QVERIFY2(denied || (!any_within(p, ir.fs.read_roots) && !any_within(p, ir.fs.write_roots)), ctx.c_str());
      }
      QCOMPARE(w.allowed, w.access != "none");
      if (w.tier != "default") QVERIFY2(!w.tier.empty() && !w.rule.empty(), ctx.c_str());
      ++checked;
    }
    QVERIFY(checked > 20);
  }

  void why_names_the_deciding_tier_file_and_rule() {
    FixtureProject fx("rust-service", "/tmp/paddock-why");
    auto r = evaluate(fx.inputs());
    QVERIFY(r.ok());
    auto w = why(*r, fx.project + "/certs/server.PEM");
    QVERIFY(!w.allowed);
    QCOMPARE(w.tier, std::string("builtin-profile"));
    QVERIFY2(w.rule.find("filesystem.deny_preset[") == 0 && w.rule.find("(project-secrets)") != std::string::npos,
             w.rule.c_str());
    w = why(*r, fx.project + "/certs");
    QCOMPARE(w.tier, std::string("repository"));
    QCOMPARE(w.file, fx.project + "/.paddock/policy.yaml");
    QVERIFY2(w.rule.find("filesystem.deny[0] '$PROJECT/certs' at 5:") == 0, w.rule.c_str());
    w = why(*r, fx.project + "/Cargo.lock");
    QCOMPARE(w.access, std::string("read"));
    w = why(*r, "index.crates.io");
    QVERIFY(w.allowed);
    QCOMPARE(w.tier, std::string("repository"));
    QVERIFY(!why(*r, "evil.example.com").allowed);
    w = why(*r, "RUSTFLAGS");
    QVERIFY(w.allowed);
    QCOMPARE(w.file, fx.project + "/.paddock/policy.yaml");
    QVERIFY(!why(*r, "GITHUB_TOKEN").allowed);
    QVERIFY(why(*r, "PATH").allowed);
  }

  void provenance_covers_every_ir_entry() {
    FixtureProject fx("node-app", "/tmp/paddock-why");
    auto r = evaluate(fx.inputs());
    QVERIFY(r.ok());
    const auto& p = r->provenance;
    for (const auto& x : r->ir.fs.write_roots) QVERIFY2(p.contains("fs.write_roots:" + x), x.c_str());
    for (const auto& x : r->ir.fs.read_roots) QVERIFY2(p.contains("fs.read_roots:" + x), x.c_str());
    for (const auto& d : r->ir.fs.deny) QVERIFY2(p.contains("fs.deny:" + d.path), d.path.c_str());
    for (const auto& d : r->ir.fs.deny_write) QVERIFY2(p.contains("fs.deny_write:" + d.path), d.path.c_str());
    for (const auto& x : r->ir.egress.domains) QVERIFY2(p.contains("egress.domains:" + x), x.c_str());
    for (const auto& x : r->ir.env.passed_names) QVERIFY2(p.contains("env.passed_names:" + x), x.c_str());
    for (const auto& x : r->ir.env.hard_deny) QVERIFY2(p.contains("env.hard_deny:" + x), x.c_str());
    for (const auto& [k, v] : r->ir.env.set) QVERIFY2(p.contains("env.set:" + k), k.c_str());
    QVERIFY(p.contains("fs.tmp_isolated"));
    QVERIFY(p.contains("egress.mode"));
    QVERIFY(p.contains("resources.memory_bytes"));
    // Removals are recorded too: NODE_AUTH_TOKEN matched NODE_* and was removed by deny.
    bool removed = false;
    for (const auto& c : p["env.passed_names:NODE_AUTH_TOKEN"]) removed = removed || c["action"] == "removed";
    QVERIFY(removed);
    const auto j = explain_json(*r);
    QCOMPARE(j.size(), size_t(5));
    for (const char* k : {"ir", "ir_hash", "provenance", "warnings", "lint"}) QVERIFY(j.contains(k));
  }

  void lint_r1_r2_r3_r5_fire_on_their_shapes() {
    EngineEnv env;
    auto in = env.inputs();
    in.profile = "permissive";  // reads ~ (R2), no limits (R5)
    auto e = evaluate(in);
    QVERIFY(e.ok());
    auto r = rules(*e);
    QVERIFY(std::find(r.begin(), r.end(), "R2") != r.end());
    QVERIFY(std::find(r.begin(), r.end(), "R5") != r.end());
    QVERIFY(std::find(r.begin(), r.end(), "R1") == r.end());
    env.user("version: 1\nfilesystem: {allow_write: [\"~\"], deny: [/srv/nothing-granted-here]}\n");
    e = evaluate(env.inputs());
    r = rules(*e);
    QVERIFY(std::find(r.begin(), r.end(), "R1") != r.end());
    QVERIFY(std::find(r.begin(), r.end(), "R3") != r.end());
    QCOMPARE(e->lint.front().tier, std::string("user-global"));
  }

  // A grant at or below a deny is no grant: the IR lists only what the sandbox gives, provenance
  // says which deny took it, --why says denied, and the deny is not linted as doing nothing.
  void a_grant_below_a_deny_is_removed_and_a_write_grant_below_a_protection_is_read_only() {
    EngineEnv env;
    env.write(env.home + "/.ssh/id_ed25519", "k");
    env.write(env.home + "/.npm/_logs/a.log", "l");
    env.write(env.home + "/tools/bin/x", "x");
    env.user("version: 1\nfilesystem:\n  allow_read: [\"~/.ssh\"]\n  allow_write: [\"~/.npm/_logs\", \"~/tools/bin\"]\n"
             "  deny: [\"~/.npm\"]\n  deny_write: [\"~/tools\"]\n");
    auto e = evaluate(env.inputs());
    QVERIFY(e.ok());
    const auto& fs = e->ir.fs;
    for (const auto* roots : {&fs.read_roots, &fs.write_roots})
      for (const auto& r : *roots) {
        QVERIFY2(!within(r, env.home + "/.ssh") && !within(r, env.home + "/.npm"), r.c_str());
        QVERIFY2(r != env.home + "/tools/bin" || roots == &fs.read_roots, r.c_str());
      }
    QVERIFY(std::find(fs.read_roots.begin(), fs.read_roots.end(), env.home + "/tools/bin") != fs.read_roots.end());
    QCOMPARE(why(*e, env.home + "/.npm/_logs/a.log").access, std::string("none"));
    QCOMPARE(why(*e, env.home + "/tools/bin/x").access, std::string("read"));
    const auto removed = e->provenance.value("fs.write_roots:" + env.home + "/.npm/_logs", nlohmann::json::array());
    QVERIFY2(removed.dump().find("inside the denied " + env.home + "/.npm") != std::string::npos, removed.dump().c_str());
    for (const auto& f : e->lint) QVERIFY2(f.rule != "R3", f.message.c_str());
  }

  void lint_r4_finds_secret_shaped_files_a_grant_exposes() {
    EngineEnv env;
    env.write(env.root + "/keys/prod.pem", "k");
    auto in = env.inputs();
    in.allow_reads = {env.root + "/keys"};
    in.environment["HOME"] = env.root;  // the grant is inside home, so it is scanned
    std::filesystem::create_directories(env.root + "/project");
    auto e = evaluate(in);
    QVERIFY(e.ok());
    bool r4 = false;
    for (const auto& f : e->lint) r4 = r4 || (f.rule == "R4" && f.message.find("prod.pem") != std::string::npos);
    QVERIFY(r4);
    env.write(env.project + "/.env", "x");  // masked by the profile: no finding
    e = evaluate(env.inputs());
    for (const auto& f : e->lint) QVERIFY2(f.rule != "R4", f.message.c_str());
  }

  void the_default_profile_is_lint_clean() {
    EngineEnv env;
    auto in = env.inputs();
    in.agent = "codex";
    auto e = evaluate(in);
    QVERIFY(e.ok());
    QVERIFY2(e->lint.empty(), e->lint.empty() ? "" : e->lint.front().message.c_str());
  }
};

QTEST_GUILESS_MAIN(WhyLintTest)
#include "why_lint_test.moc"
