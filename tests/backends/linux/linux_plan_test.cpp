#include <QtTest>

#include <algorithm>
#include <set>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "engine/capability.h"
#include "helpers/linux/egress_relay.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::linux_backend;
using paddock::test::probe_abi;
using paddock::test::relay_ir;
using paddock::test::typical_ir;
using nlohmann::json;

namespace {

LinuxPlan plan_of(const FrozenIr& ir, const KernelProbe& p) {
  auto r = compile_linux_plan(ir, p);
  if (!r.ok()) qFatal("%s", r.error().message.c_str());
  return *r;
}

int index_of(const std::vector<MountStep>& m, MountOp op, const std::string& target) {
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i].op == op && m[i].target == target) return static_cast<int>(i);
  return -1;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A list of enumerators as the plan writes them.
template <typename Enum>
std::vector<std::string> names(const std::vector<Enum>& list) {
  std::vector<std::string> out;
  for (const Enum e : list) out.push_back(to_string(e));
  return out;
}

const FieldCapability* row(const BackendPlan& p, const std::string& field) {
  for (const auto& c : p.capability_vector)
    if (c.field == field) return &c;
  return nullptr;
}

}  // namespace

class LinuxPlanTest : public QObject {
  Q_OBJECT
 private slots:
  void every_namespace_is_new_and_net_off_gets_no_proxy() {
    auto p = plan_of(typical_ir(), probe_abi(7));
    const json written = to_json(p);
    QCOMPARE(written["namespaces"],
             json({{"ipc", true}, {"mount", true}, {"net", true}, {"pid", true}, {"user", true}, {"uts", true}}));
    QCOMPARE(written["no_new_privs"], json(true));
    QVERIFY(!p.proxy.enabled);
    QCOMPARE(p.proxy.port_in_sandbox, 0);
    QVERIFY(!p.env.set.count("HTTP_PROXY"));
  }

  // The helper forwards what the plan says, in every mode; the relay's own port cannot be
  // published while the relay holds it (a host client would reach the broker, not the agent).
  void the_plan_carries_the_published_ports_and_refuses_the_relays_port() {
    FrozenIr off = typical_ir();
    off.egress.publish = {1455, 3000};
    QCOMPARE(plan_of(off, probe_abi(7)).publish, (std::vector<int>{1455, 3000}));
    QVERIFY(plan_of(typical_ir(), probe_abi(7)).publish.empty());
    off.egress.publish = {3128};
    QCOMPARE(plan_of(off, probe_abi(7)).publish, (std::vector<int>{3128}));  // no relay in mode off
    FrozenIr relay = relay_ir();
    relay.egress.publish = {3000};
    QCOMPARE(plan_of(relay, probe_abi(7)).publish, (std::vector<int>{3000}));
    relay.egress.publish = {3000, 3128};
    auto refused = compile_linux_plan(relay, probe_abi(7));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().exit_code(), 125);
    QVERIFY2(refused.error().message.find("network.publish: port 3128") == 0, refused.error().message.c_str());
  }

  // Host ports: in every mode (the helper relays them outside the broker), refused on the relay's
  // own port while the relay holds it, and connectable under network.loopback_bind: false.
  void the_plan_carries_the_host_ports_and_lets_the_agent_connect_to_them() {
    FrozenIr off = typical_ir();
    off.egress.host_ports = {1234, 11434};
    QCOMPARE(plan_of(off, probe_abi(7)).host_ports, (std::vector<int>{1234, 11434}));
    QCOMPARE(to_json(plan_of(off, probe_abi(7)))["host_ports"], json({1234, 11434}));
    FrozenIr relay = relay_ir();
    relay.egress.host_ports = {3128};
    auto refused = compile_linux_plan(relay, probe_abi(7));
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("network.host_ports: port 3128") == 0, refused.error().message.c_str());
    relay.egress.host_ports = {11434};
    relay.egress.loopback_bind = false;
    const auto closed = plan_of(relay, probe_abi(7));
    bool connectable = false;
    for (const auto& r : closed.landlock.net_rules) connectable = connectable || r.port == 11434;
    QVERIFY(connectable);
  }

  void a_relay_mode_points_every_proxy_variable_at_the_fixed_port() {
    auto p = plan_of(relay_ir(), probe_abi(7));
    QVERIFY(p.proxy.enabled);
    QCOMPARE(p.proxy.port_in_sandbox, 3128);
    // The backend repeats the helper's constant (backends may not include helpers): same value.
    QCOMPARE(p.proxy.port_in_sandbox, paddock::helper::kSandboxProxyPort);
    QCOMPARE(p.proxy.mode, NetMode::kAllowlist);
    QCOMPARE(to_json(p)["proxy"]["mode"], json("allowlist"));
    for (const char* n : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
      QCOMPARE(p.env.set.at(n), std::string("http://127.0.0.1:3128"));
    QCOMPARE(p.env.set.at("ALL_PROXY"), std::string("socks5h://127.0.0.1:3128"));
    // Loopback is the sandbox's own and never goes to the relay; clients with settings of their
    // own get them, with the same exceptions.
    for (const char* n : {"NO_PROXY", "no_proxy", "NO_GRPC_PROXY", "no_grpc_proxy"})
      QCOMPARE(p.env.set.at(n), std::string("localhost,127.0.0.1,::1,[::1]"));
    for (const char* n : {"GRPC_PROXY", "grpc_proxy"}) QCOMPARE(p.env.set.at(n), std::string("http://127.0.0.1:3128"));
    QCOMPARE(p.env.set.at("CLOUDSDK_PROXY_ADDRESS"), std::string("127.0.0.1"));
    QCOMPARE(p.env.set.at("CLOUDSDK_PROXY_PORT"), std::string("3128"));
    QVERIFY(p.env.set.at("JAVA_TOOL_OPTIONS").find("-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=3128") != std::string::npos);
    QVERIFY(p.env.set.at("JAVA_TOOL_OPTIONS").find("-Dhttp.nonProxyHosts=localhost|127.*|[::1]") != std::string::npos);
    // A policy that passes the user's own JAVA_TOOL_OPTIONS keeps it.
    FrozenIr own = relay_ir();
    own.env.passed_names.push_back("JAVA_TOOL_OPTIONS");
    QVERIFY(!plan_of(own, probe_abi(7)).env.set.count("JAVA_TOOL_OPTIONS"));
    // The namespace's loopback is the sandbox's own: Landlock handles no TCP by default...
    QVERIFY(p.landlock.handled_net.empty() && p.landlock.net_rules.empty());
    // ... and with loopback binds forbidden lets TCP reach the relay port only.
    FrozenIr forbid = relay_ir();
    forbid.egress.loopback_bind = false;
    p = plan_of(forbid, probe_abi(7));
    QCOMPARE(p.landlock.net_rules.size(), std::size_t{1});
    QCOMPARE(p.landlock.net_rules[0].port, 3128);
    QCOMPARE(names(p.landlock.net_rules[0].access), std::vector<std::string>{"connect_tcp"});
  }

  void git_ssh_binds_paddock_connect_read_only_and_sets_git_ssh_command() {
    const std::string connect = "/opt/pad dock/libexec/paddock/paddock-connect";
    FrozenIr ir = relay_ir();
    ir.egress.git_ssh = true;
    ir.egress.git_ssh_connect = connect;
    auto p = plan_of(ir, probe_abi(7));
    const int at = index_of(p.mounts, MountOp::kBindRo, connect);
    QVERIFY(at >= 0);
    QCOMPARE(p.mounts[at].source, connect);
    auto rule = std::find_if(p.landlock.path_rules.begin(), p.landlock.path_rules.end(),
                             [&](const LandlockPathRule& r) { return r.path == connect; });
    QVERIFY(rule != p.landlock.path_rules.end());
    QCOMPARE(names(rule->access), (std::vector<std::string>{"execute", "read_file"}));
    QCOMPARE(p.proxy.git_ssh_connect, connect);
    // The path is quoted twice (git's sh, then ssh's shell), spaces included.
    QCOMPARE(p.env.set.at("GIT_SSH_COMMAND"),
             std::string("ssh -o 'ProxyCommand='\\''/opt/pad dock/libexec/paddock/paddock-connect'\\'' %h %p' "
                         "-o StrictHostKeyChecking=yes -o CheckHostIP=no"));
    // The plan bytes, and so the plan hash, change with it.
    QVERIFY(to_json(p) != to_json(plan_of(relay_ir(), probe_abi(7))));
    // Without --git-ssh, or with net off, nothing is bound and nothing is set.
    for (FrozenIr other : {relay_ir(), typical_ir()}) {
      other.egress.git_ssh_connect = connect;
      other.egress.git_ssh = other.egress.mode != NetMode::kOff ? false : true;
      auto q = plan_of(other, probe_abi(7));
      QCOMPARE(index_of(q.mounts, MountOp::kBindRo, connect), -1);
      QVERIFY(!q.env.set.count("GIT_SSH_COMMAND"));
    }
  }

  void the_resolver_seam_is_shown_in_the_plan() {
    FrozenIr ir = relay_ir();
    ir.egress.debug_resolve["api.example.test"] = {"127.0.0.1"};
    auto p = plan_of(ir, probe_abi(7));
    QCOMPARE(p.proxy.debug_resolve, ir.egress.debug_resolve);
    QCOMPARE(to_json(p)["proxy"]["debug_resolve"]["api.example.test"][0].get<std::string>(), std::string("127.0.0.1"));
  }

  void with_loopback_binds_forbidden_net_off_handles_tcp_with_no_rule() {
    FrozenIr ir = typical_ir();
    ir.egress.loopback_bind = false;
    auto p = plan_of(ir, probe_abi(7));
    QCOMPARE(names(p.landlock.handled_net), (std::vector<std::string>{"bind_tcp", "connect_tcp"}));
    QVERIFY(p.landlock.net_rules.empty());
  }

  void grants_are_mounted_parents_first_then_protections_and_masks_by_path() {
    auto m = plan_of(typical_ir(), probe_abi(7)).mounts;
    const int proj = index_of(m, MountOp::kBindRw, "/home/dev/proj");
    const int vendor = index_of(m, MountOp::kBindRo, "/home/dev/proj/vendor");
    const int env = index_of(m, MountOp::kMaskFile, "/home/dev/proj/.env");
    const int secrets = index_of(m, MountOp::kMaskDir, "/home/dev/proj/secrets");
    const int hooks = index_of(m, MountOp::kProtectDir, "/home/dev/proj/.git/hooks");
    const int usr_key = index_of(m, MountOp::kMaskFile, "/usr/share/secret.key");
    QVERIFY(proj >= 0 && vendor > proj);  // read root inside a write root: bound after it
    QVERIFY(hooks > vendor && env > vendor && secrets > vendor && usr_key > vendor);  // after every grant
    QVERIFY(env < hooks && hooks < secrets && secrets < usr_key);  // among themselves, by path
    QVERIFY(index_of(m, MountOp::kDev, "/dev") >= 0);
    QVERIFY(index_of(m, MountOp::kProc, "/proc") >= 0);
    QVERIFY(index_of(m, MountOp::kTmpfs, "/tmp") >= 0);
  }

  void each_target_names_the_grant_that_holds_it_and_is_pinned_only_in_a_write_root() {
    auto m = plan_of(typical_ir(), probe_abi(7)).mounts;
    const auto& hooks = m[index_of(m, MountOp::kProtectDir, "/home/dev/proj/.git/hooks")];
    QCOMPARE(hooks.within, std::string("/home/dev/proj"));
    QVERIFY(hooks.pin);
    const auto& env = m[index_of(m, MountOp::kMaskFile, "/home/dev/proj/.env")];
    QCOMPARE(env.within, std::string("/home/dev/proj"));
    QVERIFY(env.pin);
    const auto& key = m[index_of(m, MountOp::kMaskFile, "/usr/share/secret.key")];
    QCOMPARE(key.within, std::string("/usr"));
    QVERIFY(!key.pin);  // nothing in a read-only bind can be renamed
    // A read root inside a write root is held by it; a top-level grant sits in the skeleton.
    QCOMPARE(m[index_of(m, MountOp::kBindRo, "/home/dev/proj/vendor")].within, std::string("/home/dev/proj"));
    QCOMPARE(m[index_of(m, MountOp::kBindRw, "/home/dev/proj")].within, std::string(""));
  }

  void absent_paths_become_placeholders_or_checks_and_nothing_under_a_masked_directory_gets_a_step() {
    FrozenIr ir = typical_ir();
    ir.fs.deny_write = {{"/home/dev/proj/.paddock", PathKind::kAbsentDir},
                        {"/home/dev/proj/.mcp.json", PathKind::kAbsent},
                        {"/home/dev/proj/secrets/inner", PathKind::kDir},
                        {"/home/dev/proj/.env", PathKind::kFile},
                        {"/usr/lib/x", PathKind::kFile}};
    ir.fs.deny.push_back({"/home/dev/proj/late.env", PathKind::kAbsent});
    ir.fs.deny.push_back({"/home/dev/proj/secrets/a.pem", PathKind::kFile});
    normalize(ir);
    auto m = plan_of(ir, probe_abi(7)).mounts;
    QVERIFY(index_of(m, MountOp::kProtectAbsentDir, "/home/dev/proj/.paddock") >= 0);
    QVERIFY(index_of(m, MountOp::kProtectAbsentFile, "/home/dev/proj/.mcp.json") >= 0);
    // An absent deny in a write root is kept absent for the session, as an absent protection is.
    QVERIFY(index_of(m, MountOp::kMaskAbsent, "/home/dev/proj/late.env") >= 0);
    for (const auto& s : m) {
      QVERIFY2(s.target.rfind("/home/dev/proj/secrets/", 0) != 0, s.target.c_str());  // under a dir mask
      QVERIFY2(s.target != "/usr/lib/x", s.target.c_str());  // deny_write outside every write root
    }
    // Denied and protected: the mask wins, there is no read-only bind under it.
    QCOMPARE(index_of(m, MountOp::kProtectFile, "/home/dev/proj/.env"), -1);
    QVERIFY(index_of(m, MountOp::kMaskFile, "/home/dev/proj/.env") >= 0);
  }

  void tmp_and_dev_shm_are_sized_from_the_memory_limit() {
    FrozenIr ir = typical_ir();
    ir.resources.memory_bytes = 64ll << 20;
    auto p = plan_of(ir, probe_abi(7));
    QCOMPARE(p.tmpfs.bytes, std::int64_t{32} << 20);
    QCOMPARE(p.tmpfs.inodes, std::int64_t{4096});
    ir.resources.memory_bytes = 16ll << 30;
    QCOMPARE(plan_of(ir, probe_abi(7)).tmpfs.inodes, (std::int64_t{8} << 30) / 16384);
    ir.resources.memory_bytes.reset();
    QCOMPARE(plan_of(ir, probe_abi(7)).tmpfs, TmpfsSize{});  // the kernel's default
  }

  void a_deny_outside_every_grant_gets_no_step_because_it_is_not_in_the_view() {
    auto m = plan_of(typical_ir(), probe_abi(7)).mounts;
    for (const auto& s : m) QVERIFY2(s.target != "/home/dev/.ssh", s.target.c_str());
  }

  void a_project_under_tmp_stays_visible_above_the_private_tmp() {
    FrozenIr ir = typical_ir();
    ir.fs.write_roots = {"/tmp/work/proj"};
    normalize(ir);
    auto m = plan_of(ir, probe_abi(7)).mounts;
    const int tmp = index_of(m, MountOp::kTmpfs, "/tmp");
    const int proj = index_of(m, MountOp::kBindRw, "/tmp/work/proj");
    QVERIFY(tmp >= 0 && proj > tmp);
  }

  void a_grant_of_proc_cannot_expose_the_hosts_because_the_new_proc_is_mounted_over_it() {
    FrozenIr ir = typical_ir();
    ir.fs.read_roots.push_back("/proc");
    normalize(ir);
    auto m = plan_of(ir, probe_abi(7)).mounts;
    QVERIFY(index_of(m, MountOp::kProc, "/proc") > index_of(m, MountOp::kBindRo, "/proc"));
  }

  // An absent deny inside a write root cannot be created during the session (a masked
  // placeholder keeps its name), so the row is exact; in a read-only grant it is only checked.
  void an_absent_deny_is_kept_absent_in_a_write_root_and_checked_in_a_read_root() {
    FrozenIr ir = typical_ir();
    ir.fs.deny.push_back({"/home/dev/proj/.env.local", PathKind::kAbsent});
    ir.fs.deny.push_back({"/usr/share/absent.key", PathKind::kAbsent});
    normalize(ir);
    auto plan = linux_backend::compile_linux(ir, probe_abi(7));
    QVERIFY(plan.ok());
    const auto* r = row(*plan, "fs.deny.absent_inside_write_root");
    QVERIFY(r != nullptr);
    QCOMPARE(r->support, Support::kExact);
    QVERIFY(backends::check(*plan).ok());
    auto m = plan_of(ir, probe_abi(7)).mounts;
    const int keep = index_of(m, MountOp::kMaskAbsent, "/home/dev/proj/.env.local");
    QVERIFY(keep >= 0 && m[static_cast<std::size_t>(keep)].pin);
    QVERIFY(index_of(m, MountOp::kExpectAbsent, "/usr/share/absent.key") >= 0);
  }

  // A symlink kept as it is (a protected name that is a link, a git pointer's hop) is bound onto
  // itself; an absent commondir gets a placeholder that names its own directory.
  void a_protected_symlink_is_pinned_and_a_name_git_reads_is_kept_absent() {
    FrozenIr ir = typical_ir();
    std::erase_if(ir.fs.deny_write, [](const auto& d) { return d.path == "/home/dev/proj/.git/hooks"; });
    ir.fs.deny_write.push_back({"/home/dev/proj/.git/hooks", PathKind::kSymlink});
    ir.fs.deny_write.push_back({"/home/dev/proj/.git/commondir", PathKind::kAbsentPointer});
    normalize(ir);
    auto m = plan_of(ir, probe_abi(7)).mounts;
    QVERIFY(index_of(m, MountOp::kProtectLink, "/home/dev/proj/.git/hooks") >= 0);
    QVERIFY(index_of(m, MountOp::kProtectAbsentPointer, "/home/dev/proj/.git/commondir") >= 0);
  }

  void landlock_rights_follow_the_abi() {
    FrozenIr ir = typical_ir();
    ir.egress.loopback_bind = false;  // so that TCP is handled where the ABI can
    for (int abi = 1; abi <= 7; ++abi) {
      auto l = plan_of(ir, probe_abi(abi)).landlock;
      QCOMPARE(l.abi, abi);
      const std::vector<std::string> handled = names(l.handled_fs);
      QCOMPARE(has(handled, "refer"), abi >= 2);
      QCOMPARE(has(handled, "truncate"), abi >= 3);
      QCOMPARE(has(handled, "ioctl_dev"), abi >= 5);
      QCOMPARE(l.handled_net.empty(), abi < 4);
      QCOMPARE(l.scoped.empty(), abi < 6);
      for (const auto& r : l.path_rules)
        for (const auto& a : names(r.access)) QVERIFY2(has(handled, a), (r.path + " " + a).c_str());
    }
  }

  void read_roots_get_read_rights_and_write_roots_every_handled_right() {
    auto l = plan_of(typical_ir(), probe_abi(3)).landlock;
    for (const auto& r : l.path_rules) {
      if (r.path == "/usr") QCOMPARE(names(r.access), (std::vector<std::string>{"execute", "read_file", "read_dir"}));
      if (r.path == "/home/dev/proj") QCOMPARE(r.access, l.handled_fs);
      if (r.path == "/proc") QCOMPARE(names(r.access), (std::vector<std::string>{"read_file", "read_dir"}));
      if (r.path == "/dev") QVERIFY(!has(names(r.access), "execute"));
    }
  }

  void the_plan_for_abi_2_and_7_differs_exactly_where_the_matrix_says() {
    FrozenIr ir = relay_ir();
    ir.egress.loopback_bind = false;
    auto p2 = plan_of(ir, probe_abi(2)), p7 = plan_of(ir, probe_abi(7));
    // Everything but Landlock is the same plan.
    LinuxPlan a = p2, b = p7;
    a.landlock = b.landlock = LandlockPlan{};
    QCOMPARE(a, b);
    // Landlock: ABI 7 adds truncate (3), TCP rules (4), ioctl_dev (5) and scopes (6).
    std::vector<std::string> extra;
    for (const auto& r : names(p7.landlock.handled_fs))
      if (!has(names(p2.landlock.handled_fs), r)) extra.push_back(r);
    QCOMPARE(extra, (std::vector<std::string>{"truncate", "ioctl_dev"}));
    QVERIFY(p2.landlock.handled_net.empty() && p2.landlock.net_rules.empty());
    QVERIFY(!p7.landlock.net_rules.empty());
    QCOMPARE(names(p7.landlock.scoped), (std::vector<std::string>{"abstract_unix_socket", "signal"}));
    // The matrices differ exactly on the rows that need ABI 4: the TCP port rules.
    auto m2 = linux_capability_matrix(probe_abi(2)), m7 = linux_capability_matrix(probe_abi(7));
    QCOMPARE(m2.size(), m7.size());
    std::set<std::string> support_differs;
    for (std::size_t i = 0; i < m2.size(); ++i)
      if (m2[i].support != m7[i].support) support_differs.insert(m2[i].field);
    QCOMPARE(support_differs,
             (std::set<std::string>{"egress.bind_ports", "egress.connect_ports", "egress.loopback_bind=false"}));
  }

  void port_rules_on_an_old_abi_are_refused() {
    FrozenIr ir = typical_ir();
    ir.egress.connect_ports = {8080};
    ir.egress.loopback_bind = false;
    auto plan = compile_linux(ir, probe_abi(3));
    QVERIFY(plan.ok());
    Status s = backends::check(*plan);
    QVERIFY(!s.ok());
    QCOMPARE(s.error().code, ErrorCode::kRefused);
    QVERIFY2(s.error().message.find("Landlock ABI 4") != std::string::npos, s.error().message.c_str());
    auto ok = compile_linux(ir, probe_abi(4));
    QVERIFY(backends::check(*ok).ok());
    auto l = plan_of(ir, probe_abi(4)).landlock;
    QCOMPARE(l.net_rules.size(), std::size_t{1});
    QCOMPARE(l.net_rules[0].port, 8080);
  }

  void seccomp_denies_the_dangerous_calls_and_every_socket_family_but_three() {
    auto p = plan_of(typical_ir(), probe_abi(7));
    std::set<std::string> unconditional;
    std::set<std::uint64_t> families;
    int high_bits = 0;
    for (const auto& r : p.seccomp.rules) {
      if (r.arg_index < 0) unconditional.insert(r.syscall);
      if (r.syscall == "socket") {
        QCOMPARE(r.errno_value, 97);
        QCOMPARE(r.arg_op, SeccompArgOp::kMaskedEq);
        if (r.arg_mask == 0xFFFFFFFFull) families.insert(r.arg_value);
        else ++high_bits;
      }
    }
    for (const char* s : {"ptrace", "process_vm_readv", "mount", "bpf", "perf_event_open",
                          "kexec_load", "init_module", "keyctl", "userfaultfd", "io_uring_setup",
                          "unshare", "setns", "open_by_handle_at"})
      QVERIFY2(unconditional.count(s), s);
    QCOMPARE(families.size(), std::size_t{61});
    for (std::uint64_t f : {1, 2, 10}) QVERIFY(!families.count(f));
    QCOMPARE(high_bits, 26);  // bits 6..31 cover every family >= 64
    QCOMPARE(names(p.seccomp.socket_families_allowed), (std::vector<std::string>{"unix", "inet", "inet6"}));
    auto tiocsti = std::find_if(p.seccomp.rules.begin(), p.seccomp.rules.end(), [](const SeccompRule& r) {
      return r.syscall == "ioctl" && r.arg_value == 0x5412;
    });
    QVERIFY(tiocsti != p.seccomp.rules.end());
    QCOMPARE(tiocsti->arg_index, 1);
  }

  void limits_map_to_rlimits_and_the_delegated_cgroup() {
    auto p = plan_of(typical_ir(), probe_abi(7));
    std::map<std::string, std::uint64_t> rl;
    for (const auto& r : p.rlimits) rl[to_string(r.resource)] = r.value;
    QCOMPARE(rl.at("cpu"), std::uint64_t{3600});
    QCOMPARE(rl.at("nofile"), std::uint64_t{4096});
    QCOMPARE(rl.at("fsize"), std::uint64_t{1073741824});
    QCOMPARE(rl.at("core"), std::uint64_t{0});
    // Memory and processes are the cgroup's alone: no address-space cap, no second count.
    QVERIFY(!rl.count("as") && !rl.count("data") && !rl.count("nproc"));
    QCOMPARE(std::string(to_string(p.cgroup.mechanism)), std::string("v2"));
    QCOMPARE(*p.cgroup.memory_max, std::int64_t{8589934592});
    QCOMPARE(*p.cgroup.pids_max, std::int64_t{512});
    QCOMPARE(*p.wall_time_secs, std::int64_t{14400});
  }

  void without_a_cgroup_memory_is_rlimit_data_and_processes_rlimit_nproc() {
    auto probe = probe_abi(7);
    probe.cgroup = {};
    auto p = plan_of(typical_ir(), probe);
    std::map<std::string, std::uint64_t> rl;
    for (const auto& r : p.rlimits) rl[to_string(r.resource)] = r.value;
    QCOMPARE(rl.at("data"), std::uint64_t{8589934592});
    QCOMPARE(rl.at("nproc"), std::uint64_t{512});
    QVERIFY(!rl.count("as"));
    QCOMPARE(std::string(to_string(p.cgroup.mechanism)), std::string("none"));
    QVERIFY(!p.cgroup.memory_max && !p.cgroup.pids_max);
    auto plan = compile_linux(typical_ir(), probe);
    QCOMPARE(row(*plan, "resources.memory_bytes")->support, Support::kPartial);
    QVERIFY(row(*plan, "resources.memory_bytes")->loss.find("each process") != std::string::npos);
    QCOMPARE(row(*plan, "resources.processes")->support, Support::kExact);
    QVERIFY(row(*plan, "resources.processes")->mechanism.find("user namespace") != std::string::npos);
    QVERIFY(backends::check(*plan).ok());
  }

  // Before 5.14 RLIMIT_NPROC counts the uid's processes machine-wide; unparseable counts as old.
  void before_linux_5_14_rlimit_nproc_is_partial() {
    for (const char* release : {"5.13.19", "4.19.0-25-amd64", "garbage"}) {
      auto probe = probe_abi(1);
      probe.cgroup = {};
      probe.kernel_release = release;
      auto plan = compile_linux(typical_ir(), probe);
      const FieldCapability* r = row(*plan, "resources.processes");
      QVERIFY2(r->support == Support::kPartial, release);
      QVERIFY2(r->loss.find("every process of the user's uid") != std::string::npos, r->loss.c_str());
    }
    auto probe = probe_abi(1);
    probe.cgroup = {};
    probe.kernel_release = "5.14.0";
    QCOMPARE(row(*compile_linux(typical_ir(), probe), "resources.processes")->support, Support::kExact);
  }

  void the_limits_step_names_the_mechanism_of_each_limit() {
    const auto limits = [](const KernelProbe& probe) {
      auto plan = compile_linux(typical_ir(), probe);
      for (const auto& s : plan->steps)
        if (s["step"] == "limits") return s["value"];
      return nlohmann::json();
    };
    const auto via = [](const nlohmann::json& l, const char* limit) {
      for (const auto& x : l)
        if (x["limit"] == limit) return x["mechanism"].get<std::string>();
      return std::string("absent");
    };
    auto probe = probe_abi(7);
    QCOMPARE(via(limits(probe), "memory_bytes"), std::string("cgroup_v2_memory"));
    QCOMPARE(via(limits(probe), "processes"), std::string("cgroup_v2_pids"));
    probe.cgroup = {};
    QCOMPARE(via(limits(probe), "memory_bytes"), std::string("rlimit_data"));
    QCOMPARE(via(limits(probe), "processes"), std::string("rlimit_nproc"));
    probe.unprivileged = false;  // root: RLIMIT_NPROC binds nothing
    QCOMPARE(via(limits(probe), "processes"), std::string("none"));
    QVERIFY(!backends::check(*compile_linux(typical_ir(), probe)).ok());
  }

  // The PID namespace is the kill tree; a cgroup leaf is made only to carry a limit.
  void a_plan_without_memory_or_process_limits_makes_no_cgroup_leaf() {
    auto probe = probe_abi(7);
    QVERIFY(probe.cgroup.v2_delegated_writable);
    FrozenIr ir = typical_ir();
    ir.resources.memory_bytes.reset();
    ir.resources.processes.reset();
    auto p = plan_of(ir, probe);
    QCOMPARE(std::string(to_string(p.cgroup.mechanism)), std::string("none"));
    QVERIFY(!p.cgroup.memory_max && !p.cgroup.pids_max);
    QCOMPARE(std::string(to_string(plan_of(typical_ir(), probe).cgroup.mechanism)), std::string("v2"));
    auto plan = compile_linux(ir, probe);
    const FieldCapability* kill = row(*plan, "lifecycle.cleanup=kill_tree");
    QVERIFY(kill);
    QCOMPARE(kill->support, Support::kExact);
    QVERIFY(backends::check(*plan).ok());
  }

  // One hierarchy with one controller: it goes to the limit whose fallback is weaker or missing.
  void a_single_controller_goes_where_the_rlimit_is_weaker() {
    auto probe = probe_abi(7);
    probe.cgroup.v2_controllers = {"memory"};
    auto p = plan_of(typical_ir(), probe);
    QCOMPARE(std::string(to_string(p.cgroup.mechanism)), std::string("v2"));
    QVERIFY(p.cgroup.memory_max && !p.cgroup.pids_max);
    probe.cgroup.v2_controllers = {"pids"};
    p = plan_of(typical_ir(), probe);
    QVERIFY(!p.cgroup.memory_max && p.cgroup.pids_max);
    // Root, memory in v2 and pids only in v1: pids must take the cgroup (no fallback for root).
    probe.unprivileged = false;
    probe.cgroup.v2_controllers = {"memory"};
    probe.cgroup.v1_writable = true;
    probe.cgroup.v1_controllers = {"pids"};
    p = plan_of(typical_ir(), probe);
    QCOMPARE(std::string(to_string(p.cgroup.mechanism)), std::string("v1"));
    QVERIFY(!p.cgroup.memory_max && p.cgroup.pids_max);
    QVERIFY(backends::check(*compile_linux(typical_ir(), probe)).ok());
  }

  void kernel_releases_compare_by_major_and_minor() {
    QVERIFY(kernel_at_least("6.18.44-fc-v657", 5, 14));
    QVERIFY(kernel_at_least("5.14.0", 5, 14));
    QVERIFY(!kernel_at_least("5.13.19", 5, 14));
    QVERIFY(!kernel_at_least("4.20", 5, 14));
    QVERIFY(kernel_at_least("10.0", 5, 14));
    QVERIFY(!kernel_at_least("", 5, 14));
    QVERIFY(!kernel_at_least("6", 5, 14));
    QVERIFY(!kernel_at_least("v6.1", 5, 14));
  }

  void environment_is_the_irs_set_and_passed_names() {
    auto p = plan_of(typical_ir(), probe_abi(7));
    QCOMPARE(p.env.set.at("HOME"), std::string("/home/dev"));
    QCOMPARE(p.env.pass, (std::vector<std::string>{"LANG", "TERM"}));
  }

  void compiling_twice_gives_the_same_plan_hash_and_another_abi_another_hash() {
    auto a = compile_linux(typical_ir(), probe_abi(7));
    auto b = compile_linux(typical_ir(), probe_abi(7));
    auto c = compile_linux(typical_ir(), probe_abi(6));
    QCOMPARE(plan_hash(*a), plan_hash(*b));
    QCOMPARE(canonical_bytes(to_json(*a)), canonical_bytes(to_json(*b)));
    QVERIFY(plan_hash(*a) != plan_hash(*c));
    QCOMPARE(a->ir_hash, ir_hash(typical_ir()));
  }

  void taint_is_carried_into_the_plan_and_does_not_refuse() {
    FrozenIr ir = typical_ir();
    ir.taint = {"PADDOCK_SYSTEM_DIR=/tmp/etc"};
    auto plan = compile_linux(ir, probe_abi(7));
    QCOMPARE(plan->taint, ir.taint);
    QVERIFY(backends::check(*plan).ok());
    QVERIFY(plan_hash(*plan) != plan_hash(*compile_linux(typical_ir(), probe_abi(7))));
  }

  // paddock-helper hashes the steps' bytes as written (compile_linux_parts); `paddock plan`
  // hashes the plan JSON. Both must give one hash for every shape a plan can take, and the
  // bytes must be canonical (sorted keys), or the helper would refuse every session with 103.
  void the_helpers_plan_hash_from_step_bytes_equals_the_plan_jsons_hash() {
    FrozenIr git = relay_ir();
    git.egress.git_ssh = true;
    git.egress.git_ssh_connect = "/opt/paddock/libexec/paddock-connect";
    git.egress.connect_ports = {22, 443};
    git.egress.bind_ports = {8080};
    git.egress.debug_resolve = {{"x.test", {"127.0.0.1"}}};
    git.taint = {"PADDOCK_DEBUG_RESOLVE=x.test"};
    FrozenIr odd = typical_ir();
    odd.fs.write_roots.push_back("/home/dev/caf\xc3\xa9 \"quoted\" \\ dir");
    odd.env.set["WEIRD"] = "tab\tand\nnewline";
    odd.egress.unix_socket_files = {"/run/user/1000/agent.sock"};
    normalize(odd);
    KernelProbe no_cgroup = probe_abi(7);
    no_cgroup.cgroup = {};
    struct Case { const char* name; FrozenIr ir; KernelProbe probe; };
    for (const Case& c : {Case{"typical", typical_ir(), probe_abi(7)}, Case{"abi2", typical_ir(), probe_abi(2)},
                          Case{"relay", relay_ir(), probe_abi(7)}, Case{"git-ssh", git, probe_abi(7)},
                          Case{"odd strings", odd, probe_abi(5)}, Case{"no cgroup", typical_ir(), no_cgroup},
                          Case{"minimal", test::minimal_ir(), probe_abi(7)}}) {
      auto parts = compile_linux_parts(c.ir, c.probe);
      auto plan = compile_linux(c.ir, c.probe);
      QVERIFY2(parts.ok() && plan.ok(), c.name);
      QVERIFY2(parts->plan.steps.empty(), c.name);
      QCOMPARE(canonical_bytes(json::parse(parts->steps)), parts->steps);
      QCOMPARE(parts->steps, canonical_bytes(plan->steps));
      QCOMPARE(plan_hash(parts->plan, parts->steps), plan_hash(*plan));
      QCOMPARE(plan_hash(*plan), sha256_hex(canonical_bytes(to_json(*plan))));
      QCOMPARE(parts->linux_plan, plan_of(c.ir, c.probe));
    }
  }

  void golden_linux_plans() {
    struct Case { const char* file; FrozenIr ir; int abi; };
    for (const Case& c : {Case{"linux_typical_abi7.json", typical_ir(), 7},
                          Case{"linux_typical_abi2.json", typical_ir(), 2},
                          Case{"linux_relay_abi7.json", relay_ir(), 7}}) {
      auto plan = compile_linux(c.ir, probe_abi(c.abi));
      QVERIFY(plan.ok());
      std::string why;
      QVERIFY2(test::matches_golden(c.file, to_json(*plan).dump(2) + "\n", why), why.c_str());
    }
  }

  void each_brokered_credential_gets_an_endpoint_port_its_variables_and_a_connect_rule() {
    FrozenIr ir = relay_ir();
    ir.egress.loopback_bind = false;
    BrokeredCredential a;
    a.name = "a-key";
    a.upstream = "api.example.com";
    a.env = {{"A_URL", "${endpoint}/v1"}, {"A_KEY", "${placeholder}"}};
    BrokeredCredential b = a;
    b.name = "b-key";
    b.upstream = "git.example.com";
    b.env = {{"B_URL", "${endpoint}"}};
    ir.secrets.credentials = {a, b};
    ir.secrets.debug_upstreams = {{"git.example.com", "127.0.0.1:8443"}};
    auto p = plan_of(ir, probe_abi(7));
    QCOMPARE(p.credentials.endpoints.size(), std::size_t{2});
    QCOMPARE(p.credentials.endpoints[0].port_in_sandbox, 3129);
    QCOMPARE(p.credentials.endpoints[1].port_in_sandbox, 3130);
    // The endpoint is written now; the placeholder only when the agent starts (it is never in the plan).
    QCOMPARE(p.credentials.endpoints[0].env.at("A_URL"), std::string("http://127.0.0.1:3129/v1"));
    QCOMPARE(p.credentials.endpoints[0].env.at("A_KEY"), std::string("${placeholder}"));
    QCOMPARE(p.credentials.endpoints[1].connect_to, std::string("127.0.0.1:8443"));
    QVERIFY(p.credentials.endpoints[0].connect_to.empty());
    QVERIFY(!p.env.set.count("A_URL"));
    std::set<int> connect;
    for (const auto& r : p.landlock.net_rules) connect.insert(r.port);
    QVERIFY(connect.count(3129) && connect.count(3130) && connect.count(3128));
    // A published port may not take an endpoint's place.
    ir.egress.loopback_bind = true;
    ir.egress.publish = {3130};
    auto refused = compile_linux_plan(ir, probe_abi(7));
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("endpoint of the brokered credential b-key") != std::string::npos,
             refused.error().message.c_str());
    // Nor may a host port (its listener inside would take the endpoint's address).
    ir.egress.publish = {};
    ir.egress.host_ports = {3129};
    refused = compile_linux_plan(ir, probe_abi(7));
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("network.host_ports: port 3129 is the endpoint of the brokered credential a-key") !=
                 std::string::npos,
             refused.error().message.c_str());
  }
};

QTEST_APPLESS_MAIN(LinuxPlanTest)
#include "linux_plan_test.moc"
