// The landlock tier's compiler and capability matrix (landlock_tier_plan.h). Pure, like the
// namespace tier's: the same IR and probe give the same plan bytes. It starts from the namespace
// tier's plan for the parts both tiers share (the seccomp deny list, rlimits, the cgroup choice,
// the environment) so that the two never disagree about them, and replaces what needs a
// namespace: the file rules (no mount view: denies are carved out of the grants), the network
// (no namespace: off refuses every socket family; a filtered network lets TCP sockets be made
// and hands each connect(2) to the helper, which connects it to the broker) and /tmp (a private
// TMPDIR).
#include "backends/linux/landlock_tier_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "backends/linux/cgroup_choice.h"
#include "backends/linux/kernel_abi.h"
#include "engine/capability.h"

namespace paddock::linux_backend {
namespace {

using nlohmann::json;
using Fs = LandlockFsRight;
using namespace paddock::capability_rows;

using abi::kEacces;
using abi::kEafnosupport;

// A rule on one argument's low 32 bits (the kernel truncates int arguments).
SeccompRule masked(const char* syscall, int err, int arg, std::uint64_t value, std::uint64_t mask) {
  return SeccompRule{syscall, err, arg, SeccompArgOp::kMaskedEq, value, mask};
}

// The socket gate of a filtered network: socket(2) makes TCP sockets of AF_INET and AF_INET6
// only (every other family, AF_UNIX included, fails as with the network off), and nothing but
// connect(2) can put them in touch with anything: bind(2) and listen(2) fail (a listener would be
// on the host's own network), and so does a send that would connect (MSG_FASTOPEN).
std::vector<SeccompRule> broker_socket_gate() {
  std::vector<SeccompRule> r;
  r.push_back(masked("socket", kEafnosupport, 0, static_cast<std::uint64_t>(SocketFamily::kUnix), 0xFFFFFFFFull));
  // The type's four bits must read SOCK_STREAM (0001): any other has bit 1, 2 or 3 set, or bit 0 clear.
  for (const std::uint64_t bit : {0x2ull, 0x4ull, 0x8ull}) r.push_back(masked("socket", abi::kEsocktnosupport, 1, bit, bit));
  r.push_back(masked("socket", abi::kEsocktnosupport, 1, 0, abi::kSockStream));
  // The protocol must be 0 or IPPROTO_TCP (6): any larger one has one of bits 3..31 set, and the
  // rest of 1..7 are listed.
  for (int bit = 3; bit < 32; ++bit) {
    const std::uint64_t b = 1ull << bit;
    r.push_back(masked("socket", abi::kEprotonosupport, 2, b, b));
  }
  for (std::uint64_t p = 1; p < 8; ++p)
    if (p != abi::kIpprotoTcp) r.push_back(masked("socket", abi::kEprotonosupport, 2, p, 0xFFFFFFFFull));
  r.push_back(SeccompRule{"bind", kEacces, -1, SeccompArgOp::kNone, 0, 0});
  r.push_back(SeccompRule{"listen", kEacces, -1, SeccompArgOp::kNone, 0, 0});
  r.push_back(masked("sendto", kEacces, 3, abi::kMsgFastopen, abi::kMsgFastopen));
  r.push_back(masked("sendmsg", kEacces, 2, abi::kMsgFastopen, abi::kMsgFastopen));
  r.push_back(masked("sendmmsg", kEacces, 3, abi::kMsgFastopen, abi::kMsgFastopen));
  return r;
}

std::vector<Fs> keep(const std::vector<Fs>& rights, const std::vector<Fs>& wanted) {
  std::vector<Fs> out;
  for (const Fs r : rights)
    if (std::find(wanted.begin(), wanted.end(), r) != wanted.end()) out.push_back(r);
  return out;
}

// The host devices a program expects to open; /dev/shm is left out (it is the host's, shared
// with every other process), so POSIX shared memory fails here (docs/capabilities.md).
std::vector<LandlockPathRule> device_rules(const std::vector<Fs>& handled) {
  const std::vector<Fs> rw = keep(handled, {Fs::kReadFile, Fs::kWriteFile});
  const std::vector<Fs> tty = keep(handled, {Fs::kReadFile, Fs::kWriteFile, Fs::kIoctlDev});
  std::vector<LandlockPathRule> out;
  for (const char* d : {"/dev/full", "/dev/null", "/dev/random", "/dev/urandom", "/dev/zero"}) out.push_back({d, rw});
  out.push_back({"/dev/pts", keep(handled, {Fs::kReadFile, Fs::kWriteFile, Fs::kReadDir, Fs::kIoctlDev})});
  out.push_back({"/dev/tty", tty});
  out.push_back({"/proc", keep(handled, {Fs::kReadFile, Fs::kReadDir})});
  return out;
}

LandlockTierPlan tier_plan(const FrozenIr& ir, const LinuxPlan& ns) {
  LandlockTierPlan t;
  const std::vector<Fs>& all = ns.landlock.handled_fs;
  t.landlock.abi = ns.landlock.abi;
  t.landlock.handled_fs = all;
  // TCP bind and connect handled with no rule (ABI >= 4): the agent's own connect(2) never gets
  // through, with the network off or filtered (the helper answers those, see below).
  if (ns.landlock.abi >= 4) t.landlock.handled_net = {LandlockNetRight::kBindTcp, LandlockNetRight::kConnectTcp};
  t.landlock.scoped = ns.landlock.scoped;
  const std::vector<Fs> read = keep(all, {Fs::kExecute, Fs::kReadFile, Fs::kReadDir});

  std::map<std::string, std::vector<Fs>> grants;  // path -> rights (write includes read)
  for (const std::string& r : ir.fs.read_roots) grants[r] = read;
  for (const std::string& r : ir.fs.write_roots) grants[r] = all;
  const auto inside = [](const std::string& p, const std::string& root) { return p != root && path_inside(p, root); };
  for (const auto& [grant, rights] : grants) {
    LandlockCarve c{grant, rights, {}, {}};
    const bool writable = rights == all;
    for (const DenyEntry& d : ir.fs.deny)
      if (inside(d.path, grant)) c.denied.push_back(d.path);
    if (writable) {
      // A path the agent may only read inside a write root: a protected one, or a read root
      // nested in it (Landlock adds a parent's rights to everything below it).
      for (const DenyEntry& d : ir.fs.deny_write)
        if (inside(d.path, grant)) c.read_only.push_back(d.path);
      for (const std::string& r : ir.fs.read_roots)
        if (inside(r, grant) && grants.at(r) != all) c.read_only.push_back(r);
    }
    std::sort(c.denied.begin(), c.denied.end());
    std::sort(c.read_only.begin(), c.read_only.end());
    c.read_only.erase(std::unique(c.read_only.begin(), c.read_only.end()), c.read_only.end());
    if (c.denied.empty() && c.read_only.empty()) t.landlock.path_rules.push_back({grant, rights});
    else t.carves.push_back(std::move(c));
  }
  for (auto& r : device_rules(all)) t.landlock.path_rules.push_back(std::move(r));
  std::sort(t.landlock.path_rules.begin(), t.landlock.path_rules.end(),
            [](const LandlockPathRule& a, const LandlockPathRule& b) { return a.path < b.path; });
  t.private_tmpdir = ir.fs.tmp_isolated;

  // The namespace tier's deny list, and socket(2) of the three families it lets through
  // refused too: with no network namespace, AF_INET and AF_INET6 would reach the host's network,
  // and AF_UNIX any socket file the user may open (the D-Bus bus, an ssh-agent, Docker's) and
  // the host's abstract sockets. socketpair(2) stays. A filtered network lets TCP sockets be
  // made, whose every connect(2) the helper answers with a connection to the broker.
  t.seccomp = ns.seccomp.rules;
  t.connect_via_broker = ir.egress.mode != NetMode::kOff;
  t.host_ports = ir.egress.host_ports;
  t.answer_connect = t.connect_via_broker || !t.host_ports.empty();
  if (!t.answer_connect) {
    for (const SocketFamily f : ns.seccomp.socket_families_allowed)
      t.seccomp.push_back(masked("socket", kEafnosupport, 0, static_cast<std::uint64_t>(f), 0xFFFFFFFFull));
  } else {
    t.socket_families_allowed = {SocketFamily::kInet, SocketFamily::kInet6};
    for (auto& r : broker_socket_gate()) t.seccomp.push_back(std::move(r));
  }
  t.rlimits = ns.rlimits;
  t.cgroup = ns.cgroup;
  t.env = ns.env;
  t.wall_time_secs = ns.wall_time_secs;
  return t;
}

json names_of(const std::vector<Fs>& rights) {
  json a = json::array();
  for (const Fs r : rights) a.push_back(to_string(r));
  return a;
}

// The plan's steps as canonical bytes: one object per step, in the order the helper applies them.
std::string steps_bytes(const LandlockTierPlan& t) {
  json steps = json::array();
  const auto step = [&](const char* name, json value) { steps.push_back({{"step", name}, {"value", std::move(value)}}); };
  step("tier", kTierLandlock);
  step("subreaper", true);
  step("process_group", true);
  step("no_new_privs", true);
  json rl = json::array();
  for (const Rlimit& r : t.rlimits) rl.push_back({{"resource", to_string(r.resource)}, {"value", r.value}});
  step("rlimits", rl);
  step("cgroup", {{"mechanism", to_string(t.cgroup.mechanism)},
                  {"memory_max", t.cgroup.memory_max ? json(*t.cgroup.memory_max) : json()},
                  {"pids_max", t.cgroup.pids_max ? json(*t.cgroup.pids_max) : json()}});
  step("private_tmpdir", t.private_tmpdir);
  json rules = json::array();
  for (const auto& r : t.landlock.path_rules) rules.push_back({{"path", r.path}, {"access", names_of(r.access)}});
  json scoped = json::array();
  for (const auto s : t.landlock.scoped) scoped.push_back(to_string(s));
  json carves = json::array();
  for (const auto& c : t.carves)
    carves.push_back({{"grant", c.grant}, {"access", names_of(c.access)}, {"denied", c.denied}, {"read_only", c.read_only}});
  json handled_net = json::array();
  for (const auto r : t.landlock.handled_net) handled_net.push_back(to_string(r));
  step("landlock", {{"abi", t.landlock.abi},
                    {"handled_fs", names_of(t.landlock.handled_fs)},
                    {"handled_net", handled_net},
                    {"path_rules", rules},
                    {"scoped", scoped},
                    {"carves", carves},
                    {"carve_budget", t.carve_budget}});
  json sc = json::array();
  for (const auto& s : t.seccomp)
    sc.push_back({{"syscall", s.syscall}, {"errno", s.errno_value}, {"arg_index", s.arg_index},
                  {"arg_op", to_string(s.arg_op)}, {"arg_value", s.arg_value}, {"arg_mask", s.arg_mask}});
  json families = json::array();
  for (const auto f : t.socket_families_allowed) families.push_back(to_string(f));
  step("seccomp", {{"default", "allow"}, {"rules", sc}, {"socket_families_allowed", families}});
  // Every connect(2) of the agent answered by the helper: a granted host port, else the broker.
  step("answer_connect", t.answer_connect);
  step("host_ports", t.host_ports);
  step("connect_via_broker", t.connect_via_broker);
  step("env", {{"pass", t.env.pass}, {"set", t.env.set}});
  step("wall_time_secs", t.wall_time_secs ? json(*t.wall_time_secs) : json());
  step("kill", "process group, cgroup where one exists, then every process reparented to the helper");
  return canonical_bytes(steps);
}

std::string over_budget_words() {
  return "refused when carving needs more than " + std::to_string(kCarveBudget) + " rules";
}

}  // namespace

std::vector<FieldCapability> landlock_tier_capability_matrix(const KernelProbe& probe) {
  const std::string carved =
      "no mount view: carved out of the grant's Landlock rules when the session starts (each "
      "directory between the grant and the path is listed, and every other entry gets the "
      "grant's rights; symlinks get none), " + over_budget_words();
  const std::string carve_loss =
      "the directories between the grant and the path can be listed but nothing can be created, "
      "removed or renamed directly in them (so no new file at the top of a project whose .git or "
      ".env is protected, and git cannot take its index lock in a protected .git: it reads, but "
      "cannot add or commit), and an entry added to them during the session gets no "
      "right; a denied directory's names can be listed (never its files read); a hard link to "
      "the file elsewhere in a grant is as readable as that grant; an entry replaced between "
      "the listing and the agent's start keeps the rights the listing gave";
  std::map<std::string, FieldCapability> over;
  const auto put = [&](FieldCapability c) { over[c.field] = std::move(c); };
  put(exact("fs.write_roots", "Landlock rights on the host's own paths (no mount view)"));
  put(exact("fs.read_roots", "Landlock read and execute rights on the host's own paths (no mount view)"));
  put(exact("fs.deny.outside_grants", "no Landlock right outside the grants"));
  put(partial("fs.deny.inside_read_root", carved, carve_loss));
  put(partial("fs.deny.inside_write_root", carved, carve_loss));
  put(partial("fs.deny.absent_inside_write_root", carved,
              "nothing can be created, removed or renamed in its parent directory from the sandbox; "
              "made there by another process during the session, it gets no right"));
  put(exact("fs.deny_write.outside_write_roots", "no Landlock write right covers it"));
  put(partial("fs.deny_write.inside_write_root", carved + "; the path gets read rights only", carve_loss));
  put(partial("fs.deny_write.absent_inside_write_root", carved,
              "nothing can be created, removed or renamed in its parent directory from the sandbox"));
  put(partial("fs.tmp_isolated", "a private TMPDIR in the session's directory (Landlock write rights)",
              "no private /tmp: /tmp is the host's and not granted, so a program that ignores TMPDIR "
              "and writes to /tmp fails; no private /dev/shm: POSIX shared memory and semaphores "
              "(shm_open, sem_open) fail"));
  put(exact("fs.mount_semantics=no_host_mounts", "the host's own mounts, unchanged; mount syscalls denied by seccomp"));
  put(unsupported("fs.review_roots",
                  "review mode's overlay needs a user namespace, which the landlock tier does not "
                  "have; run without --review"));
  put(unsupported("fs.agent_state",
                  "the agent's own state is an overlay, which needs a user namespace; set "
                  "filesystem.agent_state: shared, or use the namespace tier"));
  put(partial("fs.shared_agent_dirs", "Landlock write rights on your own agent directory, watched",
              "the agent writes your own agent directory, which your agent CLI reads outside Paddock: "
              "the helper compares before and after the session what that CLI loads at start (as "
              "fs.watched_configs says) and reports each change, but a change the agent restores "
              "before the session ends is not seen, and a report comes after the fact"));
  put(exact("egress.mode=off", "seccomp: socket(2) of every family fails (EAFNOSUPPORT), AF_INET, "
                               "AF_INET6 and AF_UNIX included; socketpair(2) works; with a host port "
                               "granted, TCP sockets whose every connect(2) the helper answers: that "
                               "port on this machine's 127.0.0.1, or refused"));
  const std::string via_broker =
      std::string("seccomp user notification: every connect(2) of the agent is stopped and answered by "
                  "the helper, which puts a socket of its own, connected to the session's broker, in "
                  "place of the agent's; the address the agent named is never used, and the broker's "
                  "port on the host's 127.0.0.1 serves the helper's connections only; TCP sockets only "
                  "(UDP, raw and every other family fail)") +
      (probe.landlock_abi >= 4 ? "; Landlock refuses the agent's own TCP bind and connect" : "");
  const std::string via_broker_loss =
      "no network namespace: the agent cannot listen on any TCP port (a dev server, or a test's own "
      "server on 127.0.0.1, fails to bind), every TCP connection it makes reaches the broker "
      "whatever address it names (127.0.0.1 included), and, unless you run Paddock as root, a "
      "process that marks itself non-dumpable cannot connect (the helper cannot read its descriptors)";
  for (const char* m : {"egress.mode=allowlist", "egress.mode=strict", "egress.mode=ask"})
    put(partial(m, via_broker + "; names checked, resolved once and pinned by the broker", via_broker_loss));
  put(unsupported("egress.git_ssh",
                  "git over ssh needs paddock-connect mounted into the sandbox as its ProxyCommand, "
                  "which needs a mount namespace; use git over HTTPS, or the namespace tier"));
  put(partial("egress.host_ports",
              "seccomp user notification: the helper reads the address of each connect(2) of the agent "
              "once, and for 127.0.0.1 or [::1] on a granted port connects a socket of its own to this "
              "machine's 127.0.0.1:<port> and puts it in place of the agent's (the kernel never connects "
              "what the agent wrote, so a changed address gains nothing); an event per connection",
              "the agent's socket is connected to the host's port itself, so its bytes are not counted; "
              "unless you run Paddock as root, a process that marks itself non-dumpable cannot connect"));
  for (const char* m : {"egress.bind_ports", "egress.connect_ports", "egress.publish"})
    put(unsupported(m, std::string(m) + " needs a network namespace of the sandbox's own (in the landlock tier "
                                        "the agent listens on no TCP port and its every TCP connection goes to "
                                        "the broker); remove it or use the namespace tier"));
  put(partial("egress.unix_ipc=always_allowed", "seccomp: socket(AF_UNIX) fails; socketpair(2) works",
              "no Unix socket can be made: without a network namespace or a mount view one could "
              "connect to any socket file your uid may open anywhere on the machine (the D-Bus bus, "
              "an ssh-agent, Docker's) and to the host's abstract sockets, which Landlock does not "
              "govern; tools that talk over a Unix socket (a language server, git's credential cache) fail"));
  put(unsupported("egress.unix_socket_files",
                  "the landlock tier refuses every Unix socket (see egress.unix_ipc); remove "
                  "unix_sockets.allow or use the namespace tier"));
  put(exact("egress.loopback_bind=false", "socket(AF_INET) and socket(AF_INET6) fail with the network off and "
                                          "no host port; otherwise bind(2) and listen(2) fail (EACCES)"));
  put(partial("process.exec_scope=allow_roots", "Landlock execute right",
              "programs can also be run from the private TMPDIR, which starts empty but is writable "
              "by the agent (as write roots are)"));
  put(exact("process.inheritance=same_policy", "Landlock and seccomp are inherited and cannot be lifted"));
  put(partial("process.detach_policy=contained_or_fail",
              "the agent leads a process group of its own; the helper is its child subreaper",
              std::string("no PID namespace: a process that leaves the group (setsid) runs until the "
                          "session's end, when every process reparented to the helper is killed; the "
                          "agent sees every process of the machine in /proc") +
                  (probe.landlock_abi >= 6 ? "" : ", and can signal every process of your uid (Landlock ABI 6 "
                                                   "scopes signals)")));
  const std::string drop = "no_new_privs (setuid ineffective); as root every capability is dropped from the "
                           "bounding, inheritable and ambient sets before exec, with SECBIT_NOROOT locked";
  if (probe.unprivileged) put(exact("process.privilege_drop", drop));
  else
    put(partial("process.privilege_drop", drop,
                "no user namespace: the agent keeps uid 0, so inside the read grants it reads what "
                "only root may read (/etc/shadow, ssh host keys) unless the policy denies it, and "
                "the kernel's root-only files in /proc (slabinfo, timer_list, kpageflags); the "
                "namespace tier shows root's files as nobody's there"));
  put(exact("secrets.inherited_credentials=deny",
            "no Landlock right outside the grants, and no Unix socket to reach an agent's"));
  put(unsupported("secrets.credentials",
                  "a brokered credential's endpoint is on the sandbox's own loopback, which needs a "
                  "network namespace; use the namespace tier"));
  put(unsupported("secrets.debug_upstreams", "no credential broker in the landlock tier"));
  put(unsupported("secrets.debug_upstream_ca", "no credential broker in the landlock tier"));
  const LimitChoice limits = choose_limits(probe);
  if (limits.processes == LimitVia::kRlimit && nproc_scope(probe) != NprocScope::kNotEnforced)
    put(partial("resources.processes", "RLIMIT_NPROC (no user namespace, no cgroup with the pids controller)",
                "without a user namespace RLIMIT_NPROC counts every process of your uid on the "
                "machine, not only the sandbox's: a fork in the sandbox is refused once you run "
                "that many processes in all"));
  const std::string kill = "process-group kill, cgroup.kill where a cgroup exists, then every process "
                           "reparented to the helper (its child subreaper) killed until none is left";
  const std::string kill_loss = "no PID namespace: a process that left the agent's group keeps running "
                                "until the sweep at the session's end";
  put(partial("resources.wall_time_secs", "helper timer, then " + kill, kill_loss));
  put(partial("lifecycle.cleanup=kill_tree", kill, kill_loss));
  put(partial("lifecycle.orphan_policy=kill", "orphans are reparented to the helper, which kills them at the end",
              kill_loss));
  // The rows both tiers share, as the namespace tier states them where its namespaces exist:
  // none of them depends on one here, and every row that does is replaced above.
  KernelProbe shared = probe;
  shared.user_ns = shared.mount_ns = shared.pid_ns = shared.net_ns = shared.ipc_ns = shared.uts_ns = true;
  std::vector<FieldCapability> out;
  for (FieldCapability c : linux_capability_matrix(shared)) {
    if (auto it = over.find(c.field); it != over.end()) c = it->second;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> landlock_tier_probe_refusals(const KernelProbe& p) {
  std::vector<std::string> out;
  if (p.landlock_abi < 1)
    out.push_back("the landlock tier needs Landlock, which this kernel does not have (ABI 0): boot "
                  "Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list");
  if (!p.seccomp_filter)
    out.push_back("the landlock tier needs seccomp filters, which this kernel does not have: enable "
                  "CONFIG_SECCOMP_FILTER");
  return out;
}

Result<LandlockTierCompiled> compile_landlock_tier_parts(const FrozenIr& ir, const KernelProbe& probe) {
  if (ir.meta.linux_tier != kTierLandlock)
    return refused("meta.linux_tier: " + ir.meta.linux_tier + " is not the landlock tier");
  auto ns = compile_linux_plan(ir, probe);
  if (!ns.ok()) return ns.error();
  LandlockTierCompiled out;
  out.tier_plan = tier_plan(ir, *ns);
  out.steps = steps_bytes(out.tier_plan);
  BackendPlan& plan = out.plan;
  plan.backend = "linux";
  plan.ir_hash = paddock::ir_hash(ir);
  plan.probe = to_json(probe);
  plan.capability_vector = capability_vector(landlock_tier_capability_matrix(probe), requested_fields(ir));
  plan.losses = losses_of(plan.capability_vector);
  plan.taint = ir.taint;
  plan.refusals = landlock_tier_probe_refusals(probe);
  for (auto& r : ir_refusals(ir)) plan.refusals.push_back(std::move(r));
  for (auto& r : refusals_of("linux", plan.capability_vector)) plan.refusals.push_back(std::move(r));
  return out;
}

}  // namespace paddock::linux_backend
