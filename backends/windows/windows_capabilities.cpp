// The Windows capability matrix (what helpers/windows does; docs/capabilities.md is made from it:
// AppContainer + ACL entries + Job object; no broker, no WFP).
#include "backends/windows/windows_plan.h"
#include "engine/capability.h"

namespace paddock::windows_backend {
namespace {

using namespace paddock::capability_rows;

const char* kInsideWrite =
    "a write grant includes the right to delete children, so the agent could delete the path "
    "and re-create it under the inherited grant: Windows cannot mask a path inside a write root; "
    "move it out of the write root or grant a narrower directory";
const char* kNoBroker =
    "Paddock has no egress broker on Windows (domain modes need a DNS-to-IP compiler and WFP, "
    "which needs admin), so only net mode off is enforced; use --net off";

}  // namespace

std::vector<FieldCapability> windows_capability_matrix() {
  std::vector<FieldCapability> m;
  m.push_back(exact("fs.write_roots", "ACL grant (read, write, execute, delete) to the AppContainer SID"));
  m.push_back(partial("fs.read_roots", "ACL grant (read, execute) to the AppContainer SID",
                      "files whose ACL grants ALL APPLICATION PACKAGES (C:\\Windows, C:\\Program "
                      "Files and others) are readable whatever read_roots says"));
  m.push_back(exact("fs.deny.outside_grants",
                    "no grant, plus an explicit deny ACE for the AppContainer SID"));
  m.push_back(exact("fs.deny.inside_read_root",
                    "explicit deny ACE for the AppContainer SID (ordered before inherited grants)"));
  m.push_back(unsupported("fs.deny.inside_write_root", kInsideWrite));
  m.push_back(unsupported("fs.deny.absent_inside_write_root", kInsideWrite));
  m.push_back(exact("fs.deny_write.outside_write_roots",
                    "no write grant, plus an explicit deny-write ACE for the AppContainer SID"));
  m.push_back(unsupported("fs.deny_write.inside_write_root", kInsideWrite));
  m.push_back(unsupported("fs.deny_write.absent_inside_write_root", kInsideWrite));
  m.push_back(exact("fs.tmp_isolated",
                    "TEMP and TMP point at a fresh directory in the AppContainer's own folder"));
  m.push_back(partial("fs.symlink_policy=resolve_parent_then_prefix",
                      "ACLs on the objects themselves",
                      "whether a deny lies inside a grant is decided lexically "
                      "(case-insensitive): 8.3 short names and junctions aliasing a path are "
                      "not modelled"));
  m.push_back(partial("fs.mount_semantics=no_host_mounts", "AppContainer token",
                      "no private mount namespace: a volume the host mounts during the session "
                      "is reachable wherever its ACL admits the AppContainer"));
  m.push_back(unsupported("fs.host_mounted_paths",
                          "the Windows helper never maps host paths; remove them from the policy",
                          Needs::kHostComponent));
  m.push_back(unsupported("fs.review_roots",
                          "the Windows helper has no copy-on-write layer to put under a write root without a file-"
                          "system filter driver, so the agent's writes would reach the project directly; review "
                          "mode is refused on Windows: run without --review or filesystem.review"));
  m.push_back(unsupported("fs.agent_state",
                          "the Windows helper has no copy-on-write layer to show the agent its own directory over yours, "
                          "so its writes would reach your agent directory; set filesystem.agent_state: shared in "
                          "your own policy to let it write your directory (docs/agents.md)"));
  m.push_back(partial("fs.shared_agent_dirs", "the agent's directories are write grants",
                      "the agent writes your own agent directory, which your agent CLI reads outside Paddock, and "
                      "the Windows helper does not compare what it wrote (fs.watched_configs): review the files "
                      "of the agent-config list (docs/credentials.md) after a session"));
  m.push_back(partial("fs.watched_configs", "none: the files are written as the grants allow",
                      "the Windows helper does not compare the agents' settings before and after a "
                      "session, so a hook or MCP server the agent adds is not reported; review the "
                      "files of the agent-config list (docs/credentials.md) after a session"));
  m.push_back(exact("egress.mode=off",
                    "AppContainer without network capabilities (loopback blocked too)"));
  for (const char* f : {"egress.mode=allowlist", "egress.mode=strict", "egress.mode=ask",
                        "egress.dns=broker_resolved_once_pinned",
                        "egress.tls=opaque_passthrough_no_interception", "egress.quotas",
                        "egress.git_ssh"})
    m.push_back(unsupported(f, kNoBroker));
  // The resolver seam exists only in the Linux broker; an IR carrying it is refused, never
  // silently run against the real resolver.
  for (const char* f : {"egress.cidr", "egress.bind_ports", "egress.connect_ports", "egress.loopback_bind=false"})
    m.push_back(unsupported(f,
                            "IP and port rules need a Windows Filtering Platform lease, which "
                            "needs admin and is not part of the launch path; remove the rule",
                            Needs::kAdmin));
  m.push_back(unsupported("egress.publish",
                          "the AppContainer has no network capability and loopback into it is blocked; "
                          "a loopback exemption needs admin and is not part of the launch path; remove "
                          "network.publish (--publish)",
                          Needs::kAdmin));
  m.push_back(unsupported("egress.host_ports",
                          "the AppContainer has no network capability, and reaching the host's loopback "
                          "from it needs a loopback exemption, which needs admin and is not part of the "
                          "launch path; remove network.host_ports (--host-port)",
                          Needs::kAdmin));
  m.push_back(partial("egress.unix_ipc=always_allowed", "AF_UNIX inside the AppContainer",
                      "Windows has no socketpair() and no abstract sockets: UNIX-domain IPC "
                      "works only through socket files inside write roots"));
  m.push_back(unsupported("egress.unix_socket_files",
                          "the Windows helper grants no host socket files; remove "
                          "unix_sockets.allow"));
  m.push_back(partial("process.exec_scope=allow_roots", "AppContainer token",
                      "execution is not limited to the roots: system binaries readable by ALL "
                      "APPLICATION PACKAGES run too"));
  m.push_back(exact("process.inheritance=same_policy",
                    "children inherit the AppContainer token and stay in the Job"));
  m.push_back(exact("process.detach_policy=contained_or_fail",
                    "Job object without breakaway, KILL_ON_JOB_CLOSE"));
  m.push_back(exact("process.privilege_drop",
                    "AppContainer (lowbox) token: low integrity, no privileges"));
  m.push_back(partial("process.no_new_privs", "AppContainer token inherited by every child",
                      "Windows has no no_new_privs: a UAC elevation the user approves runs "
                      "outside the sandbox"));
  m.push_back(exact("secrets.default=deny", "allowlisted environment; no grant outside the roots"));
  m.push_back(exact("secrets.brokered_env", "stripped from the environment before exec"));
  // Refused rather than run with a placeholder nothing answers: the key itself would stay on the
  // host either way (it never enters the IR or the environment), but the agent could not use it.
  m.push_back(unsupported("secrets.credentials",
                          "Paddock has no credential broker on Windows yet (its network is off): the key "
                          "would stay out of the sandbox, but the agent could not use it; remove the "
                          "credential ('paddock credentials remove NAME') or run the agent on Linux"));
  for (auto& r : linux_test_seams_refused()) m.push_back(std::move(r));
  m.push_back(partial("secrets.inherited_credentials=deny", "AppContainer token",
                      "files whose ACL grants ALL APPLICATION PACKAGES are readable; the user's "
                      "profile and credential stores grant it nothing by default"));
  m.push_back(exact("env.mode=allowlist", "environment block built from scratch"));
  m.push_back(exact("env.passed_names", "copied by name from the launch environment"));
  m.push_back(exact("env.set", "set by the helper in the environment block"));
  m.push_back(partial("resources.cpu_seconds", "Job JOB_OBJECT_LIMIT_JOB_TIME",
                      "counts user-mode CPU time of the whole Job only; time spent in the "
                      "kernel is not counted"));
  m.push_back(exact("resources.memory_bytes", "Job JOB_OBJECT_LIMIT_JOB_MEMORY (committed memory)"));
  m.push_back(exact("resources.processes", "Job JOB_OBJECT_LIMIT_ACTIVE_PROCESS"));
  m.push_back(unsupported("resources.open_files",
                          "limit open_files has no mechanism on Windows (no handle limit per "
                          "process or Job); remove the open_files limit"));
  m.push_back(unsupported("resources.file_size_bytes",
                          "limit file_size_bytes has no mechanism on Windows without a file "
                          "system quota, which needs admin; remove the file_size limit",
                          Needs::kAdmin));
  m.push_back(exact("resources.wall_time_secs", "helper timer, then the Job is terminated"));
  m.push_back(exact("lifecycle.cleanup=kill_tree", "Job object KILL_ON_JOB_CLOSE"));
  m.push_back(exact("lifecycle.orphan_policy=kill", "orphans stay in the Job and die with it"));
  m.push_back(exact("lifecycle.crash_handling=fail_closed_report",
                    "helper refuses before launch and reports the failing step"));
  for (auto& r : extension_rows("windows", "no Windows extension is implemented; remove extensions.windows"))
    m.push_back(std::move(r));
  return in_field_order(std::move(m));
}

}  // namespace paddock::windows_backend
