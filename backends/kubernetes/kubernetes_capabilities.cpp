// The Kubernetes capability matrix (docs/capabilities.md is made from it): what the manifests ask
// a cluster for. Rows that depend on the cluster say so in their loss: Paddock writes the
// manifests and never sees the cluster that runs them.
#include "backends/kubernetes/kubernetes_plan.h"
#include "engine/capability.h"

namespace paddock::kubernetes_backend {
namespace {

using namespace paddock::capability_rows;

const char* kNotInCluster =
    "the broker's Deployment runs in the cluster, away from this machine's ports and keys; remove it";
const char* kNoPortRule =
    "the agent's NetworkPolicy lets it reach the broker's port only: the manifests have no rule of their own for "
    "an address or a port; remove the rule";
const char* kByPlugin =
    "enforced only where the cluster's network plugin enforces NetworkPolicy (Calico and Cilium do; some "
    "simple plugins accept the object and enforce nothing): Paddock cannot see the cluster";
const char* kImage =
    "the container's files outside the project are the agent image's, not this machine's: the "
    "IR's read roots outside the write roots are not mounted, and what the image holds is its "
    "builder's choice";

}  // namespace

std::vector<FieldCapability> kubernetes_capability_matrix() {
  std::vector<FieldCapability> m;
  m.push_back(partial("fs.write_roots", "the project: its PersistentVolumeClaim, read-write; any other write root: an emptyDir",
                      "a write root other than the project starts empty in each Pod (the agent's own directories "
                      "on this machine are not there), and the project is whatever the claim holds"));
  m.push_back(partial("fs.read_roots", "the agent image's read-only root file system", kImage));
  m.push_back(exact("fs.deny.outside_grants", "this machine's files are never in the Pod"));
  m.push_back(partial("fs.deny.inside_read_root", "an empty read-only file (ConfigMap) or emptyDir mounted over the path",
                      "the path is masked in the image's file system, which may hold its own secrets elsewhere"));
  m.push_back(exact("fs.deny.inside_write_root",
                    "an empty read-only file (ConfigMap) or emptyDir mounted over the path; each directory above it a "
                    "subPath mount of its own"));
  m.push_back(partial("fs.deny.absent_inside_write_root", "an empty read-only file or emptyDir mounted where the path would be",
                      "the container runtime creates the mount point in the project's volume, and the directories above "
                      "it are not pinned: the agent can rename such a directory and create the path anew"));
  m.push_back(exact("fs.deny_write.outside_write_roots", "read-only root file system; the image's files"));
  m.push_back(partial("fs.deny_write.inside_write_root", "a read-only subPath mount of the path; each directory above it a subPath mount",
                      "a protected symlink's own name cannot be mounted (a mount follows the link): the agent can "
                      "replace the link"));
  m.push_back(partial("fs.deny_write.absent_inside_write_root", "an empty read-only file or emptyDir mounted where the path would be",
                      "the container runtime creates the mount point in the project's volume (it stays there), and the "
                      "directories above it are not pinned: the agent can rename such a directory and create the path anew"));
  m.push_back(exact("fs.tmp_isolated", "an emptyDir in memory at /tmp, sized from the memory limit"));
  m.push_back(partial("fs.symlink_policy=resolve_parent_then_prefix", "canonical paths of the IR", kImage));
  m.push_back(exact("fs.mount_semantics=no_host_mounts", "the Pod's own mount namespace; no hostPath volume"));
  m.push_back(unsupported("fs.host_mounted_paths", "the manifests never mount host paths; remove them"));
  m.push_back(unsupported("fs.review_roots", "a Pod has no place for the helper's copy-on-write layer, so the agent's writes "
                                             "would reach the project's volume directly; run without --review or "
                                             "filesystem.review"));
  m.push_back(unsupported("fs.agent_state", "a Pod has no place for the helper's copy-on-write layer; set "
                                            "filesystem.agent_state: shared in your own policy"));
  m.push_back(partial("fs.shared_agent_dirs", "an emptyDir", "the agent's directories start empty in each Pod"));
  m.push_back(unsupported("fs.watched_configs", "nothing compares the agents' settings after a Pod ends; set "
                                                "filesystem.protect_agent_config: true to keep them read-only"));
  m.push_back(partial("egress.mode=off", "a NetworkPolicy with no ingress and no egress rule (DNS included)", kByPlugin));
  for (const char* f : {"egress.mode=allowlist", "egress.mode=strict"})
    m.push_back(partial(f,
                        "Paddock's broker as a Deployment and Service of their own (names checked, resolved once and "
                        "pinned, public addresses only); the agent's proxy variables name the Service's address, and "
                        "its NetworkPolicy lets it reach the broker's port and nothing else",
                        std::string(kByPlugin) +
                            "; the agent's Pod is given its namespace's Service addresses as variables (service "
                            "links, so that it needs no DNS); the broker's events go to its own log (kubectl logs), "
                            "not to a Paddock session"));
  m.push_back(unsupported("egress.mode=ask", "the broker in the cluster has no one to ask; use --net allowlist or strict"));
  m.push_back(exact("egress.dns=broker_resolved_once_pinned",
                    "no resolver for the agent (its NetworkPolicy refuses DNS); the broker resolves once and pins"));
  m.push_back(exact("egress.tls=opaque_passthrough_no_interception", "opaque byte pump; no certificate authority exists"));
  m.push_back(partial("egress.quotas", "the broker's byte counters",
                      "a transfer already in flight can pass the quota before it is cut; the counters start again "
                      "when the broker's Pod does"));
  for (const char* f : {"egress.git_ssh", "egress.publish", "egress.host_ports"}) m.push_back(unsupported(f, kNotInCluster));
  for (const char* f : {"egress.cidr", "egress.bind_ports", "egress.connect_ports"}) m.push_back(unsupported(f, kNoPortRule));
  m.push_back(partial("egress.loopback_bind=false", "the Pod's own network namespace",
                      "the agent can listen on the Pod's own addresses; the NetworkPolicy keeps other Pods out"));
  m.push_back(exact("egress.unix_ipc=always_allowed", "socketpair and UNIX sockets allowed"));
  m.push_back(unsupported("egress.unix_socket_files", "this machine's sockets are not in the Pod; remove unix_sockets.allow"));
  m.push_back(partial("process.exec_scope=allow_roots", "the image and the mounted volumes", kImage));
  m.push_back(exact("process.inheritance=same_policy", "the Pod's security context holds for every process"));
  m.push_back(exact("process.detach_policy=contained_or_fail", "the container's PID namespace"));
  m.push_back(partial("process.privilege_drop", "runAsNonRoot with the given uid, every capability dropped",
                      "without user namespaces (hostUsers: false needs Kubernetes 1.30+ and a runtime that supports "
                      "it) the agent's uid is the node's uid of that number"));
  m.push_back(exact("process.no_new_privs", "allowPrivilegeEscalation: false"));
  m.push_back(exact("secrets.default=deny", "the environment written into the Pod; no service account token"));
  m.push_back(exact("secrets.brokered_env", "absent from the Pod's environment"));
  m.push_back(unsupported("secrets.credentials", "the manifests do not deploy Paddock's credential broker yet: remove the "
                                                 "credential ('paddock credentials remove NAME')"));
  for (auto& r : linux_test_seams_refused()) m.push_back(std::move(r));
  m.push_back(exact("secrets.inherited_credentials=deny",
                    "automountServiceAccountToken: false; nothing of this machine's"));
  m.push_back(exact("env.mode=allowlist", "the container's env is the whole environment"));
  m.push_back(partial("env.passed_names", "copied by name into the Pod when the manifests are written",
                      "the values are written into the manifests, readable by whoever can read them or the Pod"));
  m.push_back(exact("env.set", "the container's env"));
  m.push_back(partial("resources.cpu_seconds", "RLIMIT_CPU through prlimit(1) before the command",
                      "RLIMIT_CPU bounds each process's CPU time, not the total; the image must hold util-linux's "
                      "prlimit (the Pod fails to start otherwise)"));
  m.push_back(exact("resources.memory_bytes", "the container's memory limit (its cgroup)"));
  m.push_back(partial("resources.processes", "RLIMIT_NPROC through prlimit(1) before the command",
                      "without user namespaces RLIMIT_NPROC counts every process of the agent's uid on the node, not "
                      "only the Pod's; the image must hold util-linux's prlimit"));
  m.push_back(exact("resources.open_files", "RLIMIT_NOFILE through prlimit(1) before the command (the image must hold it)"));
  m.push_back(exact("resources.file_size_bytes", "RLIMIT_FSIZE through prlimit(1) before the command (the image must hold it)"));
  m.push_back(exact("resources.wall_time_secs", "activeDeadlineSeconds: the kubelet ends the Pod"));
  m.push_back(exact("lifecycle.cleanup=kill_tree", "the container's PID namespace ends with its first process"));
  m.push_back(exact("lifecycle.orphan_policy=kill", "the container's PID namespace ends with its first process"));
  m.push_back(partial("lifecycle.crash_handling=fail_closed_report", "the kubelet does not start a Pod it cannot set up",
                      "no attestation: the cluster does not report to Paddock what it applied"));
  for (auto& r : extension_rows("linux", "the Kubernetes manifests apply no Linux extension; remove extensions.linux"))
    m.push_back(std::move(r));
  return in_field_order(std::move(m));
}

}  // namespace paddock::kubernetes_backend
