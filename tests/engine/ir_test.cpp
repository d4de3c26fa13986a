#include <QtTest>

#include "engine/ir.h"

using namespace paddock;

class IrTest : public QObject {
  Q_OBJECT
 private slots:
  void a_frozen_ir_reads_back_equal_to_itself() {
    FrozenIr ir;
    ir.meta.project = "/p";
    ir.fs.write_roots = {"/p", "/tmp/x"};
    ir.fs.deny = {{"/p/.env", PathKind::kFile}};
    ir.egress.mode = NetMode::kStrict;
    ir.egress.strict_ports["github.com"] = {22, 443};
    ir.resources.memory_bytes = 1024;
    auto back = ir_from_json(to_json(ir));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == ir);
    QCOMPARE(ir_hash(*back), ir_hash(ir));
  }

  void an_unknown_field_anywhere_is_an_error_naming_its_path() {
    auto j = to_json(FrozenIr{});
    j["fs"]["allow_everything"] = true;
    auto r = ir_from_json(j);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kBadInput);
    QVERIFY2(r.error().message.find("fs.allow_everything") != std::string::npos, r.error().message.c_str());
  }

  void a_missing_field_is_an_error() {
    auto j = to_json(FrozenIr{});
    j["process"].erase("no_new_privs");
    auto r = ir_from_json(j);
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("process.no_new_privs") != std::string::npos);
  }

  void an_unknown_extension_is_an_error() {
    auto j = to_json(FrozenIr{});
    j["extensions"]["freebsd"] = nlohmann::json::object();
    QVERIFY(!ir_from_json(j).ok());
  }

  void canonical_bytes_have_sorted_keys_and_no_whitespace_or_newline() {
    FrozenIr ir;
    ir.env.set["PATH"] = "/usr/bin\n";
    std::string bytes = canonical_bytes(ir);
    QVERIFY(bytes.find('\n') == std::string::npos);
    QVERIFY(bytes.find(": ") == std::string::npos);
    QVERIFY(bytes.rfind("{\"egress\":", 0) == 0);  // "egress" sorts first
  }

  void the_hash_is_sha256_of_the_canonical_bytes() {
    // Known vector: SHA-256("abc").
    QCOMPARE(QString::fromStdString(sha256_hex("abc")),
             QString("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    FrozenIr ir;
    QCOMPARE(ir_hash(ir), sha256_hex(canonical_bytes(ir)));
  }

  void normalize_sorts_and_deduplicates_every_list() {
    FrozenIr a, b;
    a.fs.read_roots = {"/b", "/a", "/b"};
    b.fs.read_roots = {"/a", "/b"};
    a.egress.domains = {"y.com", "x.com"};
    b.egress.domains = {"x.com", "y.com"};
    normalize(a);
    QCOMPARE(canonical_bytes(a), canonical_bytes(b));
  }

  void a_negative_limit_is_rejected() {
    auto j = to_json(FrozenIr{});
    j["resources"]["processes"] = -1;
    QVERIFY(!ir_from_json(j).ok());
  }
};

QTEST_APPLESS_MAIN(IrTest)
#include "ir_test.moc"
