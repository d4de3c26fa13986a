// Why user namespaces are unavailable is a probe fact: classified from what the probe saw, carried
// in the probe's JSON, and worded once, so `doctor` and the refusal of every plan say the same.
#include <QtTest>

#include "backends/backend.h"
#include "backends/linux/kernel_probe.h"
#include "backends/linux/linux_plan.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using linux_backend::UsernsBlock;
using linux_backend::UsernsEvidence;

namespace {

// A desktop user's machine where unshare worked: every sysctl at its permissive default.
UsernsEvidence permissive() {
  UsernsEvidence e;
  e.max_user_namespaces = "63412";
  e.unprivileged_userns_clone = "1";
  e.apparmor_restrict_unprivileged_userns = "0";
  return e;
}

linux_backend::KernelProbe blocked(UsernsBlock b, const std::string& error) {
  auto p = test::probe_abi(7);
  p.user_ns = p.mount_ns = false;
  p.userns_blocked_by = b;
  p.userns_error = error;
  return p;
}

}  // namespace

Q_DECLARE_METATYPE(UsernsBlock)

class KernelProbeTest : public QObject {
  Q_OBJECT
 private slots:
  void each_reason_namespaces_fail_is_told_apart_data() {
    QTest::addColumn<UsernsEvidence>("evidence");
    QTest::addColumn<UsernsBlock>("want");
    UsernsEvidence e = permissive();
    QTest::newRow("nothing failed") << e << UsernsBlock::kNone;
    e = permissive();
    e.user_error = "EINVAL";
    QTest::newRow("no CONFIG_USER_NS") << e << UsernsBlock::kKernelConfig;
    e = permissive();
    e.user_error = "ENOSPC";
    e.max_user_namespaces = "0";
    QTest::newRow("max_user_namespaces=0") << e << UsernsBlock::kMaxUserNamespaces;
    e.privileged = true;  // the limit binds root too
    QTest::newRow("max_user_namespaces=0 as root") << e << UsernsBlock::kMaxUserNamespaces;
    e = permissive();
    e.user_error = "ENOSPC";
    QTest::newRow("limit used up") << e << UsernsBlock::kUserNamespaceLimit;
    e = permissive();
    e.user_error = "EPERM";
    e.unprivileged_userns_clone = "0";
    QTest::newRow("Debian's unprivileged_userns_clone=0") << e << UsernsBlock::kUnprivilegedUsernsClone;
    e = permissive();
    e.user_error = "EACCES";
    e.apparmor_restrict_unprivileged_userns = "1";
    QTest::newRow("AppArmor refuses the unshare") << e << UsernsBlock::kAppArmorRestriction;
    e = permissive();
    e.mount_error = "EPERM";  // Ubuntu 24.04: the userns is made, without capabilities
    e.apparmor_restrict_unprivileged_userns = "1";
    QTest::newRow("AppArmor strips the new namespace's capabilities") << e << UsernsBlock::kAppArmorRestriction;
    e = permissive();
    e.user_error = "EPERM";
    e.seccomp_filtered = true;
    QTest::newRow("a seccomp filter refuses it") << e << UsernsBlock::kContainer;
    e = permissive();
    e.user_error = "EPERM";
    e.in_container = true;
    QTest::newRow("inside a container") << e << UsernsBlock::kContainer;
    e = permissive();
    e.user_error = "EPERM";
    QTest::newRow("nothing explains it") << e << UsernsBlock::kUnknown;
  }
  void each_reason_namespaces_fail_is_told_apart() {
    QFETCH(UsernsEvidence, evidence);
    QFETCH(UsernsBlock, want);
    QCOMPARE(linux_backend::to_string(linux_backend::classify_userns(evidence)),
             linux_backend::to_string(want));
  }

  void root_is_not_blamed_on_sysctls_that_exempt_root() {
    UsernsEvidence e = permissive();
    e.user_error = "EPERM";
    e.privileged = true;
    e.unprivileged_userns_clone = "0";
    e.apparmor_restrict_unprivileged_userns = "1";
    e.in_container = true;
    QCOMPARE(linux_backend::to_string(linux_backend::classify_userns(e)), std::string("container"));
  }

  // Each cause's line names the setting and the command that fixes it, on one line.
  void each_reason_is_one_line_that_names_its_fix_data() {
    QTest::addColumn<UsernsBlock>("cause");
    QTest::addColumn<QString>("fix");
    QTest::newRow("kernel") << UsernsBlock::kKernelConfig << "CONFIG_USER_NS=y";
    QTest::newRow("max") << UsernsBlock::kMaxUserNamespaces << "sudo sysctl -w user.max_user_namespaces=";
    QTest::newRow("limit") << UsernsBlock::kUserNamespaceLimit << "sudo sysctl -w user.max_user_namespaces=";
    QTest::newRow("debian") << UsernsBlock::kUnprivilegedUsernsClone
                            << "sudo sysctl -w kernel.unprivileged_userns_clone=1";
    QTest::newRow("apparmor") << UsernsBlock::kAppArmorRestriction << "/etc/apparmor.d/paddock-helper";
    QTest::newRow("container") << UsernsBlock::kContainer << "run Paddock on the host";
    QTest::newRow("unknown") << UsernsBlock::kUnknown << "unshare --user --map-root-user --mount true";
  }
  void each_reason_is_one_line_that_names_its_fix() {
    QFETCH(UsernsBlock, cause);
    QFETCH(QString, fix);
    const std::string line = linux_backend::userns_unavailable(blocked(cause, "EPERM"));
    QVERIFY2(line.find(fix.toStdString()) != std::string::npos, line.c_str());
    QVERIFY2(line.find("(unshare: EPERM)") != std::string::npos, line.c_str());
    // The other way out is named too: the tier without namespaces, chosen by the user.
    QVERIFY2(line.ends_with("with 'paddock run --tier landlock'"), line.c_str());
    QVERIFY2(line.find('\n') == std::string::npos, line.c_str());
  }

  void every_plan_on_such_a_kernel_is_refused_with_that_line() {
    const auto p = blocked(UsernsBlock::kAppArmorRestriction, "EACCES");
    auto plan = backends::compile(test::minimal_ir(), backends::BackendId::kLinux, linux_backend::to_json(p));
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    const Status s = backends::check(*plan);
    QVERIFY(!s.ok());
    QCOMPARE(s.error().exit_code(), 125);
    QCOMPARE(s.error().message, linux_backend::userns_unavailable(p));
    QCOMPARE(linux_backend::linux_probe_refusals(p).at(0), linux_backend::userns_unavailable(p));
  }

  void the_cause_survives_the_probe_json_and_an_unknown_cause_is_an_error() {
    const auto p = blocked(UsernsBlock::kUnprivilegedUsernsClone, "EPERM");
    auto j = linux_backend::to_json(p);
    QCOMPARE(j["userns_blocked_by"].get<std::string>(), std::string("unprivileged_userns_clone"));
    auto back = linux_backend::probe_from_json(j);
    QVERIFY(back.ok());
    QVERIFY(*back == p);
    j["userns_blocked_by"] = "gremlins";
    QVERIFY(!linux_backend::probe_from_json(j).ok());
    j.erase("userns_blocked_by");
    QVERIFY(!linux_backend::probe_from_json(j).ok());
  }
};

QTEST_APPLESS_MAIN(KernelProbeTest)
#include "kernel_probe_test.moc"
