// The policy language's declaration (engine/layer_schema.h) is the one list of the layer keys:
// every member of Layer that holds a value is declared there, and what is derived from it (the
// parser's allowed keys, what a layer adds, the lockdown, the limits, the documentation) holds
// together.
#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>

#include "engine/layer.h"
#include "engine/layer_schema.h"
#include "engine/limits.h"
#include "tests/support/member_count.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using namespace paddock::layer_schema;

namespace {

template <class C>
std::size_t declared_members() {
  std::set<std::string> names;  // a member pointer's identity, written out
  for_each_key([&](const auto& k) {
    using Part = typename std::remove_cvref_t<decltype(k)>::Part;
    if constexpr (std::is_same_v<Part, C>) {
      names.insert(k.info.section == "limits" ? "limits" : k.info.path());
      if (k.at) names.insert(k.info.path() + "@");
    }
  });
  return names.size();
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Layer parsed(const std::string& yaml, const char* tier = kTierUser) {
  auto r = parse_layer(yaml, tier, "/u/policy.yaml");
  if (!r.ok()) qFatal("%s", r.error().message.c_str());
  return *r;
}

constexpr std::string_view kBegin = "<!-- BEGIN policy keys:";
constexpr std::string_view kEnd = "<!-- END policy keys -->";

}  // namespace

class LayerSchemaTest : public QObject {
  Q_OBJECT
 private slots:
  void every_member_of_a_layer_is_declared_or_named_as_bookkeeping() {
    const auto check = [](const char* name, std::size_t members, std::size_t declared, std::size_t bookkeeping) {
      QVERIFY2(members == declared + bookkeeping,
               (std::string(name) + " has " + std::to_string(members) + " members, " + std::to_string(declared) +
                " hold a key declared in engine/layer_schema.h and " + std::to_string(bookkeeping) +
                " are bookkeeping: declare the new member's key there (docs/architecture.md, \"How to add a policy key\")")
                   .c_str());
    };
    check("Layer", test::member_count<Layer>(), declared_members<Layer>(), kLayerBookkeeping);
    check("Layer::When", test::member_count<Layer::When>(), declared_members<Layer::When>(), 0);
    check("Layer::Agent", test::member_count<Layer::Agent>(), declared_members<Layer::Agent>(), kAgentBookkeeping);
  }

  void every_section_lists_its_keys_in_declaration_order() {
    QCOMPARE(keys_of("security"), (std::vector<std::string>{"immutable", "require_signed"}));
    QCOMPARE(keys_of("limits").size(), std::size_t(kLimitCount));
    for (const auto& s : kSections) QVERIFY2(!keys_of(s.name).empty(), std::string(s.name).c_str());
  }

  // Each limit's YAML key, `--limits` key and IR field come from its one declaration.
  void the_limits_are_declared_once_for_yaml_the_command_line_and_the_ir() {
    QCOMPARE(std::string(limit_yaml_key(LimitKey::kMemory)), std::string("memory"));
    QCOMPARE(std::string(limit_cli_key(LimitKey::kMemory)), std::string("mem"));
    QCOMPARE(limit_ir_path(LimitKey::kMemory), std::string("resources.memory_bytes"));
    QVERIFY(limit_ir_field(LimitKey::kWallTime) == &IrResources::wall_time_secs);
    std::set<std::string> yaml, cli, ir;
    for (int i = 0; i < kLimitCount; ++i) {
      const auto k = static_cast<LimitKey>(i);
      yaml.insert(limit_yaml_key(k));
      cli.insert(std::string(limit_cli_key(k)));
      ir.insert(limit_ir_path(k));
      QVERIFY(limit_ir_field(k) != nullptr);
    }
    QCOMPARE(yaml.size(), std::size_t(kLimitCount));
    QCOMPARE(cli.size(), std::size_t(kLimitCount));
    QCOMPARE(ir.size(), std::size_t(kLimitCount));
    auto spec = parse_limits_spec("wall=2h,mem=1GiB");
    QVERIFY(spec.ok());
    QCOMPARE(*(*spec)[static_cast<int>(LimitKey::kWallTime)], std::int64_t(7200));
  }

  // What a layer adds is every policy key it sets, by its declared path.
  void a_layer_adds_every_policy_key_it_sets() {
    const Layer l = parsed(
        "version: 1\nmetadata: {name: n}\nsecurity: {immutable: true}\n"
        "filesystem: {allow_write: [/w], tmpfs_tmp: false}\n"
        "network: {mode: off, strict_ports: {a.com: [443]}, quotas: {b.com: 1k}, publish: [3000], loopback_bind: false}\n"
        "limits: {memory: 1GiB}\n");
    const auto a = layer_adds(l);
    QCOMPARE(a.dump(), std::string(R"({"filesystem.allow_write":["/w"],"filesystem.tmpfs_tmp":false,"limits.memory":1073741824,)"
                                   R"("network.loopback_bind":false,"network.mode":"off","network.publish":[3000],)"
                                   R"("network.quotas":{"b.com":1000},"network.strict_ports":{"a.com":[443]}})"));
  }

  // Every key with a lock rule is refused under the lockdown, at the place it was written, and
  // what only narrows is not.
  void the_lockdown_refuses_each_locked_key_where_it_was_written() {
    const Layer sys = parsed("version: 1\nsecurity: {immutable: true}\nlimits: {memory: 1GiB}\nnetwork: {quotas: {a.com: 1k}}\n",
                             kTierSystem);
    const struct {
      const char* yaml;
      const char* what;
      int line;
    } cases[] = {
        {"filesystem:\n  allow_write: [/w]\n", "add write paths", 3},
        {"filesystem:\n  allow_read: [/r]\n", "add read paths", 3},
        {"filesystem:\n  unprotect: [/u]\n", "lift the write protection of files your tools execute", 3},
        {"filesystem:\n  tmpfs_tmp: false\n", "turn off the private /tmp", 3},
        {"security:\n  immutable: false\n", "lift the lockdown", 3},
        {"network:\n  mode: allowlist\n", "change the network mode", 3},
        {"network:\n  allow_domains: [a.com]\n", "add domains", 3},
        {"network:\n  presets: [npm]\n", "add domains", 3},
        {"network:\n  allow_cidr: [10.0.0.0/8]\n", "add CIDR ranges", 3},
        {"network:\n  strict_ports: {a.com: [443]}\n", "add domains or ports", 3},
        {"network:\n  publish: [3000]\n", "publish host ports", 3},
        {"network:\n  quotas: {a.com: 2k}\n", "raise a quota above the system's", 3},
        {"unix_sockets:\n  allow: [/s]\n", "allow unix sockets", 3},
        {"environment:\n  pass_through: [X]\n", "add pass-through environment", 3},
        {"environment:\n  agent_credentials: true\n", "pass agent credentials", 3},
        {"limits:\n  memory: 2GiB\n", "raise a limit above the system's", 3},
        {"sandbox:\n  linux_tier: landlock\n", "choose the landlock tier (sandbox.linux_tier: landlock)", 3},
    };
    for (const auto& c : cases) {
      const auto v = lockdown_violation(parsed(std::string("version: 1\n") + c.yaml), sys);
      QVERIFY2(v.has_value(), c.yaml);
      QCOMPARE(std::string(v->what), std::string(c.what));
      QCOMPARE(v->at.line, c.line);
    }
    for (const char* narrows : {"filesystem: {deny: [/d], deny_write: [/d], tmpfs_tmp: true, protect_agent_config: true}\n",
                                "network: {mode: off, loopback_bind: false, quotas: {a.com: 1}}\n",
                                "limits: {memory: 1k, processes: 10}\n", "environment: {deny: [X], agent_credentials: false}\n",
                                "secrets: {brokered_env: [T]}\n", "sandbox: {linux_tier: namespaces}\n"})
      QVERIFY2(!lockdown_violation(parsed(std::string("version: 1\n") + narrows), sys), narrows);
  }

  void docs_policy_layers_md_has_the_declared_key_table() {
    // Regenerate with PADDOCK_UPDATE_DOCS=1 after changing a declaration, and review the diff.
    const std::string path = paddock::test::source_dir() + "/docs/policy-layers.md";
    std::string doc = read_text(path);
    const auto begin = doc.find(kBegin);
    const auto end = doc.find(kEnd);
    QVERIFY2(begin != std::string::npos && end != std::string::npos && begin < end,
             "docs/policy-layers.md has lost the markers of its generated key table");
    const auto body = doc.find('\n', begin) + 1;
    const std::string fresh = render_policy_keys_markdown();
    if (std::getenv("PADDOCK_UPDATE_DOCS")) {
      doc.replace(body, end - body, fresh);
      std::ofstream(path, std::ios::binary) << doc;
    }
    QVERIFY2(doc.substr(body, end - body) == fresh,
             "docs/policy-layers.md's key table is stale: rerun this test with PADDOCK_UPDATE_DOCS=1");
    std::size_t rows = 0;
    for_each_key([&](const auto& k) { rows += fresh.find("| `" + k.info.path() + "` |") != std::string::npos; });
    std::size_t keys = 0;
    for_each_key([&](const auto&) { ++keys; });
    QCOMPARE(rows, keys);
  }
};

QTEST_APPLESS_MAIN(LayerSchemaTest)
#include "layer_schema_test.moc"
