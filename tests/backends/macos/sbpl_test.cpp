#include <QtTest>

#include "backends/backend.h"
#include "backends/macos/macos_plan.h"
#include "tests/backends/fixtures.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using namespace paddock::macos_backend;
using namespace paddock::test;

namespace {

FrozenIr mac_ir() {
  FrozenIr ir = typical_ir();
  ir.meta.os = "macos";
  ir.meta.project = "/Users/dev/proj";
  ir.fs.write_roots = {"/Users/dev/proj"};
  ir.fs.read_roots = {"/Users/dev/proj/vendor", "/opt/homebrew"};
  ir.fs.deny = {{"/Users/dev/.ssh", PathKind::kDir}, {"/Users/dev/proj/.env", PathKind::kFile},
                {"/Users/dev/proj/new.pem", PathKind::kAbsent}};
  ir.fs.deny_write = {{"/Users/dev/proj/.git/hooks", PathKind::kDir}};
  ir.resources.memory_bytes.reset();
  normalize(ir);
  return ir;
}

std::size_t pos(const std::string& text, const std::string& what) {
  auto p = text.find(what);
  if (p == std::string::npos) qFatal("missing in profile: %s\n%s", what.c_str(), text.c_str());
  return p;
}

}  // namespace

class SbplTest : public QObject {
  Q_OBJECT
 private slots:
  void the_profile_starts_from_the_base_file_and_denies_by_default() {
    auto sb = compile_sbpl(mac_ir());
    QVERIFY(sb.text.rfind(base_profile(), 0) == 0);
    const std::string on_disk = read_text(paddock::test::source_dir() + "/resources/macos/paddock-base.sb");
    QCOMPARE(base_profile(), on_disk);
    pos(sb.text, "(deny default)");
    pos(sb.text, "(deny network*)");
    pos(sb.text, "(allow network-outbound (remote unix-socket))");
  }

  void user_paths_never_appear_in_the_profile_text() {
    auto sb = compile_sbpl(mac_ir());
    for (const auto& [name, value] : sb.params) {
      QVERIFY2(sb.text.find(value) == std::string::npos, value.c_str());
      QVERIFY2(sb.text.find("(param \"" + name + "\")") != std::string::npos, name.c_str());
    }
    QCOMPARE(sb.params.at("WRITABLE_ROOT_0"), std::string("/Users/dev/proj"));
    QCOMPARE(sb.params.at("READABLE_ROOT_0"), std::string("/Users/dev/proj/vendor"));
    QCOMPARE(sb.params.at("READABLE_ROOT_1"), std::string("/opt/homebrew"));
  }

  void a_path_with_quotes_or_parentheses_cannot_inject_rules() {
    FrozenIr ir = mac_ir();
    ir.fs.write_roots = {"/Users/dev/a\") (allow default) (\""};
    auto sb = compile_sbpl(ir);
    QVERIFY(sb.text.find("(allow default)") == std::string::npos);
  }

  void denies_come_after_every_grant_so_the_last_match_wins() {
    auto text = compile_sbpl(mac_ir()).text;
    const auto last_allow = text.rfind("(allow file-read* (subpath (param \"READABLE_ROOT");
    QVERIFY(pos(text, "(deny file-write* (subpath (param \"DENY_WRITE_0\")))") > last_allow);
    QVERIFY(pos(text, "(deny file-read* file-write* (literal (param \"DENY_1\")))") > last_allow);
    // A path absent at resolve time is denied as a subpath: it stays denied when created.
    pos(text, "(deny file-read* file-write* (subpath (param \"DENY_2\")))");
  }

  void only_net_off_is_accepted() {
    FrozenIr ir = mac_ir();
    auto off = backends::compile(ir, backends::BackendId::kMacos, nlohmann::json::object());
    Status s = backends::check(*off);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    ir.egress.mode = NetMode::kAllowlist;
    auto on = backends::compile(ir, backends::BackendId::kMacos, nlohmann::json::object());
    QVERIFY(!backends::check(*on).ok());
  }

  void golden_macos_plan() {
    auto plan = backends::compile(mac_ir(), backends::BackendId::kMacos, nlohmann::json::object());
    std::string why;
    QVERIFY2(matches_golden("macos_typical.json", to_json(*plan).dump(2) + "\n", why), why.c_str());
    QVERIFY2(matches_golden("macos_typical.sb", compile_sbpl(mac_ir()).text, why), why.c_str());
  }
};

QTEST_APPLESS_MAIN(SbplTest)
#include "sbpl_test.moc"
