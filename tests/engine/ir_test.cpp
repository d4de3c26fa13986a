#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/ir.h"
#include "tests/support/test_paths.h"

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

  // canonical_bytes(FrozenIr) writes the bytes directly (the helper's start-up cost); they must be
  // exactly the json tree's canonical dump, for every field and every kind of string.
  void direct_canonical_bytes_equal_the_json_trees_dump_with_every_field_set() {
    FrozenIr ir;
    ir.meta.schema_hash = "sha256:00";
    ir.meta.source_layers = {{"profile", "builtin:profiles/default.yaml", "sha256:ab"}, {"cli-flags", "cli:flags", ""}};
    ir.meta.project = "/p/\u00e9t\u00e9 \"quoted\" back\\slash";
    ir.meta.home = "/home/\xc3\xa9";
    ir.meta.agent = "codex";
    ir.meta.agent_dir = "/home/u/.codex";
    ir.meta.os = "linux";
    ir.fs.write_roots = {"/p", "/tmp/x"};
    ir.fs.read_roots = {"/usr", "/etc\ttab"};
    ir.fs.deny = {{"/p/.env", PathKind::kFile}, {"/root", PathKind::kDir}, {"/x", PathKind::kAbsent}};
    ir.fs.deny_write = {{"/p/.git/hooks", PathKind::kDir}};
    ir.fs.tmp_isolated = false;
    ir.fs.host_mounted_paths = {"/mnt/a"};
    ir.fs.watched_configs = {{"/home/u/.claude/settings.json", "json", {"hooks", "projects.*.mcpServers"}},
                             {"/home/u/.codex/config.toml", "toml", {}}};
    ir.egress.mode = NetMode::kStrict;
    ir.egress.domains = {"*.example.com", "github.com"};
    ir.egress.strict_ports["github.com"] = {22, 443};
    ir.egress.strict_ports["a.example"] = {};
    ir.egress.cidr = {"10.0.0.0/8"};
    ir.egress.bind_ports = {8080};
    ir.egress.connect_ports = {5432, 6379};
    ir.egress.unix_socket_files = {"/run/x.sock"};
    ir.egress.quotas["github.com"] = 1024;
    ir.egress.quotas["big.example"] = 9007199254740993LL;
    ir.egress.git_ssh = true;
    ir.egress.ask_timeout_secs = -5;
    ir.egress.git_ssh_connect = "/usr/libexec/paddock/paddock-connect";
    ir.egress.debug_resolve["svc.test"] = {"127.0.0.2", "::1"};
    ir.process.privilege_drop = false;
    ir.secrets.brokered_env = {"GITHUB_TOKEN"};
    ir.env.pass_through = {"LANG", "LC_*"};
    ir.env.deny = {"FOO*"};
    ir.env.hard_deny = {"*TOKEN*"};
    ir.env.passed_names = {"LANG"};
    ir.env.set = {{"HOME", "/home/u"}, {"PATH", "/usr/bin\n\x01"}, {"Z\x7f", ""}};
    ir.resources.cpu_seconds = 300;
    ir.resources.memory_bytes = 4LL << 30;
    ir.resources.wall_time_secs = 0;
    ir.extensions["linux"] = {{"landlock", {{"abi", 7}, {"z", nullptr}, {"a", {1, "two", false}}}}};
    ir.warnings = {"w1", "w\u00fc2"};
    ir.taint = {"PADDOCK_DEBUG_X: debug switch set"};
    QCOMPARE(canonical_bytes(ir), canonical_bytes(to_json(ir)));
    QCOMPARE(canonical_bytes(FrozenIr{}), canonical_bytes(to_json(FrozenIr{})));
    // Bytes that are not UTF-8 are encoded the same way on both paths (engine/json_text.h),
    // map keys too, which then sort by their encoded form as a json tree sorts them.
    ir.meta.agent = "\xff";
    ir.fs.deny.push_back({"/p/caf\xe9.pem", PathKind::kFile});
    ir.env.set["b"] = "x";
    ir.env.set["a\xff"] = "/h/\xe9";
    ir.env.set["bytes:z"] = "";
    ir.egress.strict_ports["\xfe.example"] = {1};
    QCOMPARE(canonical_bytes(ir), canonical_bytes(to_json(ir)));
  }

  // A file name that is not UTF-8 (legal on Linux; an agent can plant one) is in the IR as its
  // bytes and reads back byte for byte, with the same hash; valid UTF-8 is written unchanged.
  void an_ir_with_names_that_are_not_utf8_reads_back_byte_for_byte() {
    FrozenIr ir;
    ir.meta.project = "/home/u/caf\xe9";
    ir.fs.write_roots = {"/home/u/caf\xe9"};
    ir.fs.deny = {{"/home/u/caf\xe9/caf\xe9.pem", PathKind::kFile}, {"/home/u/caf\xe9/100%.key", PathKind::kFile}};
    ir.env.set["HOME"] = "/home/\xff";
    ir.env.passed_names = {"LC_\xe9"};
    ir.warnings = {"/home/u/caf\xe9/x does not exist"};
    normalize(ir);
    const std::string bytes = canonical_bytes(ir);
    QVERIFY(bytes.find("\"bytes:/home/u/caf%E9/caf%E9.pem\"") != std::string::npos);
    QVERIFY(bytes.find("\"bytes:/home/u/caf%E9/100%25.key\"") != std::string::npos);
    auto back = ir_from_json(nlohmann::json::parse(bytes));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == ir);
    QCOMPARE(canonical_bytes(*back), bytes);
    QCOMPARE(ir_hash(*back), ir_hash(ir));
  }

  void an_encoding_paddock_never_writes_is_an_error_naming_its_path() {
    auto j = to_json(FrozenIr{});
    j["fs"]["read_roots"] = {"/usr", "bytes:/usr/%e9"};
    auto r = ir_from_json(j);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("fs.read_roots[1]") != std::string::npos, r.error().message.c_str());
    j = to_json(FrozenIr{});
    j["env"]["set"]["bytes:HOME"] = "/h";
    r = ir_from_json(j);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("env.set.bytes:HOME") != std::string::npos, r.error().message.c_str());
  }

  void direct_canonical_bytes_reproduce_every_golden_ir() {
    int seen = 0;
    for (const auto& e : std::filesystem::directory_iterator(paddock::test::test_data() + "/golden/ir")) {
      if (e.path().extension() != ".json") continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const auto j = nlohmann::json::parse(ss.str());  // goldens are indented for review
      auto ir = ir_from_json(j);
      QVERIFY2(ir.ok(), e.path().c_str());
      QCOMPARE(canonical_bytes(*ir), canonical_bytes(j));
      ++seen;
    }
    QVERIFY(seen >= 3);
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
