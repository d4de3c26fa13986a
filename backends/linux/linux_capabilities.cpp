// The Linux capability matrix (what paddock-helper does; docs/capabilities.md is made from it) and
// the wrapper that turns a LinuxPlan into the backend-neutral BackendPlan.
#include <string>

#include "backends/linux/cgroup_choice.h"
#include "backends/linux/landlock_tier_plan.h"
#include "backends/linux/linux_plan.h"
#include "engine/capability.h"

namespace paddock::linux_backend {
namespace {

using nlohmann::json;

using namespace paddock::capability_rows;

std::string no_landlock() {
  return "Landlock is unavailable on this kernel (ABI 0); boot Linux 5.13 or newer with "
         "CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list";
}
std::string no_netns() {
  return "network namespaces are unavailable on this kernel, so the sandbox can be neither cut "
         "off the network nor given the egress relay; enable CONFIG_NET_NS";
}
std::string no_pidns() {
  return "PID namespaces are unavailable on this kernel, so the process tree cannot be "
         "contained and killed as one; enable CONFIG_PID_NS";
}
std::string old_abi(int abi, int need, const std::string& what) {
  return what + " needs Landlock ABI " + std::to_string(need) + " (Linux " +
         (need == 4 ? "6.7" : need == 6 ? "6.12" : "newer") + "); this kernel has ABI " +
         std::to_string(abi) + ": upgrade the kernel or remove the field from the policy";
}
// Where an exact memory or process limit can come from today, in words a user can act on. The
// session's leaf is made inside the cgroup Paddock runs in, and cgroup v2 lets a non-root cgroup
// enable controllers for children only while no process lives in it: a systemd-delegated v2
// subtree (Paddock's own scope) therefore cannot carry the limits until the leaf is placed beside
// Paddock's cgroup. Naming `systemd-run ... Delegate=yes` here would send users to a dead end.
constexpr const char* kExactLimitsNeed =
    "a cgroup Paddock can create with the memory and pids controllers: as root with cgroup v1 "
    "controllers or at the root of cgroup v2, or with cgroup v1 memory and pids directories "
    "delegated to your user (a systemd-delegated cgroup v2 subtree is not usable yet)";

std::string cgroup_mechanism(CgroupMechanism hierarchy, const char* v2_file, const char* v1_file) {
  return hierarchy == CgroupMechanism::kV2 ? std::string("cgroup v2 ") + v2_file + " on the sandbox's leaf"
                           : std::string("cgroup v1 ") + v1_file + " on the sandbox's leaf";
}

FieldCapability memory_row(const KernelProbe& probe, const LimitChoice& choice) {
  const std::string field = "resources.memory_bytes";
  switch (choice.memory) {
    case LimitVia::kCgroup:
      return exact(field, cgroup_mechanism(choice.cgroup, "memory.max", "memory.limit_in_bytes") +
                              ": the memory of the whole process tree");
    case LimitVia::kRlimit:
      return partial(
          field, "RLIMIT_DATA on each process (no cgroup with the memory controller)",
          "without a cgroup the limit is RLIMIT_DATA, which bounds each process on its own, not "
          "the sandbox's total (N processes may each use up to the limit); it counts private "
          "writable mappings (heap, anonymous memory) when they are made, not resident pages, "
          "and does not count shared memory (MAP_SHARED, memfd, /dev/shm), files in the private "
          "/tmp or the page cache; an exact limit needs " +
              std::string(kExactLimitsNeed));
    case LimitVia::kNone:
      break;
  }
  return unsupported(field, std::string("limit memory_bytes has no mechanism on this machine: "
                                        "no writable cgroup with the memory controller, and ") +
                                (probe.rlimit_data ? "" : "RLIMIT_DATA is not enforced (Linux "
                                                          "older than 4.7, or booted with "
                                                          "ignore_rlimit_data); ") +
                                "give Paddock " + kExactLimitsNeed +
                                ", or remove the memory_bytes limit");
}

FieldCapability processes_row(const KernelProbe& probe, const LimitChoice& choice) {
  const std::string field = "resources.processes";
  switch (choice.processes) {
    case LimitVia::kCgroup:
      return exact(field, cgroup_mechanism(choice.cgroup, "pids.max", "pids.max") +
                              ": every task of the tree, threads included");
    case LimitVia::kRlimit:
      if (nproc_scope(probe) == NprocScope::kSandbox)
        return exact(field,
                     "RLIMIT_NPROC set inside the sandbox's own user namespace, where Linux "
                     "5.14+ counts only the sandbox's tasks (threads included, as pids.max does)");
      return partial(field, "RLIMIT_NPROC (no cgroup with the pids controller)",
                     "this kernel (older than 5.14) counts RLIMIT_NPROC over every process of "
                     "the user's uid on the machine, not only the sandbox's: a fork in the "
                     "sandbox is refused once the user runs that many processes in all; the "
                     "sandbox never exceeds the limit");
    case LimitVia::kNone:
      break;
  }
  return unsupported(field,
                     std::string("limit processes has no mechanism on this machine: no writable "
                                 "cgroup with the pids controller") +
                         (probe.unprivileged ? ""
                                             : ", and RLIMIT_NPROC binds nothing for root (the "
                                               "kernel exempts uid 0)") +
                         "; give Paddock " + kExactLimitsNeed +
                         ", or remove the processes limit");
}

}  // namespace

std::vector<FieldCapability> linux_capability_matrix(const KernelProbe& probe) {
  const int abi = probe.landlock_abi;
  const bool fs_ok = abi >= 1 && probe.user_ns && probe.mount_ns;
  const std::string fs_why = abi < 1 ? no_landlock() : userns_unavailable(probe);
  const auto fs = [&](FieldCapability c) { return fs_ok ? c : unsupported(c.field, fs_why); };
  const auto net = [&](FieldCapability c) {
    return probe.net_ns ? c : unsupported(c.field, no_netns());
  };
  const auto pid = [&](FieldCapability c) {
    return probe.pid_ns ? c : unsupported(c.field, no_pidns());
  };
  std::vector<FieldCapability> m;
  m.push_back(fs(exact("fs.write_roots",
                       "read-write bind mount + Landlock write rights; the IR holds no grant at or below a deny "
                       "(deny beats every allow) and no write grant at or below a write protection")));
  m.push_back(fs(exact("fs.read_roots", "read-only bind mount + Landlock read rights; none at or below a deny")));
  m.push_back(fs(exact("fs.deny.outside_grants",
                       "not mounted: the view is built on an empty root")));
  m.push_back(fs(exact("fs.deny.inside_read_root",
                       "mount mask (empty tmpfs or empty file), resolved from the grant's bind without "
                       "following symlinks; a target that changed since the policy walk is refused before the agent starts")));
  m.push_back(fs(exact("fs.deny.inside_write_root",
                       "mount mask (empty tmpfs or empty file), resolved without following symlinks; every "
                       "directory between it and the write root is pinned (a mount point), so it cannot be "
                       "renamed away; a target that changed since the policy walk is refused before the agent starts")));
  m.push_back(fs(exact(
      "fs.deny.absent_inside_write_root",
      "an empty placeholder (file or directory) made on disk at the first missing component with a "
      "mask mounted over it, its parents pinned: nothing can be created there, and what someone "
      "outside writes into it stays masked; removed, if still unchanged, once none of the user's "
      "agents runs any more")));
  m.push_back(fs(exact("fs.deny_write.outside_write_roots",
                       "no write grant covers it (read-only bind, or not in the view)")));
  m.push_back(fs(exact("fs.deny_write.inside_write_root",
                       "read-only bind mount of the path onto itself (a symlink: the link itself, so it keeps "
                       "leading where it led), resolved without following symlinks; every directory between "
                       "it and the write root is pinned (a mount point), so neither it nor a parent can be "
                       "renamed and replaced; hard links to it the grants reach are protected too")));
  m.push_back(fs(exact(
      "fs.deny_write.absent_inside_write_root",
      "an empty placeholder (directory or file, or for a name git reads such as commondir a symlink "
      "that leads nowhere) made on disk at the first missing component while the agent runs and "
      "bound read-only, its parents pinned; removed, if still unchanged, once none of the user's "
      "agents runs any more")));
  m.push_back(fs(exact("fs.tmp_isolated",
                       "private tmpfs mounted at /tmp; /tmp and /dev/shm each hold at most half the "
                       "memory limit (one inode per 16 KiB), or the kernel's default without one")));
  m.push_back(fs(exact("fs.symlink_policy=resolve_parent_then_prefix",
                       "paths canonical in the IR; Landlock decides on inodes, not names")));
  m.push_back(fs(exact("fs.mount_semantics=no_host_mounts",
                       "private mount namespace; mount syscalls denied by seccomp")));
  m.push_back(unsupported("fs.host_mounted_paths",
                          "paddock-helper never mounts host paths into the view on request; "
                          "remove the host-mounted paths from the policy",
                          Needs::kHostComponent));
  m.push_back(fs(probe.overlay_userns()
                    ? exact("fs.review_roots",
                            "overlay mounted by the sandbox's init in its own user namespace: the host's "
                            "directory is the read-only lower layer, the agent's writes land in the "
                            "session's directory and reach the host only through paddock apply "
                            "(conflict-checked, atomic per file); host-executed changes are listed apart")
                    : unsupported("fs.review_roots",
                                  "an overlay cannot be mounted in a user namespace on this kernel (" +
                                      probe.overlay_userns_error +
                                      "; it needs Linux 5.11 or newer with CONFIG_OVERLAY_FS), so the "
                                      "agent's writes cannot be held for review; run without review "
                                      "mode (--review, filesystem.review) or on a newer kernel")));
  m.push_back(fs(probe.overlay_userns()
                    ? exact("fs.agent_state",
                            "overlay mounted by the sandbox's init in its own user namespace: your own agent "
                            "directory is the read-only lowest layer (never written; your stored logins and "
                            "history there hidden), what the agent writes is kept in Paddock's agent state for "
                            "its next session and reaches your directory only through paddock agent-state apply")
                    : unsupported("fs.agent_state",
                                  "an overlay cannot be mounted in a user namespace on this kernel (" +
                                      probe.overlay_userns_error +
                                      "; it needs Linux 5.11 or newer with CONFIG_OVERLAY_FS), so the agent's own "
                                      "state cannot be kept apart from your agent directory; run on a newer "
                                      "kernel, or set filesystem.agent_state: shared in your own policy to let it "
                                      "write your directory (watched, see docs/agents.md)")));
  m.push_back(partial("fs.shared_agent_dirs", "read-write bind mount of your own agent directory, watched",
                      "the agent writes your own agent directory, which your agent CLI reads outside Paddock: "
                      "the helper compares before and after the session what that CLI loads at start (the "
                      "agent-config list, the files its settings name, by digest and resolved through "
                      "symlinks at both ends) and reports each change, but a change the agent restores "
                      "before the session ends is not seen, and a report comes after the fact; the default "
                      "(filesystem.agent_state: own) keeps the agent's writes in Paddock's state instead"));
  m.push_back(exact("fs.watched_configs",
                    "paddock-helper reads each file on the host before the sandbox exists and again once "
                    "it is gone (bounded, no symlink followed), compares the listed keys by digest and "
                    "reports each change (agent_config_changed event, report.json)"));
  m.push_back(net(exact("egress.mode=off",
                        abi >= 4 ? "empty network namespace (loopback only) + Landlock TCP deny"
                                 : "empty network namespace (loopback only)")));
  for (const char* mode : {"allowlist", "strict", "ask"})
    m.push_back(net(exact(std::string("egress.mode=") + mode,
                          "empty network namespace whose only route out is the loopback relay "
                          "to the host broker (names checked, resolved once, pinned)")));
  m.push_back(net(exact("egress.dns=broker_resolved_once_pinned",
                        "no resolver in the sandbox; the host broker resolves once and pins")));
  m.push_back(net(exact("egress.tls=opaque_passthrough_no_interception",
                        "opaque byte pump; no certificate authority exists")));
  m.push_back(unsupported("egress.cidr",
                          "Paddock has no IP-level allow rule on Linux (the sandbox's only "
                          "route out is the domain relay); use network.allow_domains instead"));
  for (const char* f : {"egress.bind_ports", "egress.connect_ports"}) {
    if (abi >= 4)
      m.push_back(net(exact(f, "Landlock TCP port rule in the sandbox's network namespace")));
    else
      m.push_back(unsupported(f, old_abi(abi, 4, std::string(f) + " (a TCP port rule)")));
  }
  // Binding is allowed by default (the namespace and its loopback are the sandbox's own);
  // forbidding it needs Landlock's TCP rules.
  if (abi >= 4)
    m.push_back(net(exact("egress.loopback_bind=false", "Landlock handles TCP bind and connect with no rule but "
                                                        "the relay's and egress.bind_ports/connect_ports")));
  else
    m.push_back(unsupported("egress.loopback_bind=false", old_abi(abi, 4, "network.loopback_bind: false (a TCP bind rule)")));
  m.push_back(net(exact("egress.publish",
                        "the helper listens on the host's 127.0.0.1:<port> and relays each connection to "
                        "127.0.0.1:<port> in the sandbox's network namespace (a socket made there); host to "
                        "sandbox only, with a bounded number of connections")));
  m.push_back(net(exact("egress.host_ports",
                        "the helper's own listener on 127.0.0.1:<port> in the sandbox's network namespace "
                        "(made before the agent starts) relays each connection to the host's "
                        "127.0.0.1:<port>, and to nothing else; an event per connection, a bounded number "
                        "of them")));
  m.push_back(exact("egress.unix_ipc=always_allowed",
                    abi >= 6 ? "AF_UNIX allowed by seccomp; abstract sockets scoped by Landlock"
                             : "AF_UNIX allowed by seccomp; abstract sockets confined to the "
                               "sandbox's network namespace"));
  m.push_back(fs(partial("egress.unix_socket_files", "bind mount of each socket file into the view",
                         "every socket file under a grant when the session starts is masked unless "
                         "listed (the package trees /usr, /bin, /sbin, /lib*, /etc and /boot are not "
                         "searched), but one created in a granted directory during the session is "
                         "connectable: no Landlock right (ABI 7 and older) covers connecting to a "
                         "pathname socket, so only the view keeps sockets out; grant directories "
                         "where no control socket appears (not your runtime directory, /run or "
                         "/tmp/.X11-unix, which lint calls escape-equivalent)")));
  m.push_back(net(partial("egress.quotas", "host broker byte counters",
                          "bytes are counted by the host broker on relayed connections; a "
                          "transfer already in flight can pass the quota before it is cut")));
  m.push_back(net(partial("egress.git_ssh",
                          "GIT_SSH_COMMAND: ssh with ProxyCommand paddock-connect (read-only bind + "
                          "Landlock execute) through the relay's CONNECT port; strict ports apply",
                          "ssh keys and ~/.ssh stay denied: authentication needs an ssh-agent socket "
                          "granted with unix_sockets.allow, and host keys are checked "
                          "strictly against /etc/ssh/ssh_known_hosts only (the user's known_hosts "
                          "is in the denied ~/.ssh)")));
  m.push_back(net(exact("egress.debug_resolve",
                        "test seam: the broker answers these names from the IR's table and lets "
                        "their loopback addresses through vetting (the IR is tainted)")));
  m.push_back(fs(partial("process.exec_scope=allow_roots", "Landlock execute right",
                         "programs can also be run from the private /tmp and /dev/shm, which "
                         "start empty but are writable by the agent (as write roots are)")));
  m.push_back(exact("process.inheritance=same_policy",
                    "namespaces, Landlock and seccomp are inherited and cannot be lifted"));
  m.push_back(pid(exact("process.detach_policy=contained_or_fail",
                        "PID namespace: every descendant dies with the sandbox's init")));
  m.push_back(exact("process.privilege_drop",
                    !probe.host_root
                        ? "no capabilities outside the user namespace; setuid ineffective"
                        : "no capabilities, setuid ineffective; the caller is root, so every read-only "
                          "grant is an idmapped mount on which root's files show as nobody's: the agent "
                          "(uid 0) reads there only what every user may read"));
  m.push_back(exact("process.no_new_privs", "prctl(PR_SET_NO_NEW_PRIVS)"));
  m.push_back(fs(exact("secrets.default=deny", "allowlisted environment and file view")));
  m.push_back(exact("secrets.brokered_env", "stripped from the environment before exec"));
  m.push_back(fs(exact("secrets.inherited_credentials=deny",
                       "credential files and sockets outside the grants are not in the view")));
  m.push_back(net(exact("secrets.credentials",
                        "host-side credential broker: the agent gets a placeholder and a plain-HTTP "
                        "endpoint on its own loopback; the broker, outside the sandbox, accepts only "
                        "requests carrying the placeholder, writes the key into the upstream's header "
                        "and sends the request over TLS verified against the system store to the one "
                        "host the key was stored for. Every net mode, off included: the endpoint is a "
                        "bound egress of its own, so the upstream need not be in the allowlist")));
  m.push_back(net(exact("secrets.debug_upstreams",
                        "test seam: the credential broker connects to these loopback addresses "
                        "instead of the upstreams' (the IR is tainted); TLS is still verified for the "
                        "upstream's name")));
  m.push_back(net(exact("secrets.debug_upstream_ca",
                        "test seam: the credential broker also trusts this CA file (the IR is tainted)")));
  m.push_back(exact("env.mode=allowlist", "environment built from scratch before exec"));
  m.push_back(exact("env.passed_names", "copied by name from the launch environment"));
  m.push_back(exact("env.set", "set by the helper before exec"));
  m.push_back(partial("resources.cpu_seconds", "RLIMIT_CPU",
                      "RLIMIT_CPU bounds each process's CPU time, not the total of the tree"));
  const LimitChoice limits = choose_limits(probe);
  m.push_back(memory_row(probe, limits));
  m.push_back(processes_row(probe, limits));
  m.push_back(exact("resources.open_files", "RLIMIT_NOFILE (per process)"));
  m.push_back(exact("resources.file_size_bytes", "RLIMIT_FSIZE"));
  m.push_back(pid(exact("resources.wall_time_secs",
                        "helper timer, then kill of the whole tree; the sandbox's init keeps the same "
                        "deadline (+1 s) in case the helper was stopped")));
  m.push_back(pid(exact("lifecycle.cleanup=kill_tree",
                        "PID namespace init exit (and cgroup.kill where a cgroup exists)")));
  m.push_back(pid(exact("lifecycle.orphan_policy=kill",
                        "orphans stay in the PID namespace and die with it")));
  m.push_back(exact("lifecycle.crash_handling=fail_closed_report",
                    "helper refuses before exec and reports the failing step"));
  for (auto& r : extension_rows("linux", "no Linux extension is implemented; remove extensions.linux")) m.push_back(std::move(r));
  return in_field_order(std::move(m));
}

// Facts every Linux plan depends on, whatever the IR asks: refused up front with one line.
std::vector<std::string> linux_probe_refusals(const KernelProbe& p) {
  std::vector<std::string> out;
  if (p.landlock_abi < 1) out.push_back(no_landlock());
  if (!p.user_ns || !p.mount_ns) out.push_back(userns_unavailable(p));
  if (!p.seccomp_filter)
    out.push_back("seccomp filters are unavailable on this kernel; every Linux plan needs them "
                  "(they keep the agent from undoing its mount view): enable "
                  "CONFIG_SECCOMP_FILTER");
  if (!p.ipc_ns || !p.uts_ns)
    out.push_back("IPC or UTS namespaces are unavailable on this kernel; every Linux plan "
                  "isolates both: enable CONFIG_IPC_NS and CONFIG_UTS_NS");
  return out;
}

Result<LinuxCompiled> compile_linux_parts(const FrozenIr& ir, const KernelProbe& probe) {
  // The landlock tier (landlock_tier_plan.h) has a plan of its own; LinuxCompiled::linux_plan
  // stays empty for it, and the helper compiles its typed plan itself.
  if (ir.meta.linux_tier == kTierLandlock) {
    auto tier = compile_landlock_tier_parts(ir, probe);
    if (!tier.ok()) return tier.error();
    return LinuxCompiled{{}, std::move(tier->plan), std::move(tier->steps)};
  }
  if (ir.meta.linux_tier != kTierNamespaces)
    return bad_input("meta.linux_tier: unknown tier \"" + ir.meta.linux_tier + "\"; expected namespaces or landlock");
  auto lp = compile_linux_plan(ir, probe);
  if (!lp.ok()) return lp.error();
  LinuxCompiled out;
  out.linux_plan = std::move(*lp);
  out.steps = canonical_steps(out.linux_plan);
  BackendPlan& plan = out.plan;
  plan.backend = "linux";
  plan.ir_hash = paddock::ir_hash(ir);
  plan.probe = to_json(probe);
  plan.capability_vector = capability_vector(linux_capability_matrix(probe), requested_fields(ir));
  plan.losses = losses_of(plan.capability_vector);
  plan.taint = ir.taint;
  plan.refusals = linux_probe_refusals(probe);
  for (auto& r : ir_refusals(ir)) plan.refusals.push_back(std::move(r));
  for (auto& r : refusals_of("linux", plan.capability_vector)) plan.refusals.push_back(std::move(r));
  return out;
}

Result<BackendPlan> compile_linux(const FrozenIr& ir, const KernelProbe& probe) {
  auto parts = compile_linux_parts(ir, probe);
  if (!parts.ok()) return parts.error();
  parts->plan.steps = json::parse(parts->steps);
  return std::move(parts->plan);
}

}  // namespace paddock::linux_backend
