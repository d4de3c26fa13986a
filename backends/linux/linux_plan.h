// The Linux backend plan as data: the contract between the plan compiler (backends/linux) and
// paddock-helper (helpers/linux), which applies exactly these steps in this order. The helper
// recompiles this plan from the frozen IR and compares plan_hash before applying anything.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/linux/cgroup_choice.h"
#include "backends/linux/kernel_probe.h"
#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/schema.h"

namespace paddock::linux_backend {

// The plan and every struct in it are declared once (engine/schema.h) at the end of this header:
// the plan's steps, their canonical bytes (plan_hash) and its JSON are derived from the
// declaration of LinuxPlan, whose fields are the steps in the order the helper applies them.
// Every name the plan writes for a value of one of the enums below (and CgroupMechanism,
// cgroup_choice.h) comes from that enum's one table, its EnumNames; the helper maps each
// enumerator to the kernel's constant with a switch over every enumerator, so there is no
// unknown name to refuse.

// The agent's file system view is built on an empty tmpfs root inside the new mount namespace,
// then pivot_root'ed into. Steps run in order; targets are paths inside the new root, which
// equal the host paths (the view keeps host paths; it only omits, protects and masks). How the
// helper resolves and pins each target is described in docs/architecture.md ("The mount view").
enum class MountOp {
  kBindRo,             // bind source at target, read-only, nosuid, nodev (a read root)
  kBindRw,             // bind source at target read-write, nosuid, nodev (a write root)
  kOverlay,            // a write root in review mode: an overlay at target, nosuid, nodev, whose
                       //   lower layer is source (read-only) and whose upper and work directories
                       //   the helper makes in the session's directory (the n-th overlay step of the
                       //   plan: review/<n>/), so that nothing the agent writes reaches the host
  kAgentState,         // one of the agent's own directories (fs.agent_state): an overlay at
                       //   target, nosuid, nodev, whose lowest layer is source (the user's own
                       //   directory, read-only; an empty directory where the user has none) and
                       //   whose other layers are the agent's Paddock-owned state, which the helper
                       //   prepares (helpers/linux/agent_state_layers.h, docs/agents.md)
  kProtectDir,         // deny_write on a directory that exists: read-only bind of itself
  kProtectFile,        // deny_write on a non-directory that exists: read-only bind of itself
  kProtectAbsentDir,   // deny_write on an absent path: a placeholder (an empty directory, or an
  kProtectAbsentFile,  //   empty file) is made at its first missing component, bound read-only
  kProtectLink,        // a symlink kept as it is (deny_write or deny on the name of a symlink):
                       //   the link bound onto itself, so that it cannot be removed or replaced
  kProtectAbsentPointer,  // deny_write of an absent pointer file (git's commondir, which git
                          //   reads as an error when empty): as kProtectAbsentFile, the
                          //   placeholder holding "." (its own directory: what absence means)
  kMaskAbsent,         // deny on an absent path inside a write root: a placeholder as for
                       //   kProtectAbsent*, with a mask mounted over it
  kMaskFile,           // deny on a non-directory: an empty read-only file over it
  kMaskDir,            // deny on a directory: an empty read-only tmpfs (mode 0000) over it
  kExpectAbsent,       // deny on an absent path inside a read-only grant: it must still be absent
  kTmpfs,              // fresh private tmpfs at target (mode 1777, sized), e.g. /tmp
  kProc,               // new procfs for the new PID namespace at target
  kDev,                // minimal /dev: null zero full random urandom tty, pts, shm (sized tmpfs)
};
const char* to_string(MountOp op);

struct MountStep {
  MountOp op = MountOp::kBindRo;
  std::string source;  // host path (kBindRo/kBindRw); "" otherwise
  std::string target;  // path inside the new root
  // The grant whose bind holds target ("" when target sits in the view's own skeleton). The
  // helper resolves target from that bind's root, refusing symlinks and "..": a target that is
  // missing or of another kind than the IR recorded fails the session (125).
  std::string within;
  // within is a write root: every directory between it and target becomes a mount point of its
  // own, so that nothing in the sandbox can rename or remove it (the kernel refuses to move a
  // mount point), and a protected or masked path cannot be carried away from under its mount.
  bool pin = false;
  bool operator==(const MountStep&) const = default;
};

// Sizes of the sandbox's own tmpfs mounts (/tmp and /dev/shm): bytes and inodes. Their pages
// count against a cgroup's memory limit only where one exists, so they are bounded here too.
struct TmpfsSize {
  std::int64_t bytes = 0;
  std::int64_t inodes = 0;
  bool operator==(const TmpfsSize&) const = default;
};

// Landlock rights, as in <linux/landlock.h> and in the kernel's bit order; the compiler only
// uses rights valid for the plan's ABI (the helper refuses one the running kernel lacks).
enum class LandlockFsRight {
  kExecute, kWriteFile, kReadFile, kReadDir, kRemoveDir, kRemoveFile, kMakeChar,  // ABI 1
  kMakeDir, kMakeReg, kMakeSock, kMakeFifo, kMakeBlock, kMakeSym,                 // ABI 1
  kRefer,                                                                         // ABI 2
  kTruncate,                                                                      // ABI 3
  kIoctlDev,                                                                      // ABI 5
};
const char* to_string(LandlockFsRight right);

enum class LandlockNetRight { kBindTcp, kConnectTcp };  // ABI 4
const char* to_string(LandlockNetRight right);

enum class LandlockScope { kAbstractUnixSocket, kSignal };  // ABI 6
const char* to_string(LandlockScope scope);

struct LandlockPathRule {
  std::string path;
  std::vector<LandlockFsRight> access;
  bool operator==(const LandlockPathRule&) const = default;
};

struct LandlockNetRule {
  int port = 0;
  std::vector<LandlockNetRight> access;
  bool operator==(const LandlockNetRule&) const = default;
};

struct LandlockPlan {
  int abi = 0;                                // 0 = not applied (refused by check unless allowed)
  std::vector<LandlockFsRight> handled_fs;    // rights handled (denied unless a rule grants)
  std::vector<LandlockNetRight> handled_net;  // ABI >= 4
  std::vector<LandlockScope> scoped;          // ABI >= 6
  std::vector<LandlockPathRule> path_rules;
  std::vector<LandlockNetRule> net_rules;
  bool operator==(const LandlockPlan&) const = default;
};

// How a seccomp rule compares its argument: kNone (written "") for an unconditional rule,
// kMaskedEq ("masked_eq": (arg & mask) == value) otherwise.
enum class SeccompArgOp { kNone, kMaskedEq };
const char* to_string(SeccompArgOp op);

struct SeccompRule {
  std::string syscall;         // libseccomp name
  int errno_value = 1;         // EPERM unless stated (EAFNOSUPPORT for socket families)
  // Optional argument filter: deny only when arg[arg_index] <op> value.
  int arg_index = -1;          // -1 = unconditional
  SeccompArgOp arg_op = SeccompArgOp::kNone;
  std::uint64_t arg_value = 0;
  std::uint64_t arg_mask = 0;  // for masked_eq
  bool operator==(const SeccompRule&) const = default;
};

// The socket families the seccomp filter lets through (every other one fails with
// EAFNOSUPPORT); the values are the AF_* numbers of the Linux ABI.
enum class SocketFamily { kUnix = 1, kInet = 2, kInet6 = 10 };
const char* to_string(SocketFamily family);

struct SeccompPlan {
  std::string default_action = "allow";               // what a call no rule matches gets
  std::vector<SeccompRule> rules;
  std::vector<SocketFamily> socket_families_allowed;  // the rules deny every other
  bool operator==(const SeccompPlan&) const = default;
};

// Every sandbox gets new user, mount, PID, IPC, UTS and network namespaces and no_new_privs: they
// are not choices of the plan. Its bytes state them (steps "namespaces" and "no_new_privs"), and
// the helper does them unconditionally, whatever these members say.
struct Namespaces {
  bool ipc = true, mount = true, net = true, pid = true, user = true, uts = true;
  bool operator==(const Namespaces&) const = default;
};
enum class RlimitResource { kCpu, kData, kNproc, kNofile, kFsize, kCore };
const char* to_string(RlimitResource resource);

struct Rlimit {
  RlimitResource resource = RlimitResource::kCore;
  std::uint64_t value = 0;
  bool operator==(const Rlimit&) const = default;
};

// CPU time is RLIMIT_CPU's (the rlimits step), never the cgroup's.
struct CgroupPlan {
  CgroupMechanism mechanism = CgroupMechanism::kNone;
  std::optional<std::int64_t> memory_max;
  std::optional<std::int64_t> pids_max;
  bool operator==(const CgroupPlan&) const = default;
};

struct EnvPlan {
  std::map<std::string, std::string> set;   // set by Paddock (HOME, PATH, TMPDIR, proxies)
  std::vector<std::string> pass;            // names copied from the launch environment
  bool operator==(const EnvPlan&) const = default;
};

struct ProxyPlan {
  bool enabled = false;                     // egress relay via the broker (mode != off)
  NetMode mode = NetMode::kOff;             // IR egress mode
  int port_in_sandbox = 0;                  // 127.0.0.1:<port> inside the namespace (fixed)
  std::string git_ssh_connect;              // paddock-connect bound into the view ("" = no --git-ssh)
  // PADDOCK_DEBUG_RESOLVE (tainted test seam): the broker's fixed answers, from the IR.
  std::map<std::string, std::vector<std::string>> debug_resolve;
  bool operator==(const ProxyPlan&) const = default;
};

// One brokered credential (the IR's secrets.credentials; docs/credentials.md): init listens on
// 127.0.0.1:<port_in_sandbox> in the sandbox's network namespace and hands the socket to the
// helper, whose credential broker serves it from the host. `env` is what the agent gets, with
// ${endpoint} already written; the helper writes ${placeholder} when it starts the agent (the
// placeholder, like the key, is never in the plan).
struct CredentialPlan {
  std::string name;
  int port_in_sandbox = 0;
  std::string upstream;        // the host name TLS is verified for (and the Host header)
  int upstream_port = 443;
  std::string connect_to;      // PADDOCK_DEBUG_UPSTREAM: "127.0.0.1:PORT" instead of a lookup; ""
  std::string header;
  CredentialScheme scheme = CredentialScheme::kBearer;
  std::string basic_user;
  std::map<std::string, std::string> env;
  std::optional<std::int64_t> max_requests, max_bytes;
  std::int64_t max_request_bytes = 0, max_response_bytes = 0;
  bool operator==(const CredentialPlan&) const = default;
};

// The first credential endpoint's port in the sandbox; the next ones follow it, in the order of
// the IR's credentials (by name).
inline constexpr int kFirstCredentialPort = 3129;

// The plan's credentials step: the endpoints, and the extra CA file the broker trusts.
struct CredentialsStep {
  std::vector<CredentialPlan> endpoints;
  std::string extra_ca;  // PADDOCK_DEBUG_UPSTREAM_CA (tainted test seam), "" otherwise
  bool operator==(const CredentialsStep&) const = default;
};

// One entry of the plan's "limits" step: which mechanism carries a limit the IR sets.
enum class LimitName { kMemoryBytes, kProcesses };
const char* to_string(LimitName limit);

enum class LimitMechanism {
  kNone,  // nothing carries it on this machine: the capability row is unsupported, check() refuses
  kCgroupV1Memory, kCgroupV1Pids, kCgroupV2Memory, kCgroupV2Pids,
  kRlimitData, kRlimitNproc,
};
const char* to_string(LimitMechanism mechanism);

struct LimitEntry {
  LimitName limit = LimitName::kMemoryBytes;
  LimitMechanism mechanism = LimitMechanism::kNone;
  std::int64_t value = 0;
  bool operator==(const LimitEntry&) const = default;
};

// The plan's members are its steps, in the order the helper applies them (the declaration below
// names each step).
struct LinuxPlan {
  Namespaces namespaces;
  std::string hostname = "paddock";
  TmpfsSize tmpfs;  // each of /tmp and /dev/shm
  // The caller is root: every read-only grant is an idmapped mount on which the host's root (and
  // every other owner) shows as nobody, so that the agent, uid 0 without capabilities, reads only
  // what everyone may read there (root-only files such as /etc/shadow- or ssh host keys stay
  // closed). Write roots stay plain binds: the agent owns what it may write.
  bool idmap_read_roots = false;
  std::vector<MountStep> mounts;  // each a step of its own
  CgroupPlan cgroup;
  std::vector<Rlimit> rlimits;
  std::vector<LimitEntry> limits;  // which mechanism carries each limit the IR sets
  bool no_new_privs = true;
  LandlockPlan landlock;
  SeccompPlan seccomp;             // default action: allow
  EnvPlan env;
  ProxyPlan proxy;
  CredentialsStep credentials;
  // Host loopback ports the helper forwards to the same port on the sandbox's loopback (the IR's
  // egress.publish): it listens on the host's 127.0.0.1:<port> before the sandbox starts.
  std::vector<int> publish;
  // Host loopback ports the sandbox reaches (the IR's egress.host_ports): init listens on the
  // sandbox's 127.0.0.1:<port> before the agent starts, and the helper relays each connection to
  // the host's 127.0.0.1:<port>.
  std::vector<int> host_ports;
  std::optional<std::int64_t> wall_time_secs;
  bool operator==(const LinuxPlan&) const = default;
};

// The plan as one JSON object, each step under its name (for tests and debugging; plan.json
// holds the steps).
nlohmann::json to_json(const LinuxPlan& plan);

// The plan's "steps" array as canonical JSON bytes: one {"step": name, "value": ...} per member of
// LinuxPlan, in declaration order. plan_hash covers exactly these bytes; the plan JSON's steps
// are these bytes parsed.
std::string canonical_steps(const LinuxPlan& plan);

// The file system view as ordered mount steps (grants and the special mounts parents first, then
// protections and masks): the namespace tier applies them itself; the OCI backend writes the same
// view as an OCI runtime's mounts. sockets: named sockets to bind in; connect: paddock-connect's
// path, or "".
std::vector<MountStep> mount_steps(const IrFs& fs, const std::vector<std::string>& sockets,
                                   const std::string& connect);

// The directories a runtime that only mounts (OCI, Kubernetes) must make mount points of their own
// so that the agent cannot rename them away: every directory between a write root and a protected
// or masked path that exists (a path recorded absent may have missing parents), not itself a
// target of steps. The helper pins the same directories as it builds its view. Element i lists
// those to mount just before steps[i], parents first: each before the first step below it (a
// later mount of the directory would hide that step's mount).
std::vector<std::vector<std::string>> pins_before(const std::vector<MountStep>& steps);

// What fs.deny recorded at path (kAbsent when path is not denied): a runtime that masks an absent
// path mounts an empty directory or an empty file by it.
PathKind deny_kind(const IrFs& fs, const std::string& path);

// The size of each private tmpfs (/tmp, /dev/shm) under the IR's memory limit.
TmpfsSize tmpfs_size(const IrResources& res);

// The seccomp deny list every Linux sandbox gets (the namespace tier, the landlock tier and the OCI
// backend's profile), with socket(2) refused for every family but the given ones.
std::vector<SeccompRule> seccomp_rules(const std::vector<SocketFamily>& families);

// Compiles the Linux plan for this IR on a kernel described by probe. Pure: same inputs, same
// plan. Never widens the IR; what cannot be expressed is reported by the capability vector and
// refused by check().
Result<LinuxPlan> compile_linux_plan(const FrozenIr& ir, const KernelProbe& probe);

// The variables that send the agent's clients to the broker at host:port (HTTP_PROXY and its
// kin, each client's own), given the names the policy passes through from the launch (a passed
// JAVA_TOOL_OPTIONS is the user's, and wins). The sandbox's own relay is 127.0.0.1:3128.
std::map<std::string, std::string> proxy_env(const std::vector<std::string>& passed);
std::map<std::string, std::string> proxy_env(const std::vector<std::string>& passed, const std::string& host, int port);

// Wraps the Linux plan into the backend-neutral BackendPlan (steps, capability vector, losses,
// taint), ready for check() and plan_hash().
Result<BackendPlan> compile_linux(const FrozenIr& ir, const KernelProbe& probe);

// What compile_linux computes, for paddock-helper, which needs the typed plan to apply and the
// plan's hash, never the steps as a json tree: plan.steps stays empty and `steps` holds their
// canonical bytes, so plan_hash(plan, steps) == plan_hash(compile_linux(ir, probe)).
struct LinuxCompiled {
  LinuxPlan linux_plan;
  BackendPlan plan;
  std::string steps;
};
Result<LinuxCompiled> compile_linux_parts(const FrozenIr& ir, const KernelProbe& probe);

// The capability matrix for Linux on this kernel: every IR field, support x needs, loss.
std::vector<FieldCapability> linux_capability_matrix(const KernelProbe& probe);

// What refuses every plan on this kernel, whatever the IR asks (Landlock, user and mount
// namespaces, seccomp, IPC/UTS), one actionable line each, in the order check() reports them.
std::vector<std::string> linux_probe_refusals(const KernelProbe& probe);

}  // namespace paddock::linux_backend

// ---- The declarations (engine/schema.h) --------------------------------------------------------

namespace paddock::schema {

using namespace paddock::linux_backend;

template <>
struct EnumNames<MountOp> {
  static constexpr NameTable<MountOp, 17> values{{{MountOp::kBindRo, "bind_ro"},
                                                  {MountOp::kBindRw, "bind_rw"},
                                                  {MountOp::kOverlay, "overlay"},
                                                  {MountOp::kAgentState, "agent_state"},
                                                  {MountOp::kProtectDir, "protect_dir"},
                                                  {MountOp::kProtectFile, "protect_file"},
                                                  {MountOp::kProtectAbsentDir, "protect_absent_dir"},
                                                  {MountOp::kProtectAbsentFile, "protect_absent_file"},
                                                  {MountOp::kProtectLink, "protect_link"},
                                                  {MountOp::kProtectAbsentPointer, "protect_absent_pointer"},
                                                  {MountOp::kMaskAbsent, "mask_absent"},
                                                  {MountOp::kMaskFile, "mask_file"},
                                                  {MountOp::kMaskDir, "mask_dir"},
                                                  {MountOp::kExpectAbsent, "expect_absent"},
                                                  {MountOp::kTmpfs, "tmpfs"},
                                                  {MountOp::kProc, "proc"},
                                                  {MountOp::kDev, "dev"}}};
};

template <>
struct EnumNames<LandlockFsRight> {
  using R = LandlockFsRight;
  static constexpr NameTable<R, 16> values{{{R::kExecute, "execute"},       {R::kWriteFile, "write_file"},
                                            {R::kReadFile, "read_file"},     {R::kReadDir, "read_dir"},
                                            {R::kRemoveDir, "remove_dir"},   {R::kRemoveFile, "remove_file"},
                                            {R::kMakeChar, "make_char"},     {R::kMakeDir, "make_dir"},
                                            {R::kMakeReg, "make_reg"},       {R::kMakeSock, "make_sock"},
                                            {R::kMakeFifo, "make_fifo"},     {R::kMakeBlock, "make_block"},
                                            {R::kMakeSym, "make_sym"},       {R::kRefer, "refer"},
                                            {R::kTruncate, "truncate"},      {R::kIoctlDev, "ioctl_dev"}}};
};

template <>
struct EnumNames<LandlockNetRight> {
  static constexpr NameTable<LandlockNetRight, 2> values{
      {{LandlockNetRight::kBindTcp, "bind_tcp"}, {LandlockNetRight::kConnectTcp, "connect_tcp"}}};
};

template <>
struct EnumNames<LandlockScope> {
  static constexpr NameTable<LandlockScope, 2> values{
      {{LandlockScope::kAbstractUnixSocket, "abstract_unix_socket"}, {LandlockScope::kSignal, "signal"}}};
};

// An unconditional rule's comparison is written "".
template <>
struct EnumNames<SeccompArgOp> {
  static constexpr NameTable<SeccompArgOp, 2> values{{{SeccompArgOp::kNone, ""}, {SeccompArgOp::kMaskedEq, "masked_eq"}}};
};

template <>
struct EnumNames<SocketFamily> {
  static constexpr NameTable<SocketFamily, 3> values{
      {{SocketFamily::kUnix, "unix"}, {SocketFamily::kInet, "inet"}, {SocketFamily::kInet6, "inet6"}}};
};

template <>
struct EnumNames<RlimitResource> {
  using R = RlimitResource;
  static constexpr NameTable<R, 6> values{{{R::kCpu, "cpu"},
                                           {R::kData, "data"},
                                           {R::kNproc, "nproc"},
                                           {R::kNofile, "nofile"},
                                           {R::kFsize, "fsize"},
                                           {R::kCore, "core"}}};
};

template <>
struct EnumNames<LimitName> {
  static constexpr NameTable<LimitName, 2> values{
      {{LimitName::kMemoryBytes, "memory_bytes"}, {LimitName::kProcesses, "processes"}}};
};

template <>
struct EnumNames<LimitMechanism> {
  using M = LimitMechanism;
  static constexpr NameTable<M, 7> values{{{M::kNone, "none"},
                                           {M::kCgroupV1Memory, "cgroup_v1_memory"},
                                           {M::kCgroupV1Pids, "cgroup_v1_pids"},
                                           {M::kCgroupV2Memory, "cgroup_v2_memory"},
                                           {M::kCgroupV2Pids, "cgroup_v2_pids"},
                                           {M::kRlimitData, "rlimit_data"},
                                           {M::kRlimitNproc, "rlimit_nproc"}}};
};

template <>
struct Schema<MountStep> {
  static constexpr auto fields =
      std::make_tuple(field("op", &MountStep::op), field("source", &MountStep::source), field("target", &MountStep::target),
                      field("within", &MountStep::within), field("pin", &MountStep::pin));
};

template <>
struct Schema<TmpfsSize> {
  static constexpr auto fields = std::make_tuple(field("bytes", &TmpfsSize::bytes), field("inodes", &TmpfsSize::inodes));
};

template <>
struct Schema<LandlockPathRule> {
  static constexpr auto fields =
      std::make_tuple(field("path", &LandlockPathRule::path), field("access", &LandlockPathRule::access));
};

template <>
struct Schema<LandlockNetRule> {
  static constexpr auto fields =
      std::make_tuple(field("port", &LandlockNetRule::port), field("access", &LandlockNetRule::access));
};

template <>
struct Schema<LandlockPlan> {
  static constexpr auto fields = std::make_tuple(
      field("abi", &LandlockPlan::abi), field("handled_fs", &LandlockPlan::handled_fs),
      field("handled_net", &LandlockPlan::handled_net), field("scoped", &LandlockPlan::scoped),
      field("path_rules", &LandlockPlan::path_rules), field("net_rules", &LandlockPlan::net_rules));
};

template <>
struct Schema<SeccompRule> {
  static constexpr auto fields = std::make_tuple(
      field("syscall", &SeccompRule::syscall), field("errno", &SeccompRule::errno_value),
      field("arg_index", &SeccompRule::arg_index), field("arg_op", &SeccompRule::arg_op),
      field("arg_value", &SeccompRule::arg_value), field("arg_mask", &SeccompRule::arg_mask));
};

template <>
struct Schema<SeccompPlan> {
  static constexpr auto fields =
      std::make_tuple(field("default", &SeccompPlan::default_action), field("rules", &SeccompPlan::rules),
                      field("socket_families_allowed", &SeccompPlan::socket_families_allowed));
};

template <>
struct Schema<Namespaces> {
  static constexpr auto fields =
      std::make_tuple(field("user", &Namespaces::user), field("mount", &Namespaces::mount), field("pid", &Namespaces::pid),
                      field("ipc", &Namespaces::ipc), field("uts", &Namespaces::uts), field("net", &Namespaces::net));
};

template <>
struct Schema<Rlimit> {
  static constexpr auto fields = std::make_tuple(field("resource", &Rlimit::resource), field("value", &Rlimit::value));
};

template <>
struct Schema<CgroupPlan> {
  static constexpr auto fields =
      std::make_tuple(field("mechanism", &CgroupPlan::mechanism), field("memory_max", &CgroupPlan::memory_max),
                      field("pids_max", &CgroupPlan::pids_max));
};

template <>
struct Schema<EnvPlan> {
  static constexpr auto fields = std::make_tuple(field("set", &EnvPlan::set), field("pass", &EnvPlan::pass));
};

template <>
struct Schema<ProxyPlan> {
  static constexpr auto fields = std::make_tuple(
      field("enabled", &ProxyPlan::enabled), field("mode", &ProxyPlan::mode),
      field("port_in_sandbox", &ProxyPlan::port_in_sandbox), field("git_ssh_connect", &ProxyPlan::git_ssh_connect),
      field("debug_resolve", &ProxyPlan::debug_resolve));
};

template <>
struct Schema<LimitEntry> {
  static constexpr auto fields = std::make_tuple(field("limit", &LimitEntry::limit),
                                                 field("mechanism", &LimitEntry::mechanism), field("value", &LimitEntry::value));
};

// The steps, in the order the helper applies them; each key is the step's name.
template <>
struct Schema<CredentialPlan> {
  using C = CredentialPlan;
  static constexpr auto fields = std::make_tuple(
      field("name", &C::name), field("port_in_sandbox", &C::port_in_sandbox), field("upstream", &C::upstream),
      field("upstream_port", &C::upstream_port), field("connect_to", &C::connect_to), field("header", &C::header),
      field("scheme", &C::scheme), field("basic_user", &C::basic_user), field("env", &C::env),
      field("max_requests", &C::max_requests), field("max_bytes", &C::max_bytes),
      field("max_request_bytes", &C::max_request_bytes), field("max_response_bytes", &C::max_response_bytes));
};

template <>
struct Schema<CredentialsStep> {
  static constexpr auto fields =
      std::make_tuple(field("endpoints", &CredentialsStep::endpoints), field("extra_ca", &CredentialsStep::extra_ca));
};

template <>
struct Schema<LinuxPlan> {
  static constexpr auto fields = std::make_tuple(
      field("namespaces", &LinuxPlan::namespaces), field("hostname", &LinuxPlan::hostname),
      field("tmpfs_size", &LinuxPlan::tmpfs), field("idmap_read_roots", &LinuxPlan::idmap_read_roots),
      field("mount", &LinuxPlan::mounts, kStepEach), field("cgroup", &LinuxPlan::cgroup),
      field("rlimits", &LinuxPlan::rlimits), field("limits", &LinuxPlan::limits),
      field("no_new_privs", &LinuxPlan::no_new_privs), field("landlock", &LinuxPlan::landlock),
      field("seccomp", &LinuxPlan::seccomp), field("env", &LinuxPlan::env), field("proxy", &LinuxPlan::proxy),
      field("credentials", &LinuxPlan::credentials), field("publish", &LinuxPlan::publish), field("host_ports", &LinuxPlan::host_ports),
      field("wall_time_secs", &LinuxPlan::wall_time_secs));
};

}  // namespace paddock::schema
