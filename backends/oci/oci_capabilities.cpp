// The OCI capability matrix (docs/capabilities.md is made from it): an existing OCI runtime (crun,
// runc) applies the bundle's config.json: namespaces, bind mounts from an empty read-only root,
// the Linux helper's seccomp table, rlimits and the runtime's cgroup; the helper answers the
// container's connect(2) calls with the session's broker (a filtered network). No Landlock.
// Rows that differ between a bundle run by hand and `paddock run --backend oci` (the helper
// supervising the runtime) say both.
#include "backends/oci/oci_plan.h"
#include "engine/capability.h"

namespace paddock::oci_backend {
namespace {

using namespace paddock::capability_rows;

const char* kNotBrokered =
    "the OCI backend's broker carries the container's own connections only (its network namespace "
    "holds only loopback, and nothing is forwarded into it); remove it, or use the linux backend";
const char* kNoOverlay =
    "the OCI backend writes a runtime bundle, which has no place for the helper's copy-on-write "
    "layer";
const char* kCgroup =
    "the runtime's cgroup (memory.limit / pids.limit in config.json); a runtime that cannot manage "
    "cgroups (rootless without a delegated cgroup v2 subtree) refuses to start the container";

}  // namespace

std::vector<FieldCapability> oci_capability_matrix(const OciFacts& facts) {
  std::vector<FieldCapability> m;
  m.push_back(exact("fs.write_roots", "read-write bind mount (nosuid, nodev) into an empty read-only root"));
  m.push_back(exact("fs.read_roots", "read-only bind mount (nosuid, nodev) into an empty read-only root"));
  m.push_back(exact("fs.deny.outside_grants", "not in the container's root at all"));
  m.push_back(exact("fs.deny.inside_read_root",
                    "an empty read-only file (mode 0) or tmpfs (mode 0) mounted over the path"));
  m.push_back(exact("fs.deny.inside_write_root",
                    "an empty read-only file or tmpfs mounted over the path; each directory above it "
                    "bound onto itself, so it cannot be renamed away"));
  m.push_back(partial("fs.deny.absent_inside_write_root",
                      "an empty read-only file (or tmpfs) mounted where the path would be; the runtime "
                      "makes the mount point in the project",
                      "the directories above the path are not pinned (they may not exist when the "
                      "plan is made): the agent can rename such a directory and create the path "
                      "anew; and a bundle run by hand leaves the empty mount point in the project "
                      "(paddock run --backend oci makes it itself and removes it at the end)"));
  m.push_back(exact("fs.deny_write.outside_write_roots", "read-only bind, or not in the root at all"));
  m.push_back(partial("fs.deny_write.inside_write_root",
                      "the path bound read-only onto itself; each directory above it bound onto itself",
                      "a protected symlink's own name cannot be bound (a bind follows the link): the "
                      "agent can replace the link"));
  m.push_back(partial("fs.deny_write.absent_inside_write_root",
                      "an empty read-only file or directory bound where the path would be; the runtime "
                      "makes the mount point in the project",
                      "the directories above the path are not pinned (they may not exist when the "
                      "plan is made): the agent can rename such a directory and create the path "
                      "anew; and a bundle run by hand leaves the empty placeholder in the project "
                      "(paddock run --backend oci makes it itself and removes it at the end)"));
  m.push_back(exact("fs.tmp_isolated", "a private tmpfs at /tmp, sized from the memory limit"));
  m.push_back(partial("fs.symlink_policy=resolve_parent_then_prefix",
                      "canonical paths in the IR; binds of canonical sources",
                      "a path that must still be absent inside a read-only root is not checked when "
                      "the container starts: if it appeared after the plan was made, it is visible"));
  m.push_back(exact("fs.mount_semantics=no_host_mounts",
                    "private mount namespace; mount(2) and its relatives denied by seccomp"));
  m.push_back(unsupported("fs.host_mounted_paths", "the OCI backend never mounts host paths; remove them"));
  m.push_back(unsupported("fs.review_roots", std::string(kNoOverlay) +
                                                 ", so the agent's writes would reach the project directly; "
                                                 "run without --review or filesystem.review, or use the "
                                                 "linux backend"));
  m.push_back(unsupported("fs.agent_state", std::string(kNoOverlay) +
                                                ", so the agent would write your own agent directory; set "
                                                "filesystem.agent_state: shared in your own policy, or use the "
                                                "linux backend"));
  m.push_back(partial("fs.shared_agent_dirs", "read-write bind mount of your own agent directory",
                      "the agent writes your own agent directory, which your agent CLI reads outside "
                      "Paddock: 'paddock run --backend oci' compares what that CLI loads at start before "
                      "and after the session (fs.watched_configs), but a change restored before the end "
                      "is not seen, and a bundle run by hand compares nothing"));
  m.push_back(partial("fs.watched_configs",
                      "'paddock run --backend oci': the helper reads each file on the host before the "
                      "container exists and again once it is gone, and reports each change",
                      "a bundle run by hand has no helper: nothing is compared (set "
                      "filesystem.protect_agent_config: true to keep the settings read-only)"));
  m.push_back(exact("egress.mode=off", "a new network namespace holding only loopback"));
  for (const char* f : {"egress.mode=allowlist", "egress.mode=strict", "egress.mode=ask"})
    m.push_back(partial(f,
                        "a new network namespace holding only loopback; the runtime hands the helper the "
                        "container's seccomp listener (listenerPath), and each connect(2) to an address off "
                        "that loopback is answered with a socket of the helper's, connected to the session's "
                        "broker, in place of the container's (names checked, resolved once and pinned)",
                        "only under 'paddock run --backend oci': a bundle run by hand is refused a filtered "
                        "network (nothing would answer its connections); no UDP leaves the container (the "
                        "broker resolves names)"));
  m.push_back(exact("egress.dns=broker_resolved_once_pinned",
                    "no resolver in the container; the host broker resolves once and pins"));
  m.push_back(exact("egress.tls=opaque_passthrough_no_interception", "opaque byte pump; no certificate authority exists"));
  m.push_back(partial("egress.quotas", "host broker byte counters",
                      "a transfer already in flight can pass the quota before it is cut"));
  for (const char* f : {"egress.git_ssh", "egress.publish", "egress.host_ports"}) m.push_back(unsupported(f, kNotBrokered));
  m.push_back(exact("egress.debug_resolve",
                    "test seam: the broker answers these names from the IR's table and lets their loopback "
                    "addresses through vetting (the IR is tainted)"));
  m.push_back(unsupported("egress.cidr", "the container's network namespace has no route out; remove "
                                         "network.allow_cidr"));
  m.push_back(unsupported("egress.bind_ports",
                          "the OCI profile has no TCP port rule (no Landlock inside the runtime); remove the port rule"));
  m.push_back(unsupported("egress.connect_ports",
                          "the OCI profile has no TCP port rule (no Landlock inside the runtime); remove the port rule"));
  m.push_back(partial("egress.loopback_bind=false", "network namespace of the container's own",
                      "the agent can listen on the container's own loopback (nothing outside reaches it)"));
  m.push_back(exact("egress.unix_ipc=always_allowed", "socketpair and UNIX sockets allowed"));
  m.push_back(partial("egress.unix_socket_files", "bind mount of each socket file into the root",
                      "a socket reachable by its path lets the agent ask whatever serves it"));
  m.push_back(partial("process.exec_scope=allow_roots", "only the bound roots exist in the container",
                      "every readable file in a root can be executed (no Landlock execute right)"));
  m.push_back(exact("process.inheritance=same_policy",
                    "namespaces, seccomp and no_new_privs are inherited and cannot be lifted"));
  m.push_back(exact("process.detach_policy=contained_or_fail",
                    "a PID namespace: the runtime kills every process when its first one ends"));
  m.push_back(partial("process.privilege_drop", "user namespace mapping only the launching user; no capabilities",
                      "the agent is the container's root, mapped to the user who starts the runtime: "
                      "started by the host's root, it keeps root's ownership of root's files in its read "
                      "roots (the Linux helper's idmapped read roots are not expressed); start the "
                      "runtime as an ordinary user"));
  m.push_back(exact("process.no_new_privs", "noNewPrivileges"));
  m.push_back(exact("secrets.default=deny", "allowlisted environment and the bound roots only"));
  m.push_back(exact("secrets.brokered_env", "absent from the bundle's environment"));
  m.push_back(unsupported("secrets.credentials",
                          "the OCI backend does not reach Paddock's credential broker yet: remove the "
                          "credential ('paddock credentials remove NAME') or use the linux backend"));
  // The resolver seam is the broker's, which OCI sessions use (added above); the credential
  // broker's are not.
  for (auto& r : linux_test_seams_refused())
    if (r.field != "egress.debug_resolve") m.push_back(std::move(r));
  m.push_back(exact("secrets.inherited_credentials=deny",
                    "no host session, keyring or socket is in the container unless bound"));
  m.push_back(exact("env.mode=allowlist", "process.env is the whole environment"));
  m.push_back(partial("env.passed_names", "copied by name into config.json when the bundle is written",
                      "the values are written into the bundle's config.json, readable by whoever can "
                      "read the bundle"));
  m.push_back(exact("env.set", "process.env"));
  m.push_back(partial("resources.cpu_seconds", "RLIMIT_CPU",
                      "RLIMIT_CPU bounds each process's CPU time, not the total of the tree"));
  if (facts.runtime_cgroups) {
    m.push_back(exact("resources.memory_bytes", kCgroup));
    m.push_back(exact("resources.processes", kCgroup));
  } else {
    m.push_back(facts.rlimit_data
                    ? partial("resources.memory_bytes", "RLIMIT_DATA on each process (a rootless runtime here has no cgroup)",
                              "RLIMIT_DATA bounds each process on its own, not the container's total, and does not "
                              "count shared memory, files in /tmp or the page cache; run the runtime as root, or "
                              "where it manages cgroups, for an exact limit")
                    : unsupported("resources.memory_bytes",
                                  "a rootless runtime here has no cgroup, and this kernel does not enforce RLIMIT_DATA; "
                                  "run the runtime as root, or remove the memory limit"));
    m.push_back(facts.nproc_per_userns
                    ? exact("resources.processes",
                            "RLIMIT_NPROC inside the container's own user namespace, where Linux 5.14+ counts only "
                            "the container's tasks")
                    : partial("resources.processes", "RLIMIT_NPROC (a rootless runtime here has no cgroup)",
                              "this kernel (older than 5.14) counts RLIMIT_NPROC over every process of the user's "
                              "uid on the machine, not only the container's"));
  }
  m.push_back(exact("resources.open_files", "RLIMIT_NOFILE (per process)"));
  m.push_back(exact("resources.file_size_bytes", "RLIMIT_FSIZE"));
  m.push_back(partial("resources.wall_time_secs",
                      "paddock run --backend oci: the helper that supervises the runtime kills the "
                      "container at the deadline",
                      "a bundle written by paddock plan --bundle and run by hand has no time limit: "
                      "the runtime keeps none"));
  m.push_back(exact("lifecycle.cleanup=kill_tree", "the PID namespace ends with its first process"));
  m.push_back(exact("lifecycle.orphan_policy=kill", "the PID namespace ends with its first process"));
  m.push_back(partial("lifecycle.crash_handling=fail_closed_report",
                      "the runtime refuses to start on any error; paddock run --backend oci stores the "
                      "attestation (the runtime and the sha256 of the config.json it was given) before "
                      "the runtime starts, and the report at the end",
                      "the runtime itself reports nothing back: the attestation says what Paddock gave "
                      "the runtime, not what the runtime applied"));
  for (auto& r : extension_rows("linux", "the OCI backend applies no Linux extension; remove extensions.linux"))
    m.push_back(std::move(r));
  return in_field_order(std::move(m));
}

}  // namespace paddock::oci_backend
