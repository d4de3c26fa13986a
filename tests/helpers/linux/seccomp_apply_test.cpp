// The helper's seccomp compiler against the plans the backend compiler emits: every rule of a
// real plan compiles to one filter, and an unknown syscall is refused instead of being skipped.
// (The argument comparisons are an enum the helper maps case by case: there is no unknown one.)
#include <QtTest>

#include "backends/linux/linux_plan.h"
#include "helpers/linux/seccomp_apply.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::helper;
using linux_backend::SeccompArgOp;
using linux_backend::SeccompRule;

class SeccompApplyTest : public QObject {
  Q_OBJECT
 private slots:
  void every_rule_of_a_compiled_plan_becomes_one_filter() {
    auto plan = linux_backend::compile_linux_plan(test::typical_ir(), test::probe_abi(7));
    QVERIFY(plan.ok());
    auto program = compile_seccomp(plan->seccomp.rules);
    QVERIFY2(program.ok(), program.ok() ? "" : program.error().message.c_str());
    QVERIFY(!program->empty());
    // The same plan gives the same program: the filter is part of what the plan hash vouches for.
    auto again = compile_seccomp(plan->seccomp.rules);
    QVERIFY(again.ok());
    QCOMPARE(again->size(), program->size());
    QVERIFY(std::equal(program->begin(), program->end(), again->begin(), [](const sock_filter& a, const sock_filter& b) {
      return a.code == b.code && a.jt == b.jt && a.jf == b.jf && a.k == b.k;
    }));
  }

  void an_unknown_syscall_is_refused_not_skipped() {
    auto r = compile_seccomp({SeccompRule{"no_such_syscall", 1, -1, SeccompArgOp::kNone, 0, 0}});
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("no_such_syscall") != std::string::npos);
  }

  void a_masked_rule_and_an_unconditional_rule_compile() {
    auto r = compile_seccomp({SeccompRule{"ptrace", 1, -1, SeccompArgOp::kNone, 0, 0},
                              SeccompRule{"ioctl", 1, 1, SeccompArgOp::kMaskedEq, 0x5412, 0xFFFFFFFFull}});
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  }
};

QTEST_APPLESS_MAIN(SeccompApplyTest)
#include "seccomp_apply_test.moc"
