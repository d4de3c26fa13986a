#include <QtTest>

#include <algorithm>
#include <cctype>
#include <set>

#include "backends/backend.h"
#include "backends/capability_doc.h"
#include "backends/linux/linux_plan.h"
#include "engine/capability.h"
#include "engine/ir_schema.h"
#include "tests/backends/fixtures.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using backends::BackendId;
using namespace paddock::test;

namespace {

std::vector<linux_backend::KernelProbe> probes() {
  std::vector<linux_backend::KernelProbe> out;
  for (int abi = 0; abi <= 7; ++abi) out.push_back(probe_abi(abi));
  auto p = probe_abi(7);
  p.cgroup = {};
  out.push_back(p);
  p = probe_abi(2);
  p.net_ns = false;
  p.pid_ns = false;
  out.push_back(p);
  // Memory and process limits: root, old kernels, no RLIMIT_DATA, one controller per hierarchy.
  p = probe_abi(7);
  p.cgroup = {};
  p.unprivileged = false;
  out.push_back(p);
  p.unprivileged = true;
  p.kernel_release = "5.13.0";
  p.rlimit_data = false;
  out.push_back(p);
  p = probe_abi(7);
  p.cgroup.v2_controllers = {"memory"};
  p.cgroup.v1_writable = true;
  p.cgroup.v1_controllers = {"pids"};
  out.push_back(p);
  p.unprivileged = false;
  out.push_back(p);
  return out;
}

std::vector<FrozenIr> irs() {
  std::vector<FrozenIr> out = {typical_ir(), relay_ir(), minimal_ir("linux"), minimal_ir("windows")};
  for (int which = 0; which < 2; ++which) {  // one limit without the other
    FrozenIr one = typical_ir();
    (which == 0 ? one.resources.memory_bytes : one.resources.processes).reset();
    out.push_back(one);
  }
  FrozenIr x = typical_ir();
  x.fs.deny.push_back({"/home/dev/proj/new.pem", PathKind::kAbsent});
  x.fs.deny_write.push_back({"/home/dev/proj/Makefile.local", PathKind::kAbsent});
  x.fs.host_mounted_paths = {"/mnt"};
  x.fs.watched_configs = {{"/home/dev/.claude/settings.json", "json", {"hooks"}}};
  x.egress.mode = NetMode::kStrict;
  x.egress.strict_ports["github.com"] = {443};
  x.egress.cidr = {"10.0.0.0/8"};
  x.egress.bind_ports = {8000};
  x.egress.connect_ports = {5432};
  x.egress.unix_socket_files = {"/run/user/1000/podman.sock"};
  x.egress.quotas["github.com"] = 1000;
  x.egress.git_ssh = true;
  x.egress.git_ssh_connect = "/usr/libexec/paddock/paddock-connect";
  x.egress.debug_resolve["api.example.test"] = {"127.0.0.1"};
  x.secrets.brokered_env = {"GITHUB_TOKEN"};
  x.extensions["linux"] = {{"seccomp_profile", "x"}};
  normalize(x);
  out.push_back(x);
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

class CapabilityMatrixTest : public QObject {
  Q_OBJECT
 private slots:
  void every_backend_describes_every_field_in_the_same_order() {
    for (BackendId b : backends::all_backends()) {
      auto m = backends::capability_matrix(b, linux_backend::to_json(probe_abi(7)));
      std::vector<std::string> fields;
      for (const auto& r : m) fields.push_back(r.field);
      for (std::size_t i = 0; i < std::max(fields.size(), capability_fields().size()); ++i) {
        const std::string got = i < fields.size() ? fields[i] : "<none>";
        const std::string want = i < capability_fields().size() ? capability_fields()[i] : "<none>";
        QVERIFY2(got == want, (std::string(backends::to_string(b)) + " row " + std::to_string(i) +
                               ": " + got + " instead of " + want).c_str());
      }
    }
  }

  // The rows come from the IR schema (engine/ir_schema.h): a field declared there that no
  // backend describes fails here, naming the field and the backend.
  void every_row_a_declared_field_asks_for_has_a_row_in_every_backend_matrix() {
    using namespace paddock::ir_schema;
    const auto& rows = capability_fields();
    for (const auto& p : probes())
      for (BackendId b : backends::all_backends()) {
        std::set<std::string> described;
        for (const auto& r : backends::capability_matrix(b, linux_backend::to_json(p))) described.insert(r.field);
        for_each_ir_field(FrozenIr{}, [&](const std::string& path, const FieldInfo&, const auto&) {
          for (const std::string& row : rows)
            if (row == path || row.rfind(path + "=", 0) == 0 || row.rfind(path + ".", 0) == 0)
              QVERIFY2(described.count(row), (std::string(backends::to_string(b)) + " has no row " + row +
                                              " for the declared field " + path).c_str());
        });
      }
  }

  // What an IR with every field set asks for is rows the schema declares: a classified field
  // without its rule in capability.cpp would be asked for under its bare path.
  void an_ir_with_every_field_set_asks_only_for_declared_rows() {
    const auto& rows = capability_fields();
    for (const FrozenIr& ir : irs())
      for (const std::string& f : requested_fields(ir))
        QVERIFY2(std::find(rows.begin(), rows.end(), f) != rows.end(), f.c_str());
  }

  void every_row_is_valid_and_no_row_says_best_effort() {
    for (const auto& p : probes())
      for (BackendId b : backends::all_backends())
        for (const auto& r : backends::capability_matrix(b, linux_backend::to_json(p))) {
          Status s = validate_row(r);
          QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
          QVERIFY2(lower(r.loss + r.mechanism).find("best effort") == std::string::npos &&
                       lower(r.loss + r.mechanism).find("best-effort") == std::string::npos,
                   r.field.c_str());
        }
  }

  void no_plan_reports_a_field_differently_from_its_own_matrix() {
    for (const auto& p : probes())
      for (const FrozenIr& ir : irs())
        for (BackendId b : backends::all_backends()) {
          const auto probe = b == BackendId::kLinux ? linux_backend::to_json(p) : nlohmann::json::object();
          auto plan = backends::compile(ir, b, probe);
          QVERIFY(plan.ok());
          auto matrix = backends::capability_matrix(b, probe);
          QVERIFY(!plan->capability_vector.empty());
          for (const auto& row : plan->capability_vector) {
            auto it = std::find_if(matrix.begin(), matrix.end(),
                                   [&](const FieldCapability& c) { return c.field == row.field; });
            QVERIFY2(it != matrix.end(), row.field.c_str());
            QVERIFY2(*it == row, (std::string(backends::to_string(b)) + " " + row.field).c_str());
          }
        }
  }

  // The plan's limits step (what the helper applies) and the capability row (what explain, plan,
  // doctor and the attestation say) name the same mechanism for every probe and IR.
  void the_limits_step_and_the_capability_rows_name_the_same_mechanism() {
    for (const auto& p : probes())
      for (const FrozenIr& ir : irs()) {
        if (ir.meta.os != "linux") continue;
        auto plan = backends::compile(ir, BackendId::kLinux, linux_backend::to_json(p));
        QVERIFY(plan.ok());
        nlohmann::json limits;
        nlohmann::json rlimits;
        for (const auto& s : plan->steps) {
          if (s["step"] == "limits") limits = s["value"];
          if (s["step"] == "rlimits") rlimits = s["value"];
        }
        QVERIFY(limits.is_array());
        for (const auto& l : limits) {
          const std::string field = "resources." + l["limit"].get<std::string>();
          const std::string via = l["mechanism"].get<std::string>();
          auto row = std::find_if(plan->capability_vector.begin(), plan->capability_vector.end(),
                                  [&](const FieldCapability& c) { return c.field == field; });
          QVERIFY2(row != plan->capability_vector.end(), field.c_str());
          const std::string what = field + " via " + via + ": " + row->mechanism + " / " + row->loss;
          bool in_rlimits = false;
          for (const auto& r : rlimits)
            in_rlimits |= r["resource"] == (field == "resources.memory_bytes" ? "data" : "nproc");
          if (via == "none") {
            QVERIFY2(row->support == Support::kUnsupported && !in_rlimits, what.c_str());
          } else if (via.rfind("cgroup_", 0) == 0) {
            QVERIFY2(row->support == Support::kExact && !in_rlimits, what.c_str());
            QVERIFY2(row->mechanism.find("cgroup " + via.substr(7, 2)) == 0, what.c_str());
          } else {
            QVERIFY2(in_rlimits, what.c_str());
            QVERIFY2(row->mechanism.find(via == "rlimit_data" ? "RLIMIT_DATA" : "RLIMIT_NPROC") == 0,
                     what.c_str());
          }
        }
      }
  }

  void the_capability_vector_lists_exactly_the_fields_the_ir_requests() {
    auto plan = backends::compile(typical_ir(), BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    std::vector<std::string> fields;
    for (const auto& r : plan->capability_vector) fields.push_back(r.field);
    QCOMPARE(fields, requested_fields(typical_ir()));
    auto has = [&](const char* f) { return std::find(fields.begin(), fields.end(), f) != fields.end(); };
    QVERIFY(has("fs.deny.inside_write_root"));   // proj/.env
    QVERIFY(has("fs.deny.inside_read_root"));    // /usr/share/secret.key
    QVERIFY(has("fs.deny.outside_grants"));      // ~/.ssh
    QVERIFY(has("resources.memory_bytes"));
    QVERIFY(!has("egress.cidr"));
    QVERIFY(!has("egress.mode=allowlist"));
  }

  void losses_are_the_partial_rows_in_words() {
    auto plan = backends::compile(typical_ir(), BackendId::kMacos, nlohmann::json::object());
    std::size_t partial = 0;
    for (const auto& r : plan->capability_vector) partial += r.support == Support::kPartial;
    QCOMPARE(plan->losses.size(), partial);
    QVERIFY(std::is_sorted(plan->losses.begin(), plan->losses.end()));
  }

  void the_committed_capabilities_document_is_up_to_date() {
    const std::string committed = read_text(paddock::test::source_dir() + "/docs/capabilities.md");
    const std::string fresh = backends::render_capabilities_markdown();
    QVERIFY2(committed == fresh,
             "docs/capabilities.md is stale: run `cmake --build <build> --target capabilities_doc`");
    QVERIFY(fresh.find("## Linux") != std::string::npos);
    QVERIFY(fresh.find("## macOS") != std::string::npos);
    QVERIFY(fresh.find("## Windows") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(CapabilityMatrixTest)
#include "capability_matrix_test.moc"
