// The OCI plan compiler (backends/oci): the same IR as every backend, its config.json golden, the
// Linux helper's seccomp table and view, and the fail-closed rows. Pure: no runtime is started.
#include <QtTest>

#include <algorithm>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::test;
using nlohmann::json;

namespace {

FrozenIr oci_ir() {
  FrozenIr ir = typical_ir();
  ir.resources.wall_time_secs.reset();  // no runtime keeps a wall-clock limit (a loss, below)
  ir.fs.deny_write.push_back({"/home/dev/proj/.git/config", PathKind::kFile});
  ir.fs.deny_write.push_back({"/home/dev/proj/.vscode", PathKind::kAbsentDir});
  normalize(ir);
  return ir;
}

json rootless() {
  oci_backend::OciFacts f;
  f.runtime_cgroups = false;
  return oci_backend::to_json(f);
}

json config_of(const BackendPlan& plan) { return plan.steps.at(0).at("value"); }

std::string refusal(const FrozenIr& ir) {
  auto plan = backends::compile(ir, backends::BackendId::kOci, json::object());
  if (!plan.ok()) return "compile failed: " + plan.error().message;
  Status s = backends::check(*plan);
  return s.ok() ? "" : s.error().message;
}

}  // namespace

class OciPlanTest : public QObject {
  Q_OBJECT
 private slots:
  void golden_oci_plan() {
    auto plan = backends::compile(oci_ir(), backends::BackendId::kOci, rootless());
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    QVERIFY(backends::check(*plan).ok());
    std::string why;
    QVERIFY2(matches_golden("oci_typical.json", to_json(*plan).dump(2) + "\n", why), why.c_str());
  }

  void one_ir_has_one_hash_on_every_backend_and_the_oci_plan_is_the_same_each_time() {
    const FrozenIr ir = oci_ir();
    auto oci = backends::compile(ir, backends::BackendId::kOci, json::object());
    auto linux = backends::compile(ir, backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    QVERIFY(oci.ok() && linux.ok());
    QCOMPARE(oci->ir_hash, linux->ir_hash);
    QCOMPARE(oci->ir_hash, ir_hash(ir));
    QCOMPARE(plan_hash(*backends::compile(ir, backends::BackendId::kOci, json::object())), plan_hash(*oci));
    QVERIFY(plan_hash(*backends::compile(ir, backends::BackendId::kOci, rootless())) != plan_hash(*oci));
  }

  // The same table as the helper's, with the runtime spec's operand order: for
  // SCMP_CMP_MASKED_EQ, value is the mask and valueTwo the datum.
  void the_seccomp_profile_is_the_linux_helpers_deny_table() {
    const json sc = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, json::object()))["linux"]["seccomp"];
    QCOMPARE(sc["defaultAction"].get<std::string>(), std::string("SCMP_ACT_ALLOW"));
    QVERIFY(!sc.contains("architectures"));
    using linux_backend::SocketFamily;
    const auto rules =
        linux_backend::seccomp_rules({SocketFamily::kUnix, SocketFamily::kInet, SocketFamily::kInet6});
    QCOMPARE(sc["syscalls"].size(), rules.size());
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const json& c = sc["syscalls"][i];
      QCOMPARE(c["names"][0].get<std::string>(), rules[i].syscall);
      QCOMPARE(c["errnoRet"].get<int>(), rules[i].errno_value);
      if (rules[i].arg_index < 0) {
        QVERIFY(!c.contains("args"));
        continue;
      }
      QCOMPARE(c["args"][0]["index"].get<int>(), rules[i].arg_index);
      QCOMPARE(c["args"][0]["value"].get<std::uint64_t>(), rules[i].arg_mask);
      QCOMPARE(c["args"][0]["valueTwo"].get<std::uint64_t>(), rules[i].arg_value);
    }
  }

  // A runtime mounts in the listed order: a mount below a path listed later would be hidden by it.
  // And every directory between the write root and a protected path that exists is a mount
  // point of its own (the kernel refuses to rename one).
  void no_mount_is_hidden_by_a_later_one_and_the_parents_of_protected_paths_are_pinned() {
    const json mounts = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, json::object()))["mounts"];
    std::vector<std::string> dest;
    for (const auto& m : mounts) dest.push_back(m["destination"].get<std::string>());
    for (std::size_t i = 0; i < dest.size(); ++i)
      for (std::size_t j = i + 1; j < dest.size(); ++j)
        QVERIFY2(!(path_inside(dest[i], dest[j]) && dest[i] != dest[j]), (dest[j] + " hides " + dest[i]).c_str());
    const auto at = [&](const std::string& d) { return std::find(dest.begin(), dest.end(), d) - dest.begin(); };
    QVERIFY(at("/home/dev/proj/.git") < at("/home/dev/proj/.git/config"));
    QVERIFY(at("/home/dev/proj/.git") < at("/home/dev/proj/.git/hooks"));
    QCOMPARE(mounts[at("/home/dev/proj/.git")]["source"].get<std::string>(), std::string("/home/dev/proj/.git"));
    QCOMPARE(mounts[at("/home/dev/proj/.git/hooks")]["options"][1].get<std::string>(), std::string("ro"));
    QCOMPARE(mounts[at("/home/dev/proj/.vscode")]["source"].get<std::string>(), std::string("paddock/empty-dir"));
    QCOMPARE(mounts[at("/home/dev/proj/secrets")]["type"].get<std::string>(), std::string("tmpfs"));
    QCOMPARE(mounts[at("/home/dev/proj/.env")]["source"].get<std::string>(), std::string("paddock/masked-file"));
    // Outside every grant: not in the root at all, so no mount.
    QCOMPARE(at("/home/dev/.ssh"), static_cast<long>(dest.size()));
  }

  void limits_go_to_the_runtimes_cgroup_as_root_and_to_rlimits_rootless() {
    const json root = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, json::object()));
    QCOMPARE(root["linux"]["resources"]["memory"]["limit"].get<std::int64_t>(), std::int64_t{8589934592});
    QCOMPARE(root["linux"]["resources"]["pids"]["limit"].get<std::int64_t>(), std::int64_t{512});
    const json user = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, rootless()));
    QVERIFY(user["linux"]["resources"].empty());
    std::map<std::string, std::int64_t> rl;
    for (const auto& r : user["process"]["rlimits"]) rl[r["type"]] = r["hard"];
    QCOMPARE(rl["RLIMIT_DATA"], std::int64_t{8589934592});
    QCOMPARE(rl["RLIMIT_NPROC"], std::int64_t{512});
    QCOMPARE(rl["RLIMIT_CORE"], std::int64_t{0});
    QVERIFY(root["process"]["noNewPrivileges"].get<bool>());
    for (const auto& set : root["process"]["capabilities"]) QVERIFY(set.empty());
  }

  void what_a_runtime_bundle_cannot_hold_is_refused_with_the_way_out() {
    FrozenIr ir = oci_ir();
    ir.resources.wall_time_secs = 60;
    // Kept by `paddock run --backend oci` only: a partial row whose loss names the bundle run by hand.
    QVERIFY2(refusal(ir).empty(), refusal(ir).c_str());
    auto timed = backends::compile(ir, backends::BackendId::kOci, json::object());
    QVERIFY(timed.ok());
    QVERIFY(std::any_of(timed->losses.begin(), timed->losses.end(),
                        [](const std::string& l) { return l.find("run by hand has no time limit") != std::string::npos; }));
    ir = oci_ir();
    ir.fs.review_roots = {"/home/dev/proj"};
    normalize(ir);
    QVERIFY2(refusal(ir).find("--review") != std::string::npos, refusal(ir).c_str());
    ir = oci_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"example.org"};
    ir.egress.publish = {8080};
    normalize(ir);
    QVERIFY2(refusal(ir).find("egress.publish") != std::string::npos, refusal(ir).c_str());
    QCOMPARE(refusal(oci_ir()), std::string());
  }

  void a_filtered_network_hands_connect_to_the_helper_and_needs_its_listener() {
    FrozenIr ir = oci_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"example.org"};
    normalize(ir);
    QCOMPARE(refusal(ir), std::string());
    const json config = config_of(*backends::compile(ir, backends::BackendId::kOci, json::object()));
    const json& calls = config["linux"]["seccomp"]["syscalls"];
    QVERIFY(std::any_of(calls.begin(), calls.end(), [](const json& c) {
      return c["names"] == json::array({"connect"}) && c["action"] == "SCMP_ACT_NOTIFY";
    }));
    const auto env = config["process"]["env"].get<std::vector<std::string>>();
    QVERIFY(std::find(env.begin(), env.end(), "HTTPS_PROXY=http://127.0.0.1:3128") != env.end());
    // With the network off, neither.
    const json off = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, json::object()));
    QVERIFY(off["linux"]["seccomp"].dump().find("SCMP_ACT_NOTIFY") == std::string::npos);
    QVERIFY(off["process"]["env"].dump().find("PROXY") == std::string::npos);
    // The listener is the launch's: without it (a bundle run by hand) the config is refused, and
    // with it the completed config gives it back.
    oci_backend::LaunchFacts launch;
    launch.command = {"true"};
    auto by_hand = oci_backend::complete_config(config, launch);
    QVERIFY(!by_hand.ok());
    QVERIFY2(by_hand.error().message.find("paddock run --backend oci") != std::string::npos, by_hand.error().message.c_str());
    launch.seccomp_listener = "/run/user/1000/paddock/x.sock.seccomp";
    auto completed = oci_backend::complete_config(config, launch);
    QVERIFY(completed.ok());
    QCOMPARE((*completed)["linux"]["seccomp"]["listenerPath"].get<std::string>(), launch.seccomp_listener);
    auto back = oci_backend::launch_of(*completed, config);
    QVERIFY(back.ok());
    QCOMPARE(back->seccomp_listener, launch.seccomp_listener);
  }

  void a_bad_probe_is_refused_naming_the_field() {
    auto plan = backends::compile(oci_ir(), backends::BackendId::kOci, json{{"runtime_cgroups", "yes"}});
    QVERIFY(!plan.ok());
    QVERIFY2(plan.error().message.find("runtime_cgroups") != std::string::npos, plan.error().message.c_str());
    QVERIFY(!backends::compile(oci_ir(), backends::BackendId::kOci, json{{"surprise", true}}).ok());
  }

  void the_launch_adds_the_command_the_passed_values_and_the_user_mapping() {
    const json config = config_of(*backends::compile(oci_ir(), backends::BackendId::kOci, json::object()));
    QVERIFY(config["process"]["args"].empty());
    QVERIFY(!config["linux"].contains("uidMappings"));
    oci_backend::LaunchFacts launch;
    QVERIFY(!oci_backend::complete_config(config, launch).ok());
    launch.command = {"sh", "-c", "true"};
    launch.pass = {{"LANG", "C.UTF-8"}};
    launch.cwd = "/home/dev/proj";
    launch.uid = 1000;
    launch.gid = 1001;
    auto done = oci_backend::complete_config(config, launch);
    QVERIFY(done.ok());
    QCOMPARE((*done)["process"]["args"].size(), std::size_t{3});
    const auto& env = (*done)["process"]["env"];
    QVERIFY(std::find(env.begin(), env.end(), "LANG=C.UTF-8") != env.end());
    QCOMPARE((*done)["linux"]["uidMappings"][0]["hostID"].get<unsigned>(), 1000u);
    QCOMPARE((*done)["linux"]["gidMappings"][0]["hostID"].get<unsigned>(), 1001u);
    QCOMPARE((*done)["linux"]["uidMappings"][0]["size"].get<int>(), 1);
  }
};

QTEST_APPLESS_MAIN(OciPlanTest)
#include "oci_plan_test.moc"
