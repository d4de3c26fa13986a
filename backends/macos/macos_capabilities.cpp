// The macOS capability matrix (what the macOS helper does; docs/capabilities.md is made from it:
// Seatbelt profile + rlimits + a process-group supervisor; no broker, no mount namespace).
#include "backends/macos/macos_plan.h"
#include "engine/capability.h"

namespace paddock::macos_backend {
namespace {

using namespace paddock::capability_rows;

const char* kPathBased =
    "Seatbelt matches paths, not files: the same file reached through another path (a firmlink "
    "such as /System/Volumes/Data/..., or a hard link made before the session) follows that "
    "path's rules";
const char* kNoBroker =
    "Paddock has no egress broker on macOS, so only net mode off is enforced; use --net off, "
    "or run the agent on Linux for domain allowlists";
const char* kNoGroupKill =
    "no PID namespace on macOS: the helper kills the agent's process group, and a descendant "
    "that calls setsid() leaves that group and can outlive the session";

}  // namespace

std::vector<FieldCapability> macos_capability_matrix() {
  std::vector<FieldCapability> m;
  m.push_back(exact("fs.write_roots", "Seatbelt (allow file-write*) on parameter subpaths"));
  m.push_back(partial("fs.read_roots", "Seatbelt (allow file-read*) on parameter subpaths",
                      "system trees dyld needs (/System, /usr, /bin, /sbin, /Library/Apple, "
                      "/private/etc, dyld caches) are readable whatever read_roots says, and "
                      "file metadata (stat) is readable everywhere not denied"));
  for (const char* f : {"fs.deny.outside_grants", "fs.deny.inside_read_root",
                        "fs.deny.inside_write_root", "fs.deny.absent_inside_write_root"})
    m.push_back(partial(f, "trailing Seatbelt (deny file-read* file-write*), last match wins",
                        kPathBased));
  for (const char* f : {"fs.deny_write.outside_write_roots", "fs.deny_write.inside_write_root",
                        "fs.deny_write.absent_inside_write_root"})
    m.push_back(partial(f, "trailing Seatbelt (deny file-write*), last match wins", kPathBased));
  m.push_back(exact("fs.tmp_isolated",
                    "TMPDIR is a fresh per-session directory; /tmp is not writable"));
  m.push_back(partial("fs.symlink_policy=resolve_parent_then_prefix",
                      "paths canonical in the IR; Seatbelt matches resolved paths", kPathBased));
  m.push_back(partial("fs.mount_semantics=no_host_mounts", "(deny default) refuses mounting",
                      "no private mount namespace: a volume the host mounts during the session "
                      "appears wherever a grant covers its mount point"));
  m.push_back(unsupported("fs.host_mounted_paths",
                          "the macOS helper never mounts host paths; remove them from the policy",
                          Needs::kHostComponent));
  m.push_back(unsupported("fs.review_roots",
                          "the macOS helper has no copy-on-write layer to put under a write root (there is no "
                          "overlay file system without a kernel extension), so the agent's writes would reach the "
                          "project directly; review mode is refused on macOS: run without --review or "
                          "filesystem.review"));
  m.push_back(unsupported("fs.agent_state",
                          "the macOS helper has no copy-on-write layer to show the agent its own directory over yours, "
                          "so its writes would reach your agent directory; set filesystem.agent_state: shared in "
                          "your own policy to let it write your directory (docs/agents.md)"));
  m.push_back(partial("fs.shared_agent_dirs", "the agent's directories are write grants",
                      "the agent writes your own agent directory, which your agent CLI reads outside Paddock, and "
                      "the macOS helper does not compare what it wrote (fs.watched_configs): review the files "
                      "of the agent-config list (docs/credentials.md) after a session"));
  m.push_back(partial("fs.watched_configs", "filesystem.protect_agent_config, when set (Seatbelt deny file-write*)",
                      "the macOS helper does not compare the agents' settings before and after a "
                      "session, so a hook or MCP server the agent adds is not reported; set "
                      "filesystem.protect_agent_config: true to keep those files read-only"));
  m.push_back(partial("egress.mode=off", "Seatbelt (deny network*) with the unix-socket exception",
                      "outbound connections to UNIX-domain socket files stay allowed (system "
                      "services need them): a socket the agent can reach by path, such as a "
                      "Docker or ssh-agent socket, is connectable"));
  for (const char* f : {"egress.mode=allowlist", "egress.mode=strict", "egress.mode=ask",
                        "egress.dns=broker_resolved_once_pinned",
                        "egress.tls=opaque_passthrough_no_interception", "egress.quotas",
                        "egress.git_ssh"})
    m.push_back(unsupported(f, kNoBroker));
  // The resolver seam exists only in the Linux broker; an IR carrying it is refused, never
  // silently run against the real resolver.
  m.push_back(unsupported("egress.cidr",
                          "Seatbelt cannot express IP-level allow rules in Paddock's profile; "
                          "remove network.allow_cidr"));
  for (const char* f : {"egress.bind_ports", "egress.connect_ports"})
    m.push_back(unsupported(f, "net mode off on macOS denies every IP socket, so a port rule "
                               "cannot be honoured; remove the port rule"));
  m.push_back(exact("egress.loopback_bind=false", "net mode off denies every IP socket, binds included"));
  m.push_back(unsupported("egress.publish",
                          "net mode off on macOS denies every IP socket, so the agent cannot listen on "
                          "a port to forward to; remove network.publish (--publish)"));
  m.push_back(unsupported("egress.host_ports",
                          "net mode off on macOS denies every IP socket, so the agent cannot connect to a "
                          "forwarded port; remove network.host_ports (--host-port)"));
  m.push_back(exact("egress.unix_ipc=always_allowed", "socketpair and UNIX sockets allowed"));
  m.push_back(exact("egress.unix_socket_files", "file grant on each socket path (parameter)"));
  m.push_back(partial("process.exec_scope=allow_roots", "Seatbelt (allow process-exec)",
                      "execution is not limited to the roots: any readable executable, "
                      "including system binaries, can run"));
  m.push_back(exact("process.inheritance=same_policy",
                    "the Seatbelt profile is inherited by every child and cannot be lifted"));
  m.push_back(partial("process.detach_policy=contained_or_fail", "process group + helper",
                      kNoGroupKill));
  m.push_back(partial("process.privilege_drop", "Seatbelt (deny default)",
                      "macOS has no capability sets: the agent keeps the user's uid, and "
                      "confinement rests on the Seatbelt profile alone"));
  m.push_back(partial("process.no_new_privs", "Seatbelt profile inherited across exec",
                      "macOS has no no_new_privs: a setuid binary the agent can read still runs "
                      "with its owner's uid (inside the same profile)"));
  m.push_back(exact("secrets.default=deny", "allowlisted environment; (deny default) files"));
  m.push_back(exact("secrets.brokered_env", "stripped from the environment before exec"));
  // Refused rather than run with a placeholder nothing answers: the key itself would stay on the
  // host either way (it never enters the IR or the environment), but the agent could not use it.
  m.push_back(unsupported("secrets.credentials",
                          "Paddock has no credential broker on macOS yet (its network is off): the key "
                          "would stay out of the sandbox, but the agent could not use it; remove the "
                          "credential ('paddock credentials remove NAME') or run the agent on Linux"));
  for (auto& r : linux_test_seams_refused()) m.push_back(std::move(r));
  m.push_back(partial("secrets.inherited_credentials=deny",
                      "(deny default); keychain services absent from the mach-lookup list",
                      "the agent runs in the user's login session: any mach service the base "
                      "profile allows answers with the user's authority"));
  m.push_back(exact("env.mode=allowlist", "environment built from scratch before exec"));
  m.push_back(exact("env.passed_names", "copied by name from the launch environment"));
  m.push_back(exact("env.set", "set by the helper before exec"));
  m.push_back(partial("resources.cpu_seconds", "RLIMIT_CPU",
                      "RLIMIT_CPU bounds each process's CPU time, not the total of the tree"));
  m.push_back(unsupported("resources.memory_bytes",
                          "limit memory_bytes has no mechanism on macOS (the kernel does not "
                          "enforce RLIMIT_AS or RLIMIT_DATA and there are no cgroups); remove "
                          "the memory limit or run the agent on Linux"));
  m.push_back(partial("resources.processes", "RLIMIT_NPROC",
                      "RLIMIT_NPROC counts every process of the user's uid: it bounds the user, "
                      "not the sandbox tree, and other processes of the user use it up"));
  m.push_back(exact("resources.open_files", "RLIMIT_NOFILE (per process)"));
  m.push_back(exact("resources.file_size_bytes", "RLIMIT_FSIZE"));
  m.push_back(partial("resources.wall_time_secs", "helper timer, then kill of the process group",
                      kNoGroupKill));
  m.push_back(partial("lifecycle.cleanup=kill_tree", "kill of the process group", kNoGroupKill));
  m.push_back(partial("lifecycle.orphan_policy=kill", "kill of the process group", kNoGroupKill));
  m.push_back(exact("lifecycle.crash_handling=fail_closed_report",
                    "helper refuses before exec and reports the failing step"));
  for (auto& r : extension_rows("macos", "no macOS extension is implemented; remove extensions.macos")) m.push_back(std::move(r));
  return in_field_order(std::move(m));
}

}  // namespace paddock::macos_backend
