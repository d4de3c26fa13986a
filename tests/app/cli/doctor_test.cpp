// `paddock doctor --json` is checked against kernel facts this test reads for itself.
#include <QtTest>

#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/process_runner.h"

using nlohmann::json;
using paddock::test::run_process;

namespace {

int landlock_abi_here() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U /*VERSION*/);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

bool unshare_in_child(int flags) {
  pid_t pid = fork();
  if (pid == 0) _exit(unshare(flags) == 0 ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool mounted(const std::string& fstype) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.find(" - " + fstype + " ") != std::string::npos) return true;
  return false;
}

json doctor_json(const paddock::test::RunOptions& options = {}) {
  auto r = run_process({paddock::test::paddock_bin(), "doctor", "--json"}, options);
  if (r.exit_code != 0) qWarning("doctor failed: %s", r.err.c_str());
  return json::parse(r.out, nullptr, false);
}

}  // namespace

class DoctorTest : public QObject {
  Q_OBJECT
 private slots:
  void doctor_json_reports_the_landlock_abi_this_kernel_has() {
    json d = doctor_json();
    QVERIFY(!d.is_discarded());
    QCOMPARE(d["kernel"]["landlock_abi"].get<int>(), landlock_abi_here());
  }

  void doctor_json_reports_namespaces_as_this_process_can_create_them() {
    json d = doctor_json();
    const json& ns = d["kernel"]["namespaces"];
    bool user = unshare_in_child(CLONE_NEWUSER);
    QCOMPARE(ns["user"].get<bool>(), user);
    int base = user ? CLONE_NEWUSER : 0;
    QCOMPARE(ns["mount"].get<bool>(), unshare_in_child(base | CLONE_NEWNS));
    QCOMPARE(ns["pid"].get<bool>(), unshare_in_child(base | CLONE_NEWPID));
    QCOMPARE(ns["net"].get<bool>(), unshare_in_child(base | CLONE_NEWNET));
    QCOMPARE(ns["ipc"].get<bool>(), unshare_in_child(base | CLONE_NEWIPC));
    QCOMPARE(ns["uts"].get<bool>(), unshare_in_child(base | CLONE_NEWUTS));
  }

  void doctor_json_reports_the_cgroup_hierarchies_that_are_mounted() {
    json d = doctor_json();
    std::string v = d["kernel"]["cgroup"]["version"];
    bool v1 = mounted("cgroup"), v2 = mounted("cgroup2");
    QCOMPARE(QString::fromStdString(v),
             QString(v1 && v2 ? "hybrid" : v2 ? "v2" : v1 ? "v1" : "none"));
  }

  void doctor_json_reports_the_uid_it_ran_as() {
    json d = doctor_json();
    QCOMPARE(d["uid"].get<int>(), static_cast<int>(geteuid()));
    QCOMPARE(d["kernel"]["unprivileged"].get<bool>(), geteuid() != 0);
  }

  void doctor_json_as_an_unprivileged_user_still_probes_landlock_and_namespaces() {
    if (geteuid() != 0) QSKIP("already unprivileged; the other cases covered this uid");
    paddock::test::RunOptions o;
    o.prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    o.env_override = {{"HOME", "/tmp"}};
    json d = doctor_json(o);
    QVERIFY(!d.is_discarded());
    QCOMPARE(d["uid"].get<int>(), 65534);
    QCOMPARE(d["kernel"]["landlock_abi"].get<int>(), landlock_abi_here());
    QCOMPARE(d["kernel"]["unprivileged"].get<bool>(), true);
  }
};

QTEST_APPLESS_MAIN(DoctorTest)
#include "doctor_test.moc"
