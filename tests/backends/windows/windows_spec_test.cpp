#include <QtTest>

#include "backends/backend.h"
#include "backends/windows/windows_plan.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::windows_backend;
using namespace paddock::test;

namespace {

FrozenIr win_ir() {
  FrozenIr ir;
  ir.meta.os = "windows";
  ir.meta.project = "C:\\Users\\dev\\proj";
  ir.fs.write_roots = {"C:\\Users\\dev\\proj"};
  ir.fs.read_roots = {"C:\\Tools\\node", "C:\\Users\\dev\\proj\\vendor"};
  ir.fs.deny = {{"C:\\Tools\\node\\secret.key", PathKind::kFile},
                {"C:\\Users\\dev\\.ssh", PathKind::kDir}};
  ir.fs.deny_write = {{"C:\\Tools\\node\\bin", PathKind::kDir}};
  ir.env.set = {{"USERPROFILE", "C:\\Users\\dev"}};
  ir.env.passed_names = {"PATH"};
  ir.resources.memory_bytes = 4294967296;
  ir.resources.processes = 256;
  ir.resources.cpu_seconds = 600;
  ir.resources.wall_time_secs = 7200;
  normalize(ir);
  return ir;
}

}  // namespace

class WindowsSpecTest : public QObject {
  Q_OBJECT
 private slots:
  void the_spec_grants_each_root_and_denies_only_where_exact() {
    auto s = compile_spec(win_ir());
    QVERIFY(s.capabilities.empty());  // no network capability at all
    QCOMPARE(s.grants.size(), std::size_t{3});
    QCOMPARE(s.grants[0], (PathGrant{"C:\\Tools\\node", "read"}));
    QCOMPARE(s.grants[1], (PathGrant{"C:\\Users\\dev\\proj", "write"}));
    QCOMPARE(s.denies.size(), std::size_t{3});
    QCOMPARE(s.denies[0], (PathDeny{"C:\\Tools\\node\\bin", "dir", "write"}));
    QCOMPARE(s.denies[1], (PathDeny{"C:\\Tools\\node\\secret.key", "file", "all"}));
    QVERIFY(s.job.kill_on_job_close);
    QCOMPARE(*s.job.job_memory_bytes, std::int64_t{4294967296});
    QCOMPARE(*s.job.active_processes, std::int64_t{256});
    QVERIFY(backends::check(*compile_windows(win_ir(), nlohmann::json::object())).ok());
  }

  void the_container_name_is_stable_and_follows_the_ir() {
    auto a = compile_spec(win_ir()), b = compile_spec(win_ir());
    QCOMPARE(a.container_name, b.container_name);
    QVERIFY(a.container_name.rfind("paddock.", 0) == 0);
    QCOMPARE(a.container_name.size(), std::size_t{8 + 24});
    FrozenIr other = win_ir();
    other.fs.read_roots.pop_back();
    QVERIFY(compile_spec(other).container_name != a.container_name);
  }

  void the_spec_reads_back_strictly() {
    auto s = compile_spec(win_ir());
    auto back = spec_from_json(to_json(s));
    QVERIFY(back.ok());
    QVERIFY(*back == s);
    auto j = to_json(s);
    j["job"]["breakaway_ok"] = true;
    QVERIFY(!spec_from_json(j).ok());
    j = to_json(s);
    j["grants"][0]["access"] = "full";
    QVERIFY(!spec_from_json(j).ok());
  }

  void a_deny_inside_the_write_root_is_left_out_of_the_spec_and_refused() {
    FrozenIr ir = win_ir();
    ir.fs.deny.push_back({"C:\\Users\\dev\\proj\\.env", PathKind::kFile});
    normalize(ir);
    for (const auto& d : compile_spec(ir).denies) QVERIFY(d.path != "C:\\Users\\dev\\proj\\.env");
    Status s = backends::check(*compile_windows(ir, nlohmann::json::object()));
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("move it out of the write root") != std::string::npos,
             s.error().message.c_str());
  }

  void golden_windows_plan() {
    auto plan = compile_windows(win_ir(), nlohmann::json::object());
    std::string why;
    QVERIFY2(matches_golden("windows_typical.json", to_json(*plan).dump(2) + "\n", why), why.c_str());
  }
};

QTEST_APPLESS_MAIN(WindowsSpecTest)
#include "windows_spec_test.moc"
