// Randomized layer stacks (fixed seeds, so failures reproduce): no IR ever grants what a deny
// forbids, and nothing exceeds an immutable system layer.
#include <QtTest>

#include <filesystem>
#include <random>

#include "engine/engine.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::EngineEnv;

namespace {

const char* kPaths[] = {"$PROJECT/a", "$PROJECT/a/b", "$PROJECT/a/b/c.txt", "$PROJECT/d", "$PROJECT/d/e.txt",
                        "$PROJECT/*/b", "$PROJECT/**/*.txt", "~/data", "~/data/x.txt", "$PROJECT"};
const char* kLimits[] = {"memory: 1GiB", "memory: 8GiB", "processes: 10", "processes: 1000", "wall_time: 1h"};

std::string pick_list(std::mt19937& rng, int max) {
  std::uniform_int_distribution<int> n(0, max), i(0, static_cast<int>(std::size(kPaths)) - 1);
  std::string s = "[";
  const int count = n(rng);
  for (int k = 0; k < count; ++k) s += std::string(k ? ", " : "") + "\"" + kPaths[i(rng)] + "\"";
  return s + "]";
}

std::string random_layer(std::mt19937& rng, bool repository_side) {
  std::string y = "version: 1\nfilesystem:\n";
  if (!repository_side) y += "  allow_read: " + pick_list(rng, 2) + "\n";
  y += "  allow_write: " + std::string(repository_side ? "[\"$PROJECT/a\"]" : pick_list(rng, 2)) + "\n";
  y += "  deny: " + pick_list(rng, 2) + "\n";
  y += "  deny_write: " + pick_list(rng, 1) + "\n";
  std::uniform_int_distribution<int> coin(0, 3), lim(0, static_cast<int>(std::size(kLimits)) - 1);
  if (coin(rng) == 0) y += std::string("limits: {") + kLimits[lim(rng)] + "}\n";
  if (coin(rng) == 0) y += "network: {allow_domains: [a.example.com]}\n";
  return y;
}

bool within(const std::string& p, const std::string& r) {
  return p == r || (p.size() > r.size() && p.compare(0, r.size(), r) == 0 && p[r.size()] == '/');
}

}  // namespace

class RandomizedMergeTest : public QObject {
  Q_OBJECT
 private slots:
  void no_random_stack_grants_what_a_deny_forbids() {
    EngineEnv env;
    for (const char* f : {"a/b/c.txt", "d/e.txt", "a/z.txt"}) env.write(env.project + "/" + f, "x");
    env.write(env.home + "/data/x.txt", "x");
    const std::vector<std::string> probes = {env.project + "/a", env.project + "/a/b", env.project + "/a/b/c.txt",
                                             env.project + "/a/z.txt", env.project + "/d/e.txt", env.home + "/data/x.txt"};
    for (unsigned seed = 1; seed <= 150; ++seed) {
      std::mt19937 rng(seed);
      env.user(random_layer(rng, false));
      env.repo(random_layer(rng, true));
      env.write(env.project + "/.paddock/policy.d/1.yaml", random_layer(rng, true));
      env.write(env.root + "/cli.yaml", random_layer(rng, false));
      auto in = env.inputs();
      in.policy_files = {env.root + "/cli.yaml"};
      auto e = evaluate(in);
      QVERIFY2(e.ok(), (std::to_string(seed) + ": " + (e.ok() ? "" : e.error().message)).c_str());
      for (const auto& p : probes) {
        bool denied = false, write_denied = false;
        for (const auto& d : e->ir.fs.deny) denied = denied || within(p, d.path);
        for (const auto& d : e->ir.fs.deny_write) write_denied = write_denied || within(p, d.path);
        const WhyAnswer w = why(*e, p);
        const std::string ctx = "seed " + std::to_string(seed) + " " + p + " -> " + w.access;
        if (denied) QVERIFY2(!w.allowed, ctx.c_str());
        if (write_denied) QVERIFY2(w.access != "write", ctx.c_str());
      }
    }
  }

  void nothing_exceeds_an_immutable_system_layer() {
    EngineEnv env;
    env.system("version: 1\nsecurity: {immutable: true}\nfilesystem: {allow_read: [$PROJECT]}\nlimits: {memory: 2GiB, processes: 100}\n");
    auto base = evaluate(env.inputs());
    QVERIFY(base.ok());
    int refused = 0, accepted = 0;
    for (unsigned seed = 1; seed <= 150; ++seed) {
      std::mt19937 rng(seed);
      env.user(random_layer(rng, false));
      env.repo(random_layer(rng, true));
      auto e = evaluate(env.inputs());
      if (!e.ok()) {
        QCOMPARE(e.error().code, ErrorCode::kPolicyBlocked);
        ++refused;
        continue;
      }
      ++accepted;
      const std::string ctx = "seed " + std::to_string(seed);
      for (const auto& w : e->ir.fs.write_roots)
        QVERIFY2(std::find(base->ir.fs.write_roots.begin(), base->ir.fs.write_roots.end(), w) != base->ir.fs.write_roots.end(), ctx.c_str());
      for (const auto& r : e->ir.fs.read_roots)
        QVERIFY2(std::find(base->ir.fs.read_roots.begin(), base->ir.fs.read_roots.end(), r) != base->ir.fs.read_roots.end(), ctx.c_str());
      QVERIFY2(e->ir.egress.domains == base->ir.egress.domains, ctx.c_str());
      QVERIFY2(*e->ir.resources.memory_bytes <= (std::int64_t(2) << 30), ctx.c_str());
      QVERIFY2(*e->ir.resources.processes <= 100, ctx.c_str());
      for (const auto& d : base->ir.fs.deny) {
        bool kept = false;
        for (const auto& x : e->ir.fs.deny) kept = kept || x.path == d.path;
        QVERIFY2(kept, ctx.c_str());
      }
    }
    QVERIFY(refused > 0);  // the generator does produce forbidden additions
  }
};

QTEST_GUILESS_MAIN(RandomizedMergeTest)
#include "randomized_merge_test.moc"
