// The Kubernetes plan compiler (backends/kubernetes): the same IR and hash as the Linux and OCI
// backends, its manifests golden, the view as volume mounts, the Pod's security context, the
// isolating NetworkPolicy, the broker's Deployment for a filtered network and the launch's
// additions. Pure: no cluster is involved
// (kubernetes_manifests_test validates the written manifests against the Kubernetes schema).
#include <QtTest>

#include <algorithm>

#include "backends/backend.h"
#include "backends/kubernetes/kubernetes_plan.h"
#include "backends/linux/linux_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::test;
using nlohmann::json;

namespace {

FrozenIr k8s_ir() {
  FrozenIr ir = typical_ir();
  ir.fs.deny_write.push_back({"/home/dev/proj/.git/config", PathKind::kFile});
  ir.fs.deny_write.push_back({"/home/dev/proj/.vscode", PathKind::kAbsentDir});
  normalize(ir);
  return ir;
}

// Strict mode: ports per name, a name without ports, a quota.
FrozenIr filtered_ir() {
  FrozenIr ir = k8s_ir();
  ir.egress.mode = NetMode::kStrict;
  ir.egress.domains = {"api.example.org", "pkg.example.org"};
  ir.egress.strict_ports = {{"api.example.org", {443, 8443}}};
  ir.egress.quotas = {{"pkg.example.org", 1000000}};
  normalize(ir);
  return ir;
}

json step_of(const FrozenIr& ir) {
  auto plan = backends::compile(ir, backends::BackendId::kKubernetes, json::object());
  return plan.ok() ? plan->steps.at(0).at("value") : json();
}

const json& item(const json& step, const std::string& kind) {
  for (const auto& i : step["manifests"]["items"])
    if (i["kind"] == kind) return i;
  static const json none;
  return none;
}

}  // namespace

class KubernetesPlanTest : public QObject {
  Q_OBJECT
 private slots:
  void golden_kubernetes_plan() {
    auto plan = backends::compile(k8s_ir(), backends::BackendId::kKubernetes, json::object());
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    Status s = backends::check(*plan);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    std::string why;
    QVERIFY2(matches_golden("kubernetes_typical.json", to_json(*plan).dump(2) + "\n", why), why.c_str());
  }

  void one_ir_has_one_hash_for_linux_oci_and_kubernetes() {
    const FrozenIr ir = k8s_ir();
    auto k = backends::compile(ir, backends::BackendId::kKubernetes, json::object());
    auto o = backends::compile(ir, backends::BackendId::kOci, json::object());
    auto l = backends::compile(ir, backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    QCOMPARE(k->ir_hash, l->ir_hash);
    QCOMPARE(o->ir_hash, l->ir_hash);
    QCOMPARE(plan_hash(*backends::compile(ir, backends::BackendId::kKubernetes, json::object())), plan_hash(*k));
    QVERIFY(!backends::compile(ir, backends::BackendId::kKubernetes, json{{"cluster", "x"}}).ok());
  }

  void the_pod_runs_without_privileges_tokens_or_host_namespaces_under_the_helpers_seccomp_table() {
    const json step = step_of(k8s_ir());
    const json& pod = item(step, "Pod");
    const json& spec = pod["spec"];
    for (const char* off : {"automountServiceAccountToken", "enableServiceLinks", "hostNetwork", "hostPID", "hostIPC"})
      QVERIFY2(spec[off] == false, off);
    QCOMPARE(spec["restartPolicy"], json("Never"));
    QCOMPARE(spec["activeDeadlineSeconds"], json(14400));
    QVERIFY(spec["securityContext"]["runAsNonRoot"].get<bool>());
    QCOMPARE(spec["securityContext"]["seccompProfile"]["type"], json("Localhost"));
    QCOMPARE(spec["securityContext"]["seccompProfile"]["localhostProfile"], step["seccomp_profile"]["path"]);
    QCOMPARE(step["seccomp_profile"]["profile"], oci_backend::seccomp_profile());
    const json& c = spec["containers"][0]["securityContext"];
    QCOMPARE(c["allowPrivilegeEscalation"], json(false));
    QCOMPARE(c["privileged"], json(false));
    QCOMPARE(c["readOnlyRootFilesystem"], json(true));
    QCOMPARE(c["capabilities"]["drop"], json({"ALL"}));
    QCOMPARE(spec["containers"][0]["resources"]["limits"]["memory"], json("8589934592"));
    // The rlimits a Pod has no field for, set by prlimit before the agent's command.
    QCOMPARE(spec["containers"][0]["command"],
             json({"prlimit", "--cpu=3600:3600", "--nproc=512:512", "--nofile=4096:4096",
                   "--fsize=1073741824:1073741824", "--core=0:0"}));
    for (const auto& v : spec["volumes"]) QVERIFY2(!v.contains("hostPath"), v.dump().c_str());
  }

  void the_network_policy_selects_the_pod_and_allows_nothing_either_way() {
    const json step = step_of(k8s_ir());
    const json& np = item(step, "NetworkPolicy");
    QCOMPARE(np["spec"]["policyTypes"], json({"Ingress", "Egress"}));
    QVERIFY(!np["spec"].contains("ingress") && !np["spec"].contains("egress"));
    for (const auto& [k, v] : np["spec"]["podSelector"]["matchLabels"].items())
      QCOMPARE(item(step, "Pod")["metadata"]["labels"][k], v);
  }

  // The Linux helper's view as volume mounts, parents first; protected paths read-only subPaths
  // of the project's volume with each directory above them a mount point of its own.
  void the_view_is_the_helpers_with_protected_parents_pinned() {
    const json step = step_of(k8s_ir());
    const json& mounts = item(step, "Pod")["spec"]["containers"][0]["volumeMounts"];
    std::vector<std::string> dest;
    for (const auto& m : mounts) dest.push_back(m["mountPath"].get<std::string>());
    for (std::size_t i = 0; i < dest.size(); ++i)
      for (std::size_t j = i + 1; j < dest.size(); ++j)
        QVERIFY2(!(path_inside(dest[i], dest[j]) && dest[i] != dest[j]), (dest[j] + " hides " + dest[i]).c_str());
    const auto at = [&](const std::string& d) -> const json& {
      return mounts[std::find(dest.begin(), dest.end(), d) - dest.begin()];
    };
    QCOMPARE(at("/home/dev/proj")["name"], json("project"));
    QCOMPARE(at("/home/dev/proj")["readOnly"], json(false));
    QCOMPARE(at("/home/dev/proj/.git")["subPath"], json(".git"));
    QCOMPARE(at("/home/dev/proj/.git/hooks")["readOnly"], json(true));
    QCOMPARE(at("/home/dev/proj/.git/hooks")["subPath"], json(".git/hooks"));
    QCOMPARE(at("/home/dev/proj/.env")["name"], json("mask-files"));
    QCOMPARE(at("/home/dev/proj/secrets")["name"], json("empty-dir"));
    QCOMPARE(at("/home/dev/proj/vendor")["readOnly"], json(true));
    QCOMPARE(at("/home/dev/.claude")["name"], json("write-0"));
    QVERIFY(std::find(dest.begin(), dest.end(), "/home/dev/.ssh") == dest.end());
    QVERIFY(std::find(dest.begin(), dest.end(), "/usr") == dest.end());  // the image's own
  }

  void the_launch_adds_image_command_values_claim_and_a_non_root_uid() {
    const json step = step_of(k8s_ir());
    kubernetes_backend::LaunchFacts launch;
    launch.command = {"claude"};
    QVERIFY(!kubernetes_backend::complete_manifests(step, launch).ok());  // no image
    launch.image = "registry.example/agent:1";
    launch.uid = 0;
    QVERIFY(!kubernetes_backend::complete_manifests(step, launch).ok());
    launch.uid = launch.gid = 1234;
    launch.command.clear();
    QVERIFY(!kubernetes_backend::complete_manifests(step, launch).ok());
    launch.command = {"claude", "-p", "hi"};
    launch.pass = {{"LANG", "C.UTF-8"}};
    launch.project_claim = "my-proj";
    auto done = kubernetes_backend::complete_manifests(step, launch);
    QVERIFY(done.ok());
    const json& spec = item(*done, "Pod")["spec"];
    QCOMPARE(spec["containers"][0]["image"], json("registry.example/agent:1"));
    const json& cmd = spec["containers"][0]["command"];
    QCOMPARE(cmd[cmd.size() - 3], json("claude"));
    QCOMPARE(spec["securityContext"]["runAsUser"], json(1234));
    bool claim = false, lang = false;
    for (const auto& v : spec["volumes"]) claim |= v.contains("persistentVolumeClaim") && v["persistentVolumeClaim"]["claimName"] == "my-proj";
    for (const auto& e : spec["containers"][0]["env"]) lang |= e["name"] == "LANG" && e["value"] == "C.UTF-8";
    QVERIFY(claim && lang);
  }

  void golden_kubernetes_plan_with_a_filtered_network() {
    auto plan = backends::compile(filtered_ir(), backends::BackendId::kKubernetes, json::object());
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    Status s = backends::check(*plan);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    std::string why;
    QVERIFY2(matches_golden("kubernetes_filtered.json", to_json(*plan).dump(2) + "\n", why), why.c_str());
  }

  // A filtered network: the broker is a Deployment and Service of its own, given the IR's
  // allowlist on its command line; the agent's NetworkPolicy lets it reach the broker's port and
  // nothing else, the broker's lets in the agent only, and the agent's proxy variables name the
  // Service's address through the variable Kubernetes gives the Pod (no DNS).
  void a_filtered_network_goes_through_a_broker_deployment_the_agent_alone_reaches() {
    const json step = step_of(filtered_ir());
    const json& deployment = item(step, "Deployment");
    const json& broker_pod = deployment["spec"]["template"];
    QCOMPARE(deployment["spec"]["selector"]["matchLabels"], broker_pod["metadata"]["labels"]);
    QCOMPARE(item(step, "Service")["spec"]["selector"], broker_pod["metadata"]["labels"]);
    const json& cmd = broker_pod["spec"]["containers"][0]["command"];
    QCOMPARE(json(std::vector<json>(cmd.begin(), cmd.end() - 1)),
             json({"paddock-broker", "--pod", "--listen", "0.0.0.0:3128", "--events", "-", "--egress"}));
    // The IR's egress record itself, as the broker reads it back with the IR schema.
    const json egress = json::parse(cmd.back().get<std::string>());
    QCOMPARE(egress["mode"], json("strict"));
    QCOMPARE(egress["domains"], json({"api.example.org", "pkg.example.org"}));
    QCOMPARE(egress["strict_ports"], json::parse(R"({"api.example.org":[443,8443]})"));
    QCOMPARE(egress["quotas"], json::parse(R"({"pkg.example.org":1000000})"));
    QCOMPARE(broker_pod["spec"]["securityContext"]["runAsNonRoot"], json(true));
    QCOMPARE(broker_pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"], json(true));
    QCOMPARE(broker_pod["spec"]["automountServiceAccountToken"], json(false));

    const json& pod = item(step, "Pod");
    std::vector<json> policies;
    for (const auto& i : step["manifests"]["items"])
      if (i["kind"] == "NetworkPolicy") policies.push_back(i);
    QCOMPARE(policies.size(), std::size_t(2));
    const json& agent_policy = policies[0]["spec"]["podSelector"]["matchLabels"] == pod["metadata"]["labels"] ? policies[0] : policies[1];
    const json& broker_policy = &agent_policy == &policies[0] ? policies[1] : policies[0];
    QCOMPARE(agent_policy["spec"]["podSelector"]["matchLabels"], pod["metadata"]["labels"]);
    QVERIFY(!agent_policy["spec"].contains("ingress"));
    QCOMPARE(agent_policy["spec"]["egress"],
             json::parse(R"([{"to":[{"podSelector":{"matchLabels":)" + broker_pod["metadata"]["labels"].dump() +
                         R"(}}],"ports":[{"protocol":"TCP","port":3128}]}])"));
    QCOMPARE(broker_policy["spec"]["podSelector"]["matchLabels"], broker_pod["metadata"]["labels"]);
    QCOMPARE(broker_policy["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"], pod["metadata"]["labels"]);

    QCOMPARE(pod["spec"]["enableServiceLinks"], json(true));
    const std::string var = "$(PADDOCK_BROKER_" + QString::fromStdString(
        pod["metadata"]["labels"]["paddock.dev/ir"].get<std::string>()).toUpper().toStdString() + "_SERVICE_HOST)";
    bool https = false;
    for (const auto& e : pod["spec"]["containers"][0]["env"])
      https |= e["name"] == "HTTPS_PROXY" && e["value"] == "http://" + var + ":3128";
    QVERIFY2(https, pod["spec"]["containers"][0]["env"].dump().c_str());
    // The Service comes before the Pod: a Pod gets the variables of the Services that exist when
    // it starts.
    const json& items = step["manifests"]["items"];
    QCOMPARE(items.back()["kind"], json("Pod"));

    kubernetes_backend::LaunchFacts launch;
    launch.command = {"claude"};
    launch.image = "registry.example/agent:1";
    auto done = kubernetes_backend::complete_manifests(step, launch);
    QVERIFY(!done.ok());
    QVERIFY2(done.error().message.find("--broker-image") != std::string::npos, done.error().message.c_str());
    launch.broker_image = "registry.example/paddock-broker:1";
    done = kubernetes_backend::complete_manifests(step, launch);
    QVERIFY(done.ok());
    QCOMPARE(item(*done, "Deployment")["spec"]["template"]["spec"]["containers"][0]["image"],
             json("registry.example/paddock-broker:1"));
    QCOMPARE(item(*done, "Pod")["spec"]["containers"][0]["image"], json("registry.example/agent:1"));
  }

  void what_a_pod_cannot_hold_is_refused_with_the_way_out() {
    FrozenIr ir = k8s_ir();
    ir.egress.mode = NetMode::kAsk;
    ir.egress.domains = {"example.org"};
    normalize(ir);
    auto plan = backends::compile(ir, backends::BackendId::kKubernetes, json::object());
    Status s = backends::check(*plan);
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("--net allowlist or strict") != std::string::npos, s.error().message.c_str());
    ir = k8s_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"example.org"};
    ir.egress.host_ports = {11434};
    normalize(ir);
    s = backends::check(*backends::compile(ir, backends::BackendId::kKubernetes, json::object()));
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("egress.host_ports") != std::string::npos, s.error().message.c_str());
    ir = k8s_ir();
    ir.fs.review_roots = {"/home/dev/proj"};
    normalize(ir);
    s = backends::check(*backends::compile(ir, backends::BackendId::kKubernetes, json::object()));
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("--review") != std::string::npos, s.error().message.c_str());
  }
};

QTEST_APPLESS_MAIN(KubernetesPlanTest)
#include "kubernetes_plan_test.moc"
