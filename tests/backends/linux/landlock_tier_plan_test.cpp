// The landlock tier's compiler (backends/linux/landlock_tier_plan.h), pure: what the user's choice
// changes in the IR and plan hashes, what it refuses, and how denies become carves.
#include <QtTest>

#include <algorithm>

#include "backends/backend.h"
#include "backends/linux/landlock_tier_plan.h"
#include "engine/capability.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::linux_backend;
using paddock::test::probe_abi;
using paddock::test::relay_ir;
using paddock::test::typical_ir;

namespace {

FrozenIr tier(FrozenIr ir) {
  ir.meta.linux_tier = kTierLandlock;
  return ir;
}

// A machine without user namespaces (a container's seccomp profile), as the probe records it.
KernelProbe blocked_probe() {
  KernelProbe p = probe_abi(7);
  p.user_ns = p.mount_ns = p.pid_ns = p.net_ns = p.ipc_ns = p.uts_ns = false;
  p.userns_blocked_by = UsernsBlock::kContainer;
  p.userns_error = "EPERM";
  return p;
}

BackendPlan checked(const FrozenIr& ir, const KernelProbe& p) {
  auto plan = compile_linux(ir, p);
  if (!plan.ok()) qFatal("%s", plan.error().message.c_str());
  return *plan;
}

const FieldCapability* row(const std::vector<FieldCapability>& rows, const std::string& field) {
  for (const auto& c : rows)
    if (c.field == field) return &c;
  return nullptr;
}

}  // namespace

class LandlockTierPlanTest : public QObject {
  Q_OBJECT
 private slots:
  void choosing_the_tier_changes_the_ir_hash_and_the_plan_hash() {
    const BackendPlan ns = checked(typical_ir(), probe_abi(7));
    const BackendPlan ll = checked(tier(typical_ir()), probe_abi(7));
    QVERIFY(ns.ir_hash != ll.ir_hash);
    QVERIFY(plan_hash(ns) != plan_hash(ll));
    QCOMPARE(ll.steps[0]["step"].get<std::string>(), std::string("tier"));
    QCOMPARE(ll.steps[0]["value"].get<std::string>(), std::string("landlock"));
    // Deterministic: the same IR and probe, the same bytes.
    QCOMPARE(plan_hash(checked(tier(typical_ir()), probe_abi(7))), plan_hash(ll));
  }

  void without_user_namespaces_the_namespace_tier_is_refused_and_the_landlock_tier_is_not() {
    const BackendPlan ns = checked(typical_ir(), blocked_probe());
    QVERIFY(!backends::check(ns).ok());
    const Status s = backends::check(checked(tier(typical_ir()), blocked_probe()));
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
  }

  void a_filtered_network_hands_every_connect_to_the_helper_and_refuses_the_rest_of_the_socket_api() {
    const FrozenIr ir = tier(relay_ir());
    const Status s = backends::check(checked(ir, blocked_probe()));
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    auto c = compile_landlock_tier_parts(ir, blocked_probe());
    QVERIFY(c.ok());
    const auto& t = c->tier_plan;
    QVERIFY(t.connect_via_broker && t.answer_connect);
    QCOMPARE(t.socket_families_allowed, (std::vector<SocketFamily>{SocketFamily::kInet, SocketFamily::kInet6}));
    const auto has = [&](const std::string& syscall, int err, int arg, std::uint64_t value, std::uint64_t mask) {
      return std::any_of(t.seccomp.begin(), t.seccomp.end(), [&](const SeccompRule& r) {
        return r.syscall == syscall && r.errno_value == err && r.arg_index == arg && r.arg_value == value &&
               r.arg_mask == mask;
      });
    };
    // No connect(2) rule of the filter's own: every call goes to the helper.
    QVERIFY(std::none_of(t.seccomp.begin(), t.seccomp.end(), [](const SeccompRule& r) { return r.syscall == "connect"; }));
    QVERIFY(has("socket", 97, 0, 1, 0xFFFFFFFF));  // AF_UNIX
    QVERIFY(!has("socket", 97, 0, 2, 0xFFFFFFFF) && !has("socket", 97, 0, 10, 0xFFFFFFFF));
    QVERIFY(has("socket", 94, 1, 0, 1));          // a type without SOCK_STREAM's bit
    QVERIFY(has("socket", 93, 2, 17, 0xFFFFFFFF) || has("socket", 93, 2, 16, 16));  // UDP's protocol
    QVERIFY(has("socket", 93, 2, 128, 128));      // SCTP (132), MPTCP (262)
    QVERIFY(has("bind", 13, -1, 0, 0) && has("listen", 13, -1, 0, 0));
    QVERIFY(has("sendto", 13, 3, 0x20000000, 0x20000000) && has("sendmsg", 13, 2, 0x20000000, 0x20000000) &&
            has("sendmmsg", 13, 3, 0x20000000, 0x20000000));
    // The agent's own TCP connect and bind are Landlock's too, with no rule.
    QCOMPARE(t.landlock.handled_net, (std::vector<LandlockNetRight>{LandlockNetRight::kBindTcp, LandlockNetRight::kConnectTcp}));
    QVERIFY(t.landlock.net_rules.empty());
    QVERIFY(c->steps.find("\"connect_via_broker\"") != std::string::npos);
    // What needs the sandbox's own network namespace stays refused, in one line.
    FrozenIr pub = ir;
    pub.egress.publish = {8080};
    const Status p = backends::check(checked(pub, blocked_probe()));
    QVERIFY(!p.ok());
    QCOMPARE(p.error().exit_code(), 125);
    QVERIFY2(p.error().message.find("needs a network namespace of the sandbox's own") != std::string::npos,
             p.error().message.c_str());
  }

  void a_kernel_without_landlock_refuses_the_tier() {
    KernelProbe p = blocked_probe();
    p.landlock_abi = 0;
    const Status s = backends::check(checked(tier(typical_ir()), p));
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("the landlock tier needs Landlock") != std::string::npos, s.error().message.c_str());
  }

  void denies_inside_grants_are_carved_and_grants_without_one_are_plain_rules() {
    auto c = compile_landlock_tier_parts(tier(typical_ir()), blocked_probe());
    QVERIFY(c.ok());
    const LandlockTierPlan& t = c->tier_plan;
    const auto carve = [&](const std::string& grant) -> const LandlockCarve* {
      for (const auto& k : t.carves)
        if (k.grant == grant) return &k;
      return nullptr;
    };
    const LandlockCarve* proj = carve("/home/dev/proj");
    QVERIFY(proj);
    QCOMPARE(proj->denied, (std::vector<std::string>{"/home/dev/proj/.env", "/home/dev/proj/secrets"}));
    // The protected hooks and the read root nested in the write root get read rights only.
    QCOMPARE(proj->read_only, (std::vector<std::string>{"/home/dev/proj/.git/hooks", "/home/dev/proj/vendor"}));
    const LandlockCarve* usr = carve("/usr");
    QVERIFY(usr);
    QCOMPARE(usr->denied, std::vector<std::string>{"/usr/share/secret.key"});
    const auto plain = [&](const std::string& p) {
      return std::any_of(t.landlock.path_rules.begin(), t.landlock.path_rules.end(),
                         [&](const LandlockPathRule& r) { return r.path == p; });
    };
    QVERIFY(plain("/etc"));
    QVERIFY(!plain("/usr"));
    QVERIFY(!plain("/home/dev/proj"));
    QVERIFY(!plain("/tmp"));  // the host's /tmp is not granted: TMPDIR is private
    QVERIFY(!plain("/dev/shm"));
    QVERIFY(t.private_tmpdir);
  }

  void every_socket_family_is_refused_by_the_seccomp_gate() {
    auto c = compile_landlock_tier_parts(tier(typical_ir()), blocked_probe());
    QVERIFY(c.ok());
    for (const std::uint64_t fam : {1u, 2u, 10u})
      QVERIFY(std::any_of(c->tier_plan.seccomp.begin(), c->tier_plan.seccomp.end(), [&](const SeccompRule& r) {
        return r.syscall == "socket" && r.arg_index == 0 && r.arg_value == fam && r.errno_value == 97;
      }));
    QVERIFY(c->tier_plan.socket_families_allowed.empty());
    QVERIFY(!c->tier_plan.answer_connect);
    // A host port with the network off: TCP sockets, every connect answered, no broker.
    FrozenIr hp = tier(typical_ir());
    hp.egress.host_ports = {11434};
    normalize(hp);
    auto h = compile_landlock_tier_parts(hp, blocked_probe());
    QVERIFY(h.ok());
    QVERIFY(h->tier_plan.answer_connect && !h->tier_plan.connect_via_broker);
    QCOMPARE(h->tier_plan.host_ports, std::vector<int>{11434});
    QCOMPARE(h->tier_plan.socket_families_allowed, (std::vector<SocketFamily>{SocketFamily::kInet, SocketFamily::kInet6}));
    QVERIFY(backends::check(checked(hp, blocked_probe())).ok());
    // The namespace tier's deny list is kept whole.
    QVERIFY(std::any_of(c->tier_plan.seccomp.begin(), c->tier_plan.seccomp.end(),
                        [](const SeccompRule& r) { return r.syscall == "ptrace"; }));
  }

  void every_row_of_the_tier_is_exact_or_says_what_is_lost_or_why_it_is_refused() {
    for (const bool root : {false, true}) {
      KernelProbe p = blocked_probe();
      p.unprivileged = !root;
      const auto rows = landlock_tier_capability_matrix(p);
      QCOMPARE(rows.size(), linux_capability_matrix(p).size());
      for (const auto& r : rows) QVERIFY2(validate_row(r).ok(), r.field.c_str());
      QCOMPARE(row(rows, "fs.deny.inside_read_root")->support, Support::kPartial);
      QCOMPARE(row(rows, "fs.tmp_isolated")->support, Support::kPartial);
      QCOMPARE(row(rows, "egress.mode=off")->support, Support::kExact);
      QCOMPARE(row(rows, "egress.mode=allowlist")->support, Support::kPartial);
      QVERIFY(row(rows, "egress.mode=allowlist")->loss.find("cannot listen on any TCP port") != std::string::npos);
      QCOMPARE(row(rows, "egress.host_ports")->support, Support::kPartial);
      QCOMPARE(row(rows, "egress.publish")->support, Support::kUnsupported);
      QCOMPARE(row(rows, "fs.review_roots")->support, Support::kUnsupported);
      QCOMPARE(row(rows, "process.privilege_drop")->support, root ? Support::kPartial : Support::kExact);
    }
  }

  void an_unknown_tier_is_refused() {
    FrozenIr ir = typical_ir();
    ir.meta.linux_tier = "chroot";
    QVERIFY(!compile_linux(ir, probe_abi(7)).ok());
  }
};

QTEST_GUILESS_MAIN(LandlockTierPlanTest)
#include "landlock_tier_plan_test.moc"
