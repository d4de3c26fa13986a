// One test per fail-closed case (docs/capabilities.md): each refuses before fork
// with exit 125 and one actionable line.
#include <QtTest>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "engine/capability.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using backends::BackendId;
using paddock::test::minimal_ir;
using paddock::test::probe_abi;

namespace {

nlohmann::json probe_for(BackendId b, const linux_backend::KernelProbe& p = probe_abi(7)) {
  return b == BackendId::kLinux ? linux_backend::to_json(p) : nlohmann::json::object();
}

Status check_of(const FrozenIr& ir, BackendId b, const nlohmann::json& probe) {
  auto plan = backends::compile(ir, b, probe);
  if (!plan.ok()) qFatal("compile failed: %s", plan.error().message.c_str());
  return backends::check(*plan);
}

// The refusal must be kRefused, one line, and contain the expected words.
bool refused_with(const Status& s, const std::string& words, std::string& why) {
  if (s.ok()) { why = "was not refused"; return false; }
  why = s.error().message;
  return s.error().code == ErrorCode::kRefused && s.error().exit_code() == 125 &&
         s.error().message.find('\n') == std::string::npos &&
         s.error().message.find(words) != std::string::npos;
}

}  // namespace

class FailClosedTest : public QObject {
  Q_OBJECT
 private slots:
  void the_minimal_policy_passes_on_every_backend() {
    QVERIFY(check_of(minimal_ir("linux"), BackendId::kLinux, probe_for(BackendId::kLinux)).ok());
    QVERIFY(check_of(minimal_ir("macos"), BackendId::kMacos, probe_for(BackendId::kMacos)).ok());
    auto w = check_of(minimal_ir("windows"), BackendId::kWindows, probe_for(BackendId::kWindows));
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().message.c_str());
  }

  void a_relay_without_network_namespaces_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"example.org"};
    auto p = probe_abi(7);
    p.net_ns = false;
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, linux_backend::to_json(p)),
                          "network namespaces are unavailable", why), why.c_str());
  }

  void domain_modes_are_refused_on_macos_and_windows() {
    for (BackendId b : {BackendId::kMacos, BackendId::kWindows})
      for (NetMode m : {NetMode::kAllowlist, NetMode::kStrict, NetMode::kAsk}) {
        FrozenIr ir = minimal_ir(b == BackendId::kWindows ? "windows" : "macos");
        ir.egress.mode = m;
        ir.egress.domains = {"example.org"};
        std::string why;
        QVERIFY2(refused_with(check_of(ir, b, probe_for(b)),
                              std::string("egress.mode=") + to_string(m), why), why.c_str());
        QVERIFY2(why.find("--net off") != std::string::npos, why.c_str());
      }
  }

  void allow_cidr_in_a_domain_mode_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.egress.mode = NetMode::kStrict;
    ir.egress.domains = {"example.org"};
    ir.egress.strict_ports["example.org"] = {443};
    ir.egress.cidr = {"0.0.0.0/0"};
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)),
                          "allow_cidr cannot be combined with net mode strict", why), why.c_str());
  }

  void allow_cidr_without_ip_level_enforcement_is_refused_on_every_backend() {
    for (BackendId b : backends::all_backends()) {
      FrozenIr ir = minimal_ir(b == BackendId::kWindows ? "windows" : "linux");
      ir.egress.cidr = {"10.0.0.0/8"};
      std::string why;
      QVERIFY2(refused_with(check_of(ir, b, probe_for(b)), "egress.cidr", why), why.c_str());
    }
  }

  void a_kernel_without_landlock_is_refused() {
    std::string why;
    QVERIFY2(refused_with(check_of(minimal_ir(), BackendId::kLinux, probe_for(BackendId::kLinux, probe_abi(0))),
                          "Landlock is unavailable", why), why.c_str());
  }

  void a_landlock_abi_too_old_for_a_requested_field_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.egress.bind_ports = {8000};
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux, probe_abi(3))),
                          "egress.bind_ports", why), why.c_str());
    QVERIFY(why.find("ABI 4") != std::string::npos && why.find("ABI 3") != std::string::npos);
  }

  void a_resolve_budget_exceeded_is_refused_on_every_backend() {
    for (BackendId b : backends::all_backends()) {
      FrozenIr ir = minimal_ir(b == BackendId::kWindows ? "windows" : "linux");
      ir.warnings = {"resolve_budget_exceeded: $PROJECT/**/*.key matched more than 50000 paths"};
      std::string why;
      QVERIFY2(refused_with(check_of(ir, b, probe_for(b)), "exceeded its budget", why), why.c_str());
    }
  }

  // Without a cgroup, memory falls back to RLIMIT_DATA; where the kernel does not enforce it
  // (older than 4.7, or booted with ignore_rlimit_data) nothing is left, so it is refused.
  void a_memory_limit_without_a_cgroup_or_rlimit_data_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.resources.memory_bytes = 1 << 30;
    auto p = probe_abi(7);
    p.cgroup = {};
    QVERIFY(check_of(ir, BackendId::kLinux, linux_backend::to_json(p)).ok());
    p.rlimit_data = false;
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, linux_backend::to_json(p)),
                          "limit memory_bytes has no mechanism on this machine", why), why.c_str());
    QVERIFY2(why.find("ignore_rlimit_data") != std::string::npos, why.c_str());
  }

  // Root's processes are exempt from RLIMIT_NPROC: without the pids controller, refused.
  void a_process_limit_as_root_without_a_pids_cgroup_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.resources.processes = 64;
    auto p = probe_abi(7);
    p.cgroup.v2_controllers = {"memory"};  // pids not delegated
    QVERIFY(check_of(ir, BackendId::kLinux, linux_backend::to_json(p)).ok());  // a user: RLIMIT_NPROC
    p.unprivileged = false;
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, linux_backend::to_json(p)),
                          "limit processes has no mechanism", why), why.c_str());
    QVERIFY2(why.find("root") != std::string::npos, why.c_str());
  }

  void limits_without_a_mechanism_on_macos_and_windows_are_refused() {
    FrozenIr mac = minimal_ir("macos");
    mac.resources.memory_bytes = 1 << 30;
    std::string why;
    QVERIFY2(refused_with(check_of(mac, BackendId::kMacos, nlohmann::json::object()),
                          "limit memory_bytes", why), why.c_str());
    FrozenIr win = minimal_ir("windows");
    win.resources.open_files = 100;
    QVERIFY2(refused_with(check_of(win, BackendId::kWindows, nlohmann::json::object()),
                          "limit open_files", why), why.c_str());
  }

  void a_deny_inside_a_write_root_is_refused_on_windows() {
    FrozenIr ir = minimal_ir("windows");
    ir.fs.deny = {{"c:\\users\\DEV\\proj\\.env", PathKind::kFile}};  // case and separators differ
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kWindows, nlohmann::json::object()),
                          "fs.deny.inside_write_root", why), why.c_str());
  }

  void a_host_mounted_path_needs_a_host_component_and_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.fs.host_mounted_paths = {"/mnt/data"};
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)),
                          "fs.host_mounted_paths", why), why.c_str());
  }

  void missing_user_or_pid_namespaces_are_refused() {
    auto p = probe_abi(7);
    p.user_ns = false;
    std::string why;
    QVERIFY2(refused_with(check_of(minimal_ir(), BackendId::kLinux, linux_backend::to_json(p)),
                          "user or mount namespaces", why), why.c_str());
    p = probe_abi(7);
    p.pid_ns = false;
    QVERIFY2(refused_with(check_of(minimal_ir(), BackendId::kLinux, linux_backend::to_json(p)),
                          "PID namespaces", why), why.c_str());
  }

  void git_over_ssh_without_the_relay_or_without_paddock_connect_is_refused() {
    FrozenIr ir = minimal_ir();
    ir.egress.git_ssh = true;
    ir.egress.git_ssh_connect = "/usr/libexec/paddock/paddock-connect";
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)), "--git-ssh", why),
             why.c_str());
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"github.com"};
    QVERIFY2(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)).ok(), "git_ssh with a relay runs");
    ir.egress.git_ssh_connect.clear();
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)), "paddock-connect", why),
             why.c_str());
  }

  void the_resolver_seam_is_refused_by_the_macos_and_windows_compilers() {
    for (auto [os, id] : {std::pair{"macos", BackendId::kMacos}, std::pair{"windows", BackendId::kWindows}}) {
      FrozenIr ir = minimal_ir(os);
      ir.egress.debug_resolve["api.example.test"] = {"127.0.0.1"};
      std::string why;
      QVERIFY2(refused_with(check_of(ir, id, probe_for(id)), "egress.debug_resolve", why), why.c_str());
    }
    // Linux runs it (tainted by the engine, which alone can set it).
    FrozenIr ir = minimal_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.debug_resolve["api.example.test"] = {"127.0.0.1"};
    QVERIFY(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)).ok());
  }

  void an_ir_value_no_matrix_knows_is_refused_not_ignored() {
    FrozenIr ir = minimal_ir();
    ir.process.exec_scope = "anything_goes";
    std::string why;
    QVERIFY2(refused_with(check_of(ir, BackendId::kLinux, probe_for(BackendId::kLinux)),
                          "process.exec_scope=anything_goes", why), why.c_str());
  }

  void a_plan_with_its_refusals_erased_is_still_refused_from_its_capability_vector() {
    FrozenIr ir = minimal_ir("macos");
    ir.egress.mode = NetMode::kAsk;
    auto plan = backends::compile(ir, BackendId::kMacos, nlohmann::json::object());
    plan->refusals.clear();
    std::string why;
    QVERIFY2(refused_with(backends::check(*plan), "egress.mode=ask", why), why.c_str());
  }

  void a_partial_row_without_a_loss_is_an_invalid_plan() {
    auto plan = backends::compile(minimal_ir(), BackendId::kLinux, probe_for(BackendId::kLinux));
    plan->capability_vector[0].support = Support::kPartial;
    plan->capability_vector[0].loss = "";
    Status s = backends::check(*plan);
    QVERIFY(!s.ok());
    QCOMPARE(s.error().code, ErrorCode::kInternal);
  }

  void an_unknown_backend_name_is_bad_input() {
    auto r = backends::backend_from_string("freebsd");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kBadInput);
  }
};

QTEST_APPLESS_MAIN(FailClosedTest)
#include "fail_closed_test.moc"
