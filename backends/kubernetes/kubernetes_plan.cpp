#include "backends/kubernetes/kubernetes_plan.h"

#include <cctype>

#include "backends/linux/linux_plan.h"
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"
#include "engine/ir_schema.h"
#include "engine/schema_codec.h"

namespace paddock::kubernetes_backend {
namespace {

using nlohmann::json;
using linux_backend::MountOp;
using linux_backend::MountStep;

constexpr const char* kEmptyDir = "empty-dir";   // an emptyDir volume mounted read-only over masks
constexpr const char* kMaskFiles = "mask-files";  // the ConfigMap volume: "empty" and "dot"

std::string short_hash(const FrozenIr& ir) {
  const std::string h = ir_hash(ir);
  return h.substr(h.find(':') + 1, 12);
}

// Which volume holds a path inside a write root, and the path relative to that root.
struct Holder {
  std::string volume;
  std::string sub_path;
};

class Mounts {
 public:
  explicit Mounts(const FrozenIr& ir) : ir_(ir) {
    for (std::size_t i = 0; i < ir.fs.write_roots.size(); ++i)
      names_[ir.fs.write_roots[i]] = ir.fs.write_roots[i] == ir.meta.project ? "project" : "write-" + std::to_string(i);
  }

  // The innermost write root holding path, or {"", ""}.
  Holder holder(const std::string& path) const {
    Holder h;
    std::size_t best = 0;
    for (const auto& [root, volume] : names_)
      if (path_inside(path, root) && root.size() >= best) {
        best = root.size();
        h = {volume, path == root ? "" : path.substr(root == "/" ? 1 : root.size() + 1)};
      }
    return h;
  }

  void add(const std::string& path, const std::string& volume, bool read_only, const std::string& sub_path = "") {
    json m = {{"name", volume}, {"mountPath", path}, {"readOnly", read_only}};
    if (!sub_path.empty()) m["subPath"] = sub_path;
    out_.push_back(std::move(m));
  }

  // The same view as the Linux helper's and the OCI bundle's (backends/linux/linux_plan.h
  // mount_steps), as a container's volume mounts. Read roots outside the write roots are the
  // image's own files; what a Pod cannot hold is left out and stated by the capability rows.
  json build() {
    const auto steps = linux_backend::mount_steps(ir_.fs, {}, "");
    const std::vector<std::vector<std::string>> pins = linux_backend::pins_before(steps);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const MountStep& m = steps[i];
      // The helper's pinned parents: each a mount point of its own, so it cannot be renamed away.
      for (const std::string& dir : pins[i]) {
        const Holder h = holder(dir);
        add(dir, h.volume, false, h.sub_path);
      }
      const Holder h = holder(m.target);
      switch (m.op) {
        case MountOp::kBindRw: add(m.target, names_.at(m.target), false); break;
        case MountOp::kBindRo:
          if (!h.volume.empty()) add(m.target, h.volume, true, h.sub_path);
          break;
        case MountOp::kTmpfs: add(m.target, "tmp", false); break;
        case MountOp::kProtectDir:
        case MountOp::kProtectFile:
          if (!h.volume.empty()) add(m.target, h.volume, true, h.sub_path);
          break;
        case MountOp::kProtectAbsentDir:
        case MountOp::kMaskDir: add(m.target, kEmptyDir, true); break;
        case MountOp::kProtectAbsentFile:
        case MountOp::kMaskFile: add(m.target, kMaskFiles, true, "empty"); break;
        case MountOp::kProtectAbsentPointer: add(m.target, kMaskFiles, true, "dot"); break;
        case MountOp::kMaskAbsent:
          if (linux_backend::deny_kind(ir_.fs, m.target) == PathKind::kAbsentDir) add(m.target, kEmptyDir, true);
          else add(m.target, kMaskFiles, true, "empty");
          break;
        case MountOp::kDev:
        case MountOp::kProc:
        case MountOp::kOverlay:
        case MountOp::kAgentState:
        case MountOp::kProtectLink:
        case MountOp::kExpectAbsent: break;
      }
    }
    return out_;
  }

  json volumes() const {
    json v = json::array();
    for (const auto& [root, volume] : names_)
      if (volume == "project") v.push_back({{"name", volume}, {"persistentVolumeClaim", {{"claimName", ""}}}});
      else v.push_back({{"name", volume}, {"emptyDir", json::object()}});
    json tmp = {{"medium", "Memory"}};
    if (ir_.resources.memory_bytes) tmp["sizeLimit"] = std::to_string(linux_backend::tmpfs_size(ir_.resources).bytes);
    v.push_back({{"name", "tmp"}, {"emptyDir", tmp}});
    v.push_back({{"name", kEmptyDir}, {"emptyDir", {{"sizeLimit", "1Ki"}}}});
    v.push_back({{"name", kMaskFiles}, {"configMap", {{"name", "paddock-masks-" + short_hash(ir_)}}}});
    return v;
  }

 private:
  const FrozenIr& ir_;
  std::map<std::string, std::string> names_;  // write root -> volume name
  json out_ = json::array();
};

// The IR's per-process limits, set by prlimit(1) before the agent's command: a Pod has no rlimits
// of its own. The image must hold util-linux's prlimit; without it the Pod fails to start.
std::vector<std::string> prlimit_prefix(const IrResources& res) {
  std::vector<std::string> out = {"prlimit"};
  const auto add = [&](const char* flag, const std::optional<std::int64_t>& v) {
    if (v) out.push_back(std::string(flag) + "=" + std::to_string(*v) + ":" + std::to_string(*v));
  };
  add("--cpu", res.cpu_seconds);
  add("--nproc", res.processes);
  add("--nofile", res.open_files);
  add("--fsize", res.file_size_bytes);
  out.push_back("--core=0:0");
  return out;
}

// The broker's Service port, and the variable Kubernetes gives a Pod for the Service's address
// (service links): the agent reaches the broker without DNS, which its NetworkPolicy refuses.
constexpr int kBrokerPort = 3128;
std::string service_host_var(const std::string& service) {
  std::string v;
  for (char c : service) v += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return v + "_SERVICE_HOST";
}

// paddock-broker's command line: the IR's egress record itself, in its canonical bytes, read back
// with the IR schema (helpers/broker/broker_main.cpp), listening on the Pod's own addresses,
// events on stdout.
std::vector<std::string> broker_command(const IrEgress& e) {
  return {"paddock-broker", "--pod", "--listen", "0.0.0.0:" + std::to_string(kBrokerPort),
          "--events", "-", "--egress", schema::canonical_bytes_of(e)};
}

// The broker's Deployment, Service and NetworkPolicy are all named by its Service's name, and the
// agent's policy and the broker's name its one port.
std::string broker_service(const std::string& id) { return "paddock-broker-" + id; }
const json kBrokerPortRule = {{"protocol", "TCP"}, {"port", kBrokerPort}};

json broker_labels(const std::string& id) {
  return {{"app.kubernetes.io/name", "paddock-broker"}, {"paddock.dev/ir", id}};
}

const json kLockedDown = {{"allowPrivilegeEscalation", false},
                          {"privileged", false},
                          {"readOnlyRootFilesystem", true},
                          {"runAsNonRoot", true},
                          {"capabilities", {{"drop", {"ALL"}}}}};

// The broker as a Deployment of one and its Service; a NetworkPolicy lets only the agent's Pod in
// and the broker out (it resolves each name with the cluster's DNS and connects to vetted public
// addresses only, docs/network.md).
std::vector<json> broker_manifests(const FrozenIr& ir, const std::string& id, const json& agent_selector) {
  const std::string name = broker_service(id);
  const json labels = broker_labels(id);
  const json container = {{"name", "broker"},
                          {"image", ""},
                          {"command", broker_command(ir.egress)},
                          {"ports", {{{"containerPort", kBrokerPort}, {"protocol", "TCP"}}}},
                          {"securityContext", kLockedDown}};
  const json pod_spec = {{"automountServiceAccountToken", false},
                         {"enableServiceLinks", false},
                         {"securityContext",
                          {{"runAsNonRoot", true},
                           {"runAsUser", 65534},
                           {"runAsGroup", 65534},
                           {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
                         {"containers", json::array({container})}};
  const json deployment = {{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", {{"name", name}, {"labels", labels}}},
                           {"spec",
                            {{"replicas", 1},
                             {"selector", {{"matchLabels", labels}}},
                             {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
  const json service = {{"apiVersion", "v1"},
                        {"kind", "Service"},
                        {"metadata", {{"name", name}, {"labels", labels}}},
                        {"spec",
                         {{"selector", labels},
                          {"ports", {{{"name", "proxy"}, {"protocol", "TCP"}, {"port", kBrokerPort}, {"targetPort", kBrokerPort}}}}}}};
  const json policy = {{"apiVersion", "networking.k8s.io/v1"},
                       {"kind", "NetworkPolicy"},
                       {"metadata", {{"name", name}, {"labels", labels}}},
                       {"spec",
                        {{"podSelector", {{"matchLabels", labels}}},
                         {"policyTypes", {"Ingress", "Egress"}},
                         {"ingress", {{{"from", {{{"podSelector", {{"matchLabels", agent_selector}}}}}}, {"ports", {kBrokerPortRule}}}}},
                         {"egress", {json::object()}}}}};
  return {policy, service, deployment};
}

}  // namespace

json compile_manifests(const FrozenIr& ir) {
  const std::string id = short_hash(ir);
  const std::string name = "paddock-agent-" + id;
  const json labels = {{"app.kubernetes.io/name", "paddock-agent"}, {"paddock.dev/ir", id}};
  const bool broker = ir.egress.mode == NetMode::kAllowlist || ir.egress.mode == NetMode::kStrict;
  const std::string service = broker_service(id);
  Mounts mounts(ir);
  std::map<std::string, std::string> vars = ir.env.set;
  if (broker)
    for (auto& [k, v] : linux_backend::proxy_env(ir.env.passed_names, "$(" + service_host_var(service) + ")", kBrokerPort))
      vars[k] = std::move(v);
  json env = json::array();
  for (const auto& [k, v] : vars) env.push_back({{"name", k}, {"value", v}});
  json container = {
      {"name", "agent"},
      {"image", ""},
      {"command", prlimit_prefix(ir.resources)},
      {"workingDir", ir.meta.project.empty() ? "/" : ir.meta.project},
      {"env", env},
      {"securityContext", kLockedDown},
      {"volumeMounts", mounts.build()},
  };
  if (ir.resources.memory_bytes) {
    const std::string mem = std::to_string(*ir.resources.memory_bytes);
    container["resources"] = {{"limits", {{"memory", mem}}}, {"requests", {{"memory", mem}}}};
  }
  json pod_spec = {
      {"restartPolicy", "Never"},
      {"automountServiceAccountToken", false},
      {"enableServiceLinks", broker},
      {"hostNetwork", false},
      {"hostPID", false},
      {"hostIPC", false},
      {"shareProcessNamespace", false},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", nullptr},  // the launch's --uid (never 0): complete_manifests
        {"runAsGroup", nullptr},
        {"seccompProfile", {{"type", "Localhost"}, {"localhostProfile", "paddock/" + id + ".json"}}}}},
      {"containers", json::array({container})},
      {"volumes", mounts.volumes()},
  };
  if (ir.resources.wall_time_secs) pod_spec["activeDeadlineSeconds"] = *ir.resources.wall_time_secs;
  const json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", name}, {"labels", labels}}},
                    {"spec", pod_spec}};
  // No ingress rule, and no egress rule but the broker's port when the network is filtered: the
  // agent's Pod reaches nothing else and nothing reaches it, DNS included, where the cluster's
  // network plugin enforces NetworkPolicy.
  json policy_spec = {{"podSelector", {{"matchLabels", labels}}}, {"policyTypes", {"Ingress", "Egress"}}};
  if (broker)
    policy_spec["egress"] = {{{"to", {{{"podSelector", {{"matchLabels", broker_labels(id)}}}}}},
                              {"ports", {kBrokerPortRule}}}};
  const json policy = {{"apiVersion", "networking.k8s.io/v1"},
                       {"kind", "NetworkPolicy"},
                       {"metadata", {{"name", name + "-isolated"}, {"labels", labels}}},
                       {"spec", policy_spec}};
  const json masks = {{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", "paddock-masks-" + id}, {"labels", labels}}},
                      {"data", {{"empty", ""}, {"dot", "."}}}};
  // The Service before the Pod: Kubernetes gives a Pod the variables of the Services that exist
  // when it starts, and kubectl applies a List in order.
  json items = {masks, policy};
  if (broker)
    for (json& m : broker_manifests(ir, id, labels)) items.push_back(std::move(m));
  items.push_back(pod);
  return {{"manifests", {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}},
          {"seccomp_profile", {{"path", "paddock/" + id + ".json"}, {"profile", oci_backend::seccomp_profile()}}}};
}

Result<json> complete_manifests(const json& step, const LaunchFacts& launch) {
  if (launch.command.empty()) return bad_input("no command to run: give the agent's command after --");
  if (launch.image.empty()) return bad_input("no agent image: give it with --image (docs/backends.md)");
  if (launch.uid <= 0 || launch.gid <= 0) return bad_input("the agent's uid and gid must not be 0 (root)");
  json out = step;
  json& items = out["manifests"]["items"];
  json& pod = items.back();
  for (json& item : items)
    if (item["kind"] == "Deployment") {
      if (launch.broker_image.empty())
        return bad_input("the network goes through Paddock's broker, a Deployment of its own: give its image with "
                         "--broker-image (docs/backends.md)");
      item["spec"]["template"]["spec"]["containers"][0]["image"] = launch.broker_image;
    }
  json& c = pod["spec"]["containers"][0];
  c["image"] = launch.image;
  for (const std::string& a : launch.command) c["command"].push_back(a);
  for (const auto& [k, v] : launch.pass) c["env"].push_back({{"name", k}, {"value", v}});
  pod["spec"]["securityContext"]["runAsUser"] = launch.uid;
  pod["spec"]["securityContext"]["runAsGroup"] = launch.gid;
  for (auto& v : pod["spec"]["volumes"])
    if (v.contains("persistentVolumeClaim")) v["persistentVolumeClaim"]["claimName"] = launch.project_claim;
  return out;
}

Result<BackendPlan> compile_kubernetes(const FrozenIr& ir, const json& probe) {
  if (!probe.is_object() || !probe.empty()) return bad_input("Kubernetes probe: expected {}");
  BackendPlan plan;
  plan.backend = "kubernetes";
  plan.ir_hash = ir_hash(ir);
  plan.probe = probe;
  plan.steps = json::array({{{"step", "kubernetes"}, {"value", compile_manifests(ir)}}});
  plan.capability_vector = capability_vector(kubernetes_capability_matrix(), requested_fields(ir));
  plan.losses = losses_of(plan.capability_vector);
  plan.taint = ir.taint;
  plan.refusals = ir_refusals(ir);
  for (auto& r : refusals_of("kubernetes", plan.capability_vector)) plan.refusals.push_back(std::move(r));
  return plan;
}

}  // namespace paddock::kubernetes_backend
