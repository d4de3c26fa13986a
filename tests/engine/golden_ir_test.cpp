// Golden IRs for the fixture projects, and determinism: same inputs, fragments created in
// another order and the environment built in another order give the same bytes.
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/engine.h"
#include "tests/engine/fixture_project.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using paddock::test::FixtureProject;

namespace {
std::string golden_path(const std::string& name) { return paddock::test::test_data() + "/golden/ir/" + name + ".json"; }
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
std::string canonical_of(const Inputs& in) {
  auto r = evaluate(in);
  if (!r.ok()) qFatal("evaluate failed: %s", r.error().message.c_str());
  return canonical_bytes(r->ir);
}
}  // namespace

class GoldenIrTest : public QObject {
  Q_OBJECT
 private slots:
  void each_fixture_project_freezes_to_its_golden_ir() {
    // Regenerate with PADDOCK_UPDATE_GOLDEN=1 after an intended change, and review the diff.
    const bool update = std::getenv("PADDOCK_UPDATE_GOLDEN") != nullptr;
    for (const auto& name : paddock::test::fixture_names()) {
      FixtureProject fx(name);
      auto r = evaluate(fx.inputs());
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
      const std::string got = to_json(r->ir).dump(2) + "\n";
      if (update) {
        std::filesystem::create_directories(std::filesystem::path(golden_path(name)).parent_path());
        std::ofstream(golden_path(name), std::ios::binary) << got;
      }
      const std::string want = slurp(golden_path(name));
      QVERIFY2(!want.empty(), ("missing golden " + golden_path(name)).c_str());
      if (got != want) {
        std::ofstream(golden_path(name) + ".actual", std::ios::binary) << got;
        QFAIL(("IR differs from " + golden_path(name) + "; see the .actual file next to it").c_str());
      }
      // The golden reads back through the strict reader to the same hash.
      auto back = ir_from_json(nlohmann::json::parse(want));
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
      QCOMPARE(ir_hash(*back), r->ir_hash);
    }
  }

  // `paddock run` evaluates without the report (no provenance, no per-layer additions); the IR it
  // freezes must be the one explain and plan show.
  void without_the_report_every_fixture_freezes_the_same_ir_bytes() {
    for (const auto& name : paddock::test::fixture_names()) {
      FixtureProject fx(name);
      Inputs with = fx.inputs(), without = fx.inputs();
      without.with_report = false;
      auto a = evaluate(with), b = evaluate(without);
      QVERIFY2(a.ok() && b.ok(), name.c_str());
      QCOMPARE(b->ir_bytes, a->ir_bytes);
      QCOMPARE(b->ir_hash, a->ir_hash);
      QCOMPARE(b->ir.warnings, a->ir.warnings);
      QVERIFY(!a->provenance.empty());
      QVERIFY(b->provenance.is_null() || b->provenance.empty());
    }
  }

  void the_same_inputs_twice_give_the_same_bytes() {
    FixtureProject fx("rust-service", "/tmp/paddock-determinism");
    QCOMPARE(canonical_of(fx.inputs()), canonical_of(fx.inputs()));
  }

  void fragments_created_in_another_order_give_the_same_bytes() {
    std::string first, second;
    {
      FixtureProject fx("rust-service", "/tmp/paddock-determinism");
      for (const char* f : {"a", "b", "c", "d"})
        std::ofstream(fx.project + "/.paddock/policy.d/" + f + ".yaml") << "version: 1\nfilesystem: {deny: [$PROJECT/" << f << "]}\n";
      first = canonical_of(fx.inputs());
    }
    {
      FixtureProject fx("rust-service", "/tmp/paddock-determinism");
      for (const char* f : {"d", "b", "c", "a"})
        std::ofstream(fx.project + "/.paddock/policy.d/" + f + ".yaml") << "version: 1\nfilesystem: {deny: [$PROJECT/" << f << "]}\n";
      second = canonical_of(fx.inputs());
    }
    QCOMPARE(first, second);
  }

  void the_environment_in_another_order_gives_the_same_bytes() {
    FixtureProject fx("node-app", "/tmp/paddock-determinism");
    Inputs a = fx.inputs(), b = fx.inputs();
    b.environment.clear();
    std::vector<std::pair<std::string, std::string>> rev(a.environment.rbegin(), a.environment.rend());
    for (const auto& kv : rev) b.environment.insert(kv);
    QCOMPARE(canonical_of(a), canonical_of(b));
  }

  void canonical_bytes_have_no_newline_and_hash_to_ir_hash() {
    FixtureProject fx("plain", "/tmp/paddock-determinism");
    auto r = evaluate(fx.inputs());
    QVERIFY(r.ok());
    const std::string bytes = canonical_bytes(r->ir);
    QVERIFY(bytes.find('\n') == std::string::npos);
    QCOMPARE(sha256_hex(bytes), r->ir_hash);
  }
};

QTEST_GUILESS_MAIN(GoldenIrTest)
#include "golden_ir_test.moc"
