// The IR schema (engine/ir_schema.h) is the one list of the IR's fields: every member of every IR
// struct is declared there, and what is derived from it (JSON, canonical bytes, provenance
// keys, capability rows) holds together.
#include <QtTest>

#include <set>

#include "engine/capability.h"
#include "engine/ir.h"
#include "engine/ir_schema.h"
#include "tests/support/member_count.h"

using namespace paddock;
using namespace paddock::ir_schema;

namespace {

using test::member_count;

template <class T>
void expect_declared(const char* name) {
  const std::size_t members = member_count<T>();
  const std::size_t declared = field_count<T>;
  QVERIFY2(members == declared, (std::string(name) + " has " + std::to_string(members) + " members but " +
                                 std::to_string(declared) + " are declared in engine/ir_schema.h: declare the new member "
                                 "there (docs/architecture.md, \"How to add an IR field\")")
                                    .c_str());
}

struct Three {
  int a = 0;
  std::string b;
  std::vector<std::string> c;
};

}  // namespace

class IrSchemaTest : public QObject {
  Q_OBJECT
 private slots:
  void the_member_count_trick_counts_members_of_every_kind() {
    QCOMPARE(member_count<Three>(), std::size_t(3));
    QCOMPARE(member_count<DenyEntry>(), std::size_t(2));
  }

  void every_member_of_every_ir_struct_is_declared_in_the_schema() {
    expect_declared<FrozenIr>("FrozenIr");
    expect_declared<IrMeta>("IrMeta");
    expect_declared<SourceLayer>("SourceLayer");
    expect_declared<IrFs>("IrFs");
    expect_declared<DenyEntry>("DenyEntry");
    expect_declared<WatchedConfig>("WatchedConfig");
    expect_declared<AgentSetting>("AgentSetting");
    expect_declared<AgentStateRoot>("AgentStateRoot");
    expect_declared<IrEgress>("IrEgress");
    expect_declared<IrProcess>("IrProcess");
    expect_declared<IrSecrets>("IrSecrets");
    expect_declared<IrEnv>("IrEnv");
    expect_declared<IrResources>("IrResources");
    expect_declared<IrLifecycle>("IrLifecycle");
  }

  // The JSON keys are the declared ones, section by section.
  void the_json_of_an_ir_has_exactly_the_declared_keys() {
    const nlohmann::json j = to_json(FrozenIr{});
    std::set<std::string> declared, written;
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo&, const auto&) { declared.insert(path); });
    for (const auto& [section, v] : j.items()) {
      if (v.is_object() && section != "extensions")
        for (const auto& [key, x] : v.items()) written.insert(section + "." + key);
      else
        written.insert(section);
    }
    QCOMPARE(written, declared);
  }

  void a_field_path_names_the_section_and_the_key() {
    QCOMPARE(field_path<&IrFs::deny>(), std::string("fs.deny"));
    QCOMPARE(field_path<&IrEgress::domains>(), std::string("egress.domains"));
    QCOMPARE(field_path<&IrSecrets::default_>(), std::string("secrets.default"));
    QCOMPARE(field_path<&FrozenIr::taint>(), std::string("taint"));
  }

  // A field no backend row covers says which field's rows enforce it; that field has rows.
  void a_field_without_rows_of_its_own_names_a_field_that_has_rows() {
    std::set<std::string> paths;
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo&, const auto&) { paths.insert(path); });
    const auto& rows = capability_fields();
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo& info, const auto&) {
      if (info.gate.request != Request::kNever || info.gate.covered_by.empty()) return;
      const std::string by(info.gate.covered_by);
      QVERIFY2(paths.count(by), (path + " is enforced by " + by + ", which is not a declared field").c_str());
      const bool has_rows = std::any_of(rows.begin(), rows.end(), [&](const std::string& r) {
        return r == by || r.rfind(by + "=", 0) == 0 || r.rfind(by + ".", 0) == 0;
      });
      QVERIFY2(has_rows, (path + " is enforced by " + by + ", which has no capability row").c_str());
    });
  }

  // Every capability row comes from a declared field, and every field that requests anything
  // has at least one row.
  void the_capability_rows_are_the_declared_fields() {
    const auto& rows = capability_fields();
    QCOMPARE(std::set<std::string>(rows.begin(), rows.end()).size(), rows.size());
    QCOMPARE(rows.front(), std::string("fs.write_roots"));
    for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo& info, const auto&) {
      const Request r = info.gate.request;
      if (r == Request::kNever || r == Request::kValueUnlessDefault) return;
      const bool has_rows = std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
        return row == path || row.rfind(path + "=", 0) == 0 || row.rfind(path + ".", 0) == 0;
      });
      QVERIFY2(has_rows, path.c_str());
    });
  }
};

QTEST_APPLESS_MAIN(IrSchemaTest)
#include "ir_schema_test.moc"
