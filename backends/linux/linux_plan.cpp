// The Linux plan compiler: frozen IR + kernel probe -> LinuxPlan (linux_plan.h). Pure and
// deterministic; paddock-helper applies the result step by step.
#include "backends/linux/linux_plan.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "backends/linux/cgroup_choice.h"
#include "backends/linux/kernel_abi.h"
#include "engine/capability.h"
#include "engine/credentials.h"

namespace paddock::linux_backend {
namespace {

// The fixed in-sandbox proxy port (helpers/linux/egress_relay.h kSandboxProxyPort; backends may
// not include helper headers, so the value is repeated and a helper test compares the two).
constexpr int kProxyPort = 3128;

using abi::kEafnosupport;
using abi::kEnosys;
using abi::kEperm;

using Fs = LandlockFsRight;

// Landlock access rights by the ABI that introduced them (<linux/landlock.h>).
std::vector<Fs> fs_rights_for_abi(int abi) {
  if (abi < 1) return {};
  std::vector<Fs> r = {Fs::kExecute,   Fs::kWriteFile, Fs::kReadFile,  Fs::kReadDir,  Fs::kRemoveDir,
                       Fs::kRemoveFile, Fs::kMakeChar, Fs::kMakeDir,   Fs::kMakeReg,  Fs::kMakeSock,
                       Fs::kMakeFifo,  Fs::kMakeBlock, Fs::kMakeSym};
  if (abi >= 2) r.push_back(Fs::kRefer);
  if (abi >= 3) r.push_back(Fs::kTruncate);
  if (abi >= 5) r.push_back(Fs::kIoctlDev);
  return r;
}

std::vector<Fs> read_rights() { return {Fs::kReadFile, Fs::kReadDir, Fs::kExecute}; }

std::vector<Fs> dev_rights(int abi) {
  std::vector<Fs> r = {Fs::kReadFile, Fs::kWriteFile, Fs::kReadDir};
  if (abi >= 5) r.push_back(Fs::kIoctlDev);
  return r;
}

// The innermost grant root that strictly contains path ("" if none), and whether it is a write
// root. A root equal to path is not its container: a step on a root itself sits on the root's own
// mount point.
struct Container {
  std::string root;
  bool writable = false;
};
Container container_of(const std::string& path, const IrFs& fs) {
  Container c;
  auto consider = [&](const std::string& r, bool writable) {
    if (r == path || !path_inside(path, r) || r.size() < c.root.size()) return;
    // The same path as a write and a read root: write already includes read.
    if (r.size() == c.root.size() && c.writable) return;
    c = {r, writable};
  };
  for (const std::string& r : fs.write_roots) consider(r, true);
  for (const std::string& r : fs.read_roots) consider(r, false);
  return c;
}

}  // namespace

// The file system view. Grants and the special mounts (/dev, /proc, /tmp) are sorted together
// by path so that a parent is always mounted before anything below it: a project under /tmp
// stays visible on top of the private /tmp, and a read root inside a write root is bound
// read-only after (over) its parent. At an equal path the special mount comes last, so a grant
// of /dev or /proc can never expose the host's. Then protections (deny_write) and masks (deny)
// together, sorted by path, so that the helper pins every directory above a target before it
// mounts anything below that directory; at an equal path the mask comes last (deny beats
// deny_write).
std::vector<MountStep> mount_steps(const IrFs& fs, const std::vector<std::string>& sockets,
                                   const std::string& connect) {
  struct Entry {
    std::string path;
    int rank;  // grants: 0 grant, 1 special; protections and masks: 0 protect, 1 mask
    MountStep step;
  };
  auto by_path = [](const Entry& a, const Entry& b) { return std::tie(a.path, a.rank) < std::tie(b.path, b.rank); };
  std::vector<Entry> grants;
  auto grant = [&](MountOp op, const std::string& p) {
    grants.push_back({p, 0, {op, p, p, container_of(p, fs).root, false}});
  };
  for (const std::string& r : fs.write_roots) {
    const bool review = std::find(fs.review_roots.begin(), fs.review_roots.end(), r) != fs.review_roots.end();
    const bool state = std::any_of(fs.agent_state.begin(), fs.agent_state.end(),
                                   [&](const AgentStateRoot& a) { return a.path == r; });
    grant(state ? MountOp::kAgentState : review ? MountOp::kOverlay : MountOp::kBindRw, r);
  }
  for (const std::string& r : fs.read_roots) {
    // The IR never lists a path in both; if it did, write already includes read.
    if (std::find(fs.write_roots.begin(), fs.write_roots.end(), r) != fs.write_roots.end()) continue;
    grant(MountOp::kBindRo, r);
  }
  // Named sockets the policy allows are bound into the view so that connect(2) can reach them
  // (Landlock does not govern connecting to a named socket); masks still cover them.
  for (const std::string& s : sockets) grant(MountOp::kBindRw, s);
  // --git-ssh: paddock-connect, the ssh ProxyCommand, read-only at its own host path.
  if (!connect.empty()) grant(MountOp::kBindRo, connect);
  grants.push_back({"/dev", 1, {MountOp::kDev, "", "/dev", "", false}});
  grants.push_back({"/proc", 1, {MountOp::kProc, "", "/proc", "", false}});
  if (fs.tmp_isolated) grants.push_back({"/tmp", 1, {MountOp::kTmpfs, "", "/tmp", "", false}});
  std::sort(grants.begin(), grants.end(), by_path);
  std::vector<MountStep> out;
  for (const Entry& e : grants) out.push_back(e.step);

  // A path under a directory mask is hidden whole: nothing below it needs a step (and its
  // resolution would end in the mask's empty tmpfs).
  std::vector<std::string> masked_dirs;
  for (const DenyEntry& d : fs.deny)
    if (d.kind == PathKind::kDir && !container_of(d.path, fs).root.empty()) masked_dirs.push_back(d.path);
  auto under_mask = [&](const std::string& p) {
    return std::any_of(masked_dirs.begin(), masked_dirs.end(),
                       [&](const std::string& m) { return m != p && path_inside(p, m); });
  };
  std::set<std::string> denied;
  for (const DenyEntry& d : fs.deny) denied.insert(d.path);

  std::vector<Entry> guards;
  // deny_write: only inside a write root; anywhere else nothing can write it (a read-only bind,
  // or not in the view at all). A path that is also denied is masked instead.
  for (const DenyEntry& d : fs.deny_write) {
    const Container c = container_of(d.path, fs);
    if (!c.writable || denied.count(d.path) || under_mask(d.path)) continue;
    MountOp op = MountOp::kProtectFile;
    switch (d.kind) {
      case PathKind::kDir: op = MountOp::kProtectDir; break;
      case PathKind::kFile: op = MountOp::kProtectFile; break;
      case PathKind::kAbsent: op = MountOp::kProtectAbsentFile; break;
      case PathKind::kAbsentDir: op = MountOp::kProtectAbsentDir; break;
      case PathKind::kAbsentPointer: op = MountOp::kProtectAbsentPointer; break;
      case PathKind::kSymlink: op = MountOp::kProtectLink; break;
    }
    guards.push_back({d.path, 0, {op, "", d.path, c.root, true}});
  }
  // deny: masks over every path a grant would otherwise show. Outside every grant the path is
  // already invisible. An absent path inside a read-only grant must stay absent until the view is
  // built (nothing in the sandbox can create it); inside a write root it is kept absent for the
  // whole session, as a write-protected one is (a deny is at least a write protection).
  for (const DenyEntry& d : fs.deny) {
    const Container c = container_of(d.path, fs);
    if (c.root.empty() || under_mask(d.path)) continue;
    MountOp op = MountOp::kMaskFile;
    switch (d.kind) {
      case PathKind::kDir: op = MountOp::kMaskDir; break;
      case PathKind::kFile: op = MountOp::kMaskFile; break;
      case PathKind::kAbsent:
      case PathKind::kAbsentDir:
      case PathKind::kAbsentPointer: op = c.writable ? MountOp::kMaskAbsent : MountOp::kExpectAbsent; break;
      case PathKind::kSymlink: op = MountOp::kProtectLink; break;  // its target is a deny of its own
    }
    guards.push_back({d.path, 1, {op, "", d.path, c.root, c.writable && op != MountOp::kExpectAbsent}});
  }
  std::sort(guards.begin(), guards.end(), by_path);
  for (const Entry& e : guards) out.push_back(e.step);
  return out;
}

std::vector<std::vector<std::string>> pins_before(const std::vector<MountStep>& steps) {
  std::set<std::string> targets, pins;
  for (const MountStep& m : steps) targets.insert(m.target);
  for (const MountStep& m : steps) {
    const bool exists = m.op == MountOp::kProtectDir || m.op == MountOp::kProtectFile ||
                        m.op == MountOp::kMaskDir || m.op == MountOp::kMaskFile;
    if (!m.pin || !exists || m.within.empty()) continue;
    for (std::size_t at = m.target.find('/', m.within.size() + 1); at != std::string::npos;
         at = m.target.find('/', at + 1))
      if (!targets.count(m.target.substr(0, at))) pins.insert(m.target.substr(0, at));
  }
  std::vector<std::vector<std::string>> out(steps.size());
  std::set<std::string> placed;
  for (std::size_t i = 0; i < steps.size(); ++i)
    for (const std::string& dir : pins)
      if (path_inside(steps[i].target, dir) && dir != steps[i].target && placed.insert(dir).second)
        out[i].push_back(dir);
  return out;
}

PathKind deny_kind(const IrFs& fs, const std::string& path) {
  for (const DenyEntry& d : fs.deny)
    if (d.path == path) return d.kind;
  return PathKind::kAbsent;
}

// /tmp and /dev/shm each get half the memory limit, so the two together hold at most the limit
// (without a cgroup, tmpfs pages count against no rlimit); one inode per 16 KiB, at least 4,096.
// Without a memory limit the kernel's default size (half of RAM) applies.
TmpfsSize tmpfs_size(const IrResources& res) {
  TmpfsSize t;
  if (!res.memory_bytes) return t;
  t.bytes = std::max<std::int64_t>(*res.memory_bytes / 2, 1 << 20);
  t.inodes = std::max<std::int64_t>(t.bytes / 16384, 4096);
  return t;
}

namespace {

// The credential endpoints, in the IR's order (by name), each on its own loopback port.
std::vector<CredentialPlan> credential_plans(const FrozenIr& ir) {
  std::vector<CredentialPlan> out;
  int port = kFirstCredentialPort;
  for (const auto& c : ir.secrets.credentials) {
    CredentialPlan p;
    p.name = c.name;
    p.port_in_sandbox = port++;
    p.upstream = c.upstream;
    p.upstream_port = c.port;
    if (auto it = ir.secrets.debug_upstreams.find(c.upstream); it != ir.secrets.debug_upstreams.end()) p.connect_to = it->second;
    p.header = c.header;
    p.scheme = c.scheme;
    p.basic_user = c.basic_user;
    const std::string endpoint = "http://127.0.0.1:" + std::to_string(p.port_in_sandbox);
    for (const auto& [var, value] : c.env) p.env[var] = expand_credential_template(value, endpoint, kPlaceholderToken);
    p.max_requests = c.max_requests;
    p.max_bytes = c.max_bytes;
    p.max_request_bytes = c.max_request_bytes;
    p.max_response_bytes = c.max_response_bytes;
    out.push_back(std::move(p));
  }
  return out;
}

LandlockPlan landlock_plan(const FrozenIr& ir, int abi, bool relay, const std::string& connect,
                           const std::vector<CredentialPlan>& credentials) {
  LandlockPlan l;
  l.abi = abi;
  if (abi < 1) return l;  // check() refuses: Landlock is required on Linux
  l.handled_fs = fs_rights_for_abi(abi);
  std::vector<LandlockPathRule> rules;
  for (const std::string& r : ir.fs.read_roots) rules.push_back({r, read_rights()});
  for (const std::string& r : ir.fs.write_roots) rules.push_back({r, l.handled_fs});
  rules.push_back({"/dev", dev_rights(abi)});
  rules.push_back({"/dev/shm", l.handled_fs});  // private tmpfs inside the minimal /dev
  rules.push_back({"/proc", {Fs::kReadFile, Fs::kReadDir}});
  if (ir.fs.tmp_isolated) rules.push_back({"/tmp", l.handled_fs});
  if (!connect.empty()) rules.push_back({connect, {Fs::kExecute, Fs::kReadFile}});  // a file: no dir rights
  // One rule per path: a path that is both a read root and something else gets the union.
  std::sort(rules.begin(), rules.end(),
            [](const LandlockPathRule& a, const LandlockPathRule& b) { return a.path < b.path; });
  for (const LandlockPathRule& r : rules) {
    if (!l.path_rules.empty() && l.path_rules.back().path == r.path) {
      auto& acc = l.path_rules.back().access;
      for (const Fs a : r.access)
        if (std::find(acc.begin(), acc.end(), a) == acc.end()) acc.push_back(a);
    } else {
      l.path_rules.push_back(r);
    }
  }
  // Keep each access list in the ABI's canonical order, so the plan bytes do not depend on
  // which rule was merged first.
  for (auto& r : l.path_rules) {
    std::vector<Fs> ordered;
    for (const Fs a : l.handled_fs)
      if (std::find(r.access.begin(), r.access.end(), a) != r.access.end()) ordered.push_back(a);
    r.access = ordered;
  }
  if (abi >= 4 && !ir.egress.loopback_bind) {
    // network.loopback_bind: false. TCP is handled even with no rules: Landlock denies every
    // TCP bind and connect but the relay's, as a second wall behind the network namespace.
    // By default neither is handled: the namespace is the sandbox's own, with loopback only
    // (the relay the one way out), so binding and connecting there reach only the agent's own
    // servers, and Landlock's port rules cannot tell loopback from anything else.
    l.handled_net = {LandlockNetRight::kBindTcp, LandlockNetRight::kConnectTcp};
    std::vector<LandlockNetRule> net;
    if (relay) net.push_back({kProxyPort, {LandlockNetRight::kConnectTcp}});
    for (const auto& c : credentials) net.push_back({c.port_in_sandbox, {LandlockNetRight::kConnectTcp}});
    for (int p : ir.egress.connect_ports) net.push_back({p, {LandlockNetRight::kConnectTcp}});
    for (int p : ir.egress.host_ports) net.push_back({p, {LandlockNetRight::kConnectTcp}});
    for (int p : ir.egress.bind_ports) net.push_back({p, {LandlockNetRight::kBindTcp}});
    std::sort(net.begin(), net.end(),
              [](const LandlockNetRule& a, const LandlockNetRule& b) { return a.port < b.port; });
    for (const LandlockNetRule& r : net) {
      if (!l.net_rules.empty() && l.net_rules.back().port == r.port) {
        auto& acc = l.net_rules.back().access;
        if (std::find(acc.begin(), acc.end(), r.access[0]) == acc.end()) acc.push_back(r.access[0]);
        std::sort(acc.begin(), acc.end());
      } else {
        l.net_rules.push_back(r);
      }
    }
  }
  if (abi >= 6) l.scoped = {LandlockScope::kAbstractUnixSocket, LandlockScope::kSignal};
  return l;
}

// POSIX shell single quoting: 'it'\''s'.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SeccompRule deny(const std::string& name) { return SeccompRule{name, kEperm, -1, SeccompArgOp::kNone, 0, 0}; }

// A 32-bit argument compared on its low 32 bits only: the kernel truncates int arguments, so
// a plain 64-bit "eq" could be bypassed by setting the upper half of the register.
SeccompRule deny_low32(const std::string& name, int arg, std::uint64_t value, int err) {
  return SeccompRule{name, err, arg, SeccompArgOp::kMaskedEq, value, 0xFFFFFFFFull};
}

}  // namespace

std::vector<SeccompRule> seccomp_rules(const std::vector<SocketFamily>& families) {
  std::vector<SeccompRule> r;
  for (const char* name :
       {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "mount", "umount2",
        "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
        "pivot_root", "chroot", "bpf", "perf_event_open", "kexec_load", "kexec_file_load",
        "init_module", "finit_module", "delete_module", "keyctl", "add_key", "request_key",
        "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "unshare",
        "setns", "acct", "swapon", "swapoff", "reboot", "quotactl", "name_to_handle_at",
        "open_by_handle_at"})
    r.push_back(deny(name));
  // New namespaces via clone flags (unshare and setns are denied above). clone3 passes its flags
  // in memory that seccomp cannot read, so it answers ENOSYS and libc falls back to clone.
  for (std::uint64_t flag : abi::kNamespaceCloneFlags)
    r.push_back(SeccompRule{"clone", kEperm, 0, SeccompArgOp::kMaskedEq, flag, flag});
  r.push_back(SeccompRule{"clone3", kEnosys, -1, SeccompArgOp::kNone, 0, 0});
  r.push_back(deny_low32("ioctl", 1, abi::kTiocsti, kEperm));
  r.push_back(deny_low32("ioctl", 1, abi::kTioclinux, kEperm));
  // socket(): every family but the allowed ones fails with EAFNOSUPPORT. Families 0..63 are
  // listed one by one; any value >= 64 has one of bits 6..31 set.
  const auto allowed = [&](std::uint64_t fam) {
    return std::any_of(families.begin(), families.end(),
                       [&](SocketFamily f) { return static_cast<std::uint64_t>(f) == fam; });
  };
  for (std::uint64_t fam = 0; fam < 64; ++fam)
    if (!allowed(fam)) r.push_back(deny_low32("socket", 0, fam, kEafnosupport));
  for (int bit = 6; bit < 32; ++bit) {
    const std::uint64_t b = 1ull << bit;
    r.push_back(SeccompRule{"socket", kEafnosupport, 0, SeccompArgOp::kMaskedEq, b, b});
  }
  return r;
}

namespace {

// Memory and processes go either to the cgroup or to an rlimit (choose_limits), never both:
// the plan says which, and the capability vector says what each one means. No RLIMIT_AS: an
// address-space cap counts PROT_NONE reservations (V8's pointer cage and wasm guard regions
// reserve tens of GiB), so it stops Node-based agents long before they use real memory, and
// memory.max or RLIMIT_DATA bound what it would have bounded.
std::vector<Rlimit> rlimits(const IrResources& res, const LimitChoice& choice) {
  std::vector<Rlimit> r;
  const auto add = [&](RlimitResource resource, const std::optional<std::int64_t>& v) {
    if (v) r.push_back({resource, static_cast<std::uint64_t>(*v)});
  };
  add(RlimitResource::kCpu, res.cpu_seconds);
  if (choice.memory == LimitVia::kRlimit) add(RlimitResource::kData, res.memory_bytes);
  if (choice.processes == LimitVia::kRlimit) add(RlimitResource::kNproc, res.processes);
  add(RlimitResource::kNofile, res.open_files);
  add(RlimitResource::kFsize, res.file_size_bytes);
  r.push_back({RlimitResource::kCore, 0});
  return r;
}

// The limits step: which mechanism carries each limit this IR sets (the capability vector says
// what it means).
std::vector<LimitEntry> limits_step(const FrozenIr& ir, const LimitChoice& choice) {
  const auto via = [&](LimitVia v, LimitMechanism v1, LimitMechanism v2, LimitMechanism rlimit) {
    switch (v) {
      case LimitVia::kCgroup: return choice.cgroup == CgroupMechanism::kV2 ? v2 : v1;
      case LimitVia::kRlimit: return rlimit;
      case LimitVia::kNone: break;
    }
    return LimitMechanism::kNone;
  };
  std::vector<LimitEntry> out;
  if (ir.resources.memory_bytes)
    out.push_back({LimitName::kMemoryBytes,
                   via(choice.memory, LimitMechanism::kCgroupV1Memory, LimitMechanism::kCgroupV2Memory,
                       LimitMechanism::kRlimitData),
                   *ir.resources.memory_bytes});
  if (ir.resources.processes)
    out.push_back({LimitName::kProcesses,
                   via(choice.processes, LimitMechanism::kCgroupV1Pids, LimitMechanism::kCgroupV2Pids,
                       LimitMechanism::kRlimitNproc),
                   *ir.resources.processes});
  return out;
}

}  // namespace

const char* to_string(MountOp op) { return schema::enum_name(op).data(); }
const char* to_string(LandlockFsRight right) { return schema::enum_name(right).data(); }
const char* to_string(LandlockNetRight right) { return schema::enum_name(right).data(); }
const char* to_string(LandlockScope scope) { return schema::enum_name(scope).data(); }
const char* to_string(SeccompArgOp op) { return schema::enum_name(op).data(); }
const char* to_string(SocketFamily family) { return schema::enum_name(family).data(); }
const char* to_string(RlimitResource resource) { return schema::enum_name(resource).data(); }
const char* to_string(LimitName limit) { return schema::enum_name(limit).data(); }
const char* to_string(LimitMechanism mechanism) { return schema::enum_name(mechanism).data(); }

std::map<std::string, std::string> proxy_env(const std::vector<std::string>& passed, const std::string& host, int port) {
  std::map<std::string, std::string> env;
  // The relay speaks HTTP CONNECT and SOCKS5 on one port. ALL_PROXY uses socks5h so that
  // clients send the name, not a locally resolved address: names resolve on the host only.
  const std::string http = "http://" + host + ":" + std::to_string(port);
  const std::string socks = "socks5h://" + host + ":" + std::to_string(port);
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
    env[name] = http;
  env["ALL_PROXY"] = socks;
  env["all_proxy"] = socks;
  // The sandbox's loopback is its own (a server the agent starts, a forwarded host port, the
  // credential endpoints): never sent to the relay, which refuses every address literal anyway
  // (docs/network.md).
  // "[::1]" too: Python matches the bracketed host of a URL against the list as written.
  const std::string loopback = "localhost,127.0.0.1,::1,[::1]";
  env["NO_PROXY"] = loopback;
  env["no_proxy"] = loopback;
  // Clients that read a proxy setting of their own: gRPC (an http:// URL), the Google Cloud
  // CLI, and Java (system properties through JAVA_TOOL_OPTIONS, which every JVM reads), unless
  // the policy passes the user's own JAVA_TOOL_OPTIONS through.
  env["GRPC_PROXY"] = http;
  env["grpc_proxy"] = http;
  env["NO_GRPC_PROXY"] = loopback;
  env["no_grpc_proxy"] = loopback;
  env["CLOUDSDK_PROXY_TYPE"] = "http";
  env["CLOUDSDK_PROXY_ADDRESS"] = host;
  env["CLOUDSDK_PROXY_PORT"] = std::to_string(port);
  if (std::find(passed.begin(), passed.end(), "JAVA_TOOL_OPTIONS") == passed.end()) {
    const std::string p = std::to_string(port);
    const std::string java_loopback = "localhost|127.*|[::1]";
    env["JAVA_TOOL_OPTIONS"] = "-Dhttp.proxyHost=" + host + " -Dhttp.proxyPort=" + p + " -Dhttps.proxyHost=" + host +
                               " -Dhttps.proxyPort=" + p + " -Dhttp.nonProxyHosts=" + java_loopback +
                               " -DsocksProxyHost=" + host + " -DsocksProxyPort=" + p + " -DsocksNonProxyHosts=" + java_loopback;
  }
  return env;
}

std::map<std::string, std::string> proxy_env(const std::vector<std::string>& passed) {
  return proxy_env(passed, "127.0.0.1", kProxyPort);
}

Result<LinuxPlan> compile_linux_plan(const FrozenIr& ir, const KernelProbe& probe) {
  LinuxPlan p;
  const bool relay = ir.egress.mode != NetMode::kOff;
  // A host connection to the published relay port would reach the egress relay, not the agent.
  if (relay && std::find(ir.egress.publish.begin(), ir.egress.publish.end(), kProxyPort) != ir.egress.publish.end())
    return refused("network.publish: port " + std::to_string(kProxyPort) +
                   " is the egress relay's inside the sandbox when the network is filtered; publish another port");
  // Review mode holds the writes of write roots only; a review root that is not one would be a
  // request nothing in the plan carries.
  for (const std::string& r : ir.fs.review_roots)
    if (std::find(ir.fs.write_roots.begin(), ir.fs.write_roots.end(), r) == ir.fs.write_roots.end())
      return refused("fs.review_roots: " + r + " is not a write root; nothing was run");
  // The agent's own state is kept per agent in a directory the helper prepares; each of its roots
  // is a write root shown as an overlay, never also held for review.
  for (const AgentStateRoot& a : ir.fs.agent_state) {
    if (std::find(ir.fs.write_roots.begin(), ir.fs.write_roots.end(), a.path) == ir.fs.write_roots.end())
      return refused("fs.agent_state: " + a.path + " is not a write root; nothing was run");
    if (std::find(ir.fs.review_roots.begin(), ir.fs.review_roots.end(), a.path) != ir.fs.review_roots.end())
      return refused("fs.agent_state: " + a.path + " is also a review root; nothing was run");
    if (ir.fs.agent_state_dir.empty() || ir.fs.agent_state_dir[0] != '/')
      return refused("fs.agent_state: no directory to keep the agent's state in; nothing was run");
  }
  // Forwarded by the helper from the host's loopback (helpers/linux/port_forward.h).
  p.publish = ir.egress.publish;
  p.credentials.endpoints = credential_plans(ir);
  p.credentials.extra_ca = ir.secrets.debug_upstream_ca;
  for (const auto& c : p.credentials.endpoints)
    if (std::find(ir.egress.publish.begin(), ir.egress.publish.end(), c.port_in_sandbox) != ir.egress.publish.end())
      return refused("network.publish: port " + std::to_string(c.port_in_sandbox) + " is the endpoint of the brokered credential " +
                     c.name + " inside the sandbox; publish another port");
  // The relay's port inside the sandbox is taken when the network is filtered.
  if (relay && std::find(ir.egress.host_ports.begin(), ir.egress.host_ports.end(), kProxyPort) != ir.egress.host_ports.end())
    return refused("network.host_ports: port " + std::to_string(kProxyPort) +
                   " is the egress relay's inside the sandbox when the network is filtered; move the host's service to "
                   "another port");
  // Relayed by the helper to the host's loopback (helpers/linux/host_ports.h).
  p.host_ports = ir.egress.host_ports;
  for (const auto& c : p.credentials.endpoints)
    if (std::find(ir.egress.host_ports.begin(), ir.egress.host_ports.end(), c.port_in_sandbox) != ir.egress.host_ports.end())
      return refused("network.host_ports: port " + std::to_string(c.port_in_sandbox) +
                     " is the endpoint of the brokered credential " + c.name +
                     " inside the sandbox; move the host's service to another port");
  // Without the relay --git-ssh has nowhere to go (check() refuses it); bind nothing then.
  const std::string connect = relay && ir.egress.git_ssh ? ir.egress.git_ssh_connect : "";
  p.mounts = mount_steps(ir.fs, ir.egress.unix_socket_files, connect);
  p.tmpfs = tmpfs_size(ir.resources);
  p.idmap_read_roots = probe.host_root;
  p.landlock = landlock_plan(ir, probe.landlock_abi, relay, connect, p.credentials.endpoints);
  p.seccomp.socket_families_allowed = {SocketFamily::kUnix, SocketFamily::kInet, SocketFamily::kInet6};
  p.seccomp.rules = seccomp_rules(p.seccomp.socket_families_allowed);
  const LimitChoice limits = choose_limits(probe);
  p.rlimits = rlimits(ir.resources, limits);
  p.limits = limits_step(ir, limits);
  const bool memory_in_cgroup = ir.resources.memory_bytes && limits.memory == LimitVia::kCgroup;
  const bool pids_in_cgroup = ir.resources.processes && limits.processes == LimitVia::kCgroup;
  // A leaf only where a limit needs one. Without a limit it would add nothing: the PID
  // namespace is the kill tree (init's exit kills every process in it, and seccomp denies the
  // calls that could leave it), and the session's usage comes from wait4 on init. It did cost
  // every session a mkdir, a clone into it, four reads and an rmdir in cgroupfs.
  p.cgroup.mechanism = memory_in_cgroup || pids_in_cgroup ? limits.cgroup : CgroupMechanism::kNone;
  if (memory_in_cgroup) p.cgroup.memory_max = ir.resources.memory_bytes;
  if (pids_in_cgroup) p.cgroup.pids_max = ir.resources.processes;
  p.env.set = ir.env.set;
  p.env.pass = ir.env.passed_names;
  p.proxy.mode = ir.egress.mode;
  if (relay) {
    p.proxy.enabled = true;
    p.proxy.port_in_sandbox = kProxyPort;
    for (auto& [k, v] : proxy_env(p.env.pass)) p.env.set[k] = std::move(v);
    p.proxy.debug_resolve = ir.egress.debug_resolve;
    if (!connect.empty()) {
      // git runs GIT_SSH_COMMAND through sh; ssh runs the ProxyCommand through the shell too.
      // StrictHostKeyChecking=yes: an unknown host key fails the connection instead of being
      // trusted on first use (the user's known_hosts is in the denied ~/.ssh). CheckHostIP=no:
      // there is no resolver in the sandbox, the broker resolves.
      p.proxy.git_ssh_connect = connect;
      p.env.set["GIT_SSH_COMMAND"] = "ssh -o " + sh_quote("ProxyCommand=" + sh_quote(connect) + " %h %p") +
                                     " -o StrictHostKeyChecking=yes -o CheckHostIP=no";
    }
  }
  p.wall_time_secs = ir.resources.wall_time_secs;
  return p;
}

}  // namespace paddock::linux_backend
