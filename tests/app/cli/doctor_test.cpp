// `paddock doctor --json` is checked against kernel facts this test reads for itself.
#include <QtTest>

#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"
#include "tests/support/skip.h"

using nlohmann::json;
using paddock::test::dump;
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

// Under a 1 MiB RLIMIT_DATA, a 64 MiB private writable mapping must be refused, in a child.
bool rlimit_data_enforced_here() {
  pid_t pid = fork();
  if (pid == 0) {
    rlimit r{1 << 20, 1 << 20};
    if (setrlimit(RLIMIT_DATA, &r) != 0) _exit(2);
    void* p = mmap(nullptr, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    _exit(p == MAP_FAILED ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Runs argv (as run_process does) in a child that a seccomp filter forbids
// unshare(CLONE_NEWUSER) with EPERM, as container runtimes' default profiles do.
paddock::test::ProcessResult under_a_userns_seccomp_filter(const std::vector<std::string>& argv,
                                                           const paddock::test::RunOptions& options) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0 ||
        seccomp_load(ctx) != 0)
      _exit(3);
    const auto r = run_process(argv, options);
    const std::string text = json{{"code", r.exit_code}, {"out", r.out}, {"err", r.err}}.dump();
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(4);
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  paddock::test::ProcessResult r;
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    r.err = "the filtered child failed (status " + std::to_string(status) + ")";
    return r;
  }
  r.exit_code = j["code"].get<int>();
  r.out = j["out"].get<std::string>();
  r.err = j["err"].get<std::string>();
  return r;
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
    if (geteuid() != 0)
      PADDOCK_SKIP_USER("a case for root running doctor as uid 65534; the suite runs as uid " +
                        std::to_string(geteuid()) + ", which the other cases cover");
    paddock::test::RunOptions o;
    o.prefix = paddock::test::as_uid(65534);
    o.env_override = {{"HOME", "/tmp"}};
    json d = doctor_json(o);
    QVERIFY(!d.is_discarded());
    QCOMPARE(d["uid"].get<int>(), 65534);
    QCOMPARE(d["kernel"]["landlock_abi"].get<int>(), landlock_abi_here());
    QCOMPARE(d["kernel"]["unprivileged"].get<bool>(), true);
    // A user without a writable cgroup (this uid, here) still has both limits enforced.
    if (!d["kernel"]["cgroup"]["v1_writable"].get<bool>() && !d["kernel"]["cgroup"]["v2_delegated_writable"].get<bool>()) {
      QCOMPARE(d["limits"]["resources.memory_bytes"]["support"].get<std::string>(), std::string("partial"));
      QVERIFY(d["limits"]["resources.processes"]["support"] != "unsupported");
    }
  }

  void doctor_json_reports_whether_rlimit_data_is_enforced_and_how_each_limit_is() {
    json d = doctor_json();
    QVERIFY(!d.is_discarded());
    QCOMPARE(d["kernel"]["rlimit_data"].get<bool>(), rlimit_data_enforced_here());
    for (const char* f : {"resources.memory_bytes", "resources.processes"}) {
      const json& row = d["limits"][f];
      QVERIFY2(row.is_object(), d.dump().c_str());
      const std::string support = row["support"].get<std::string>();
      QVERIFY2(support == "exact" || support == "partial" || support == "unsupported", f);
      QVERIFY2(support == "exact" || !row["loss"].get<std::string>().empty(), f);
    }
    auto text = run_process({paddock::test::paddock_bin(), "doctor"});
    QVERIFY2(text.out.find("limit memory_bytes: ") != std::string::npos, text.out.c_str());
    QVERIFY2(text.out.find("limit processes: ") != std::string::npos, text.out.c_str());
  }

  // The kernel's own limit, set to 0 where the test may set it: in a user namespace of its own
  // (user.* sysctls are per user namespace), as root there, so the setting survives exec. Inside,
  // no further user namespace can be made, for root and for everyone else alike.
  void doctor_names_a_zero_user_namespace_limit_and_run_refuses_with_the_same_line_data() {
    paddock::test::add_uid_rows();
  }
  void doctor_names_a_zero_user_namespace_limit_and_run_refuses_with_the_same_line() {
    QFETCH(uint, uid);
    if (!unshare_in_child(CLONE_NEWUSER))
      PADDOCK_SKIP_KERNEL("the kernel gives this process no user namespace to set the limit in");
    paddock::test::CliHome h;
    QVERIFY(h.create(uid, "userns-limit", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    h.chown_all();
    auto in_limited_ns = [&](std::vector<std::string> args) {
      std::vector<std::string> argv = {"unshare", "--user", "--map-root-user", "sh", "-c",
                                       "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"", "sh",
                                       paddock::test::paddock_bin()};
      argv.insert(argv.end(), args.begin(), args.end());
      return run_process(argv, h.opts);
    };
    auto d = in_limited_ns({"doctor", "--json"});
    QVERIFY2(d.exit_code == 0, dump(d));
    const json report = json::parse(d.out, nullptr, false);
    QVERIFY2(!report.is_discarded(), dump(d));
    QCOMPARE(report["kernel"]["namespaces"]["user"].get<bool>(), false);
    QCOMPARE(report["kernel"]["userns_blocked_by"].get<std::string>(), std::string("max_user_namespaces"));
    QCOMPARE(report["kernel"]["userns_error"].get<std::string>(), std::string("ENOSPC"));
    const std::string line = report["refusals"].at(0).get<std::string>();
    QVERIFY2(line.find("sudo sysctl -w user.max_user_namespaces=") != std::string::npos, line.c_str());

    auto text = in_limited_ns({"doctor"});
    QVERIFY2(text.out.find("cannot run:  " + line + "\n") != std::string::npos, dump(text));
    // Review mode needs a user namespace too: doctor says so, as the probe found it.
    QCOMPARE(report["kernel"]["overlay_userns_error"].get<std::string>(), std::string("no user or mount namespace"));
    QVERIFY2(text.out.find("review mode: no (no user or mount namespace: no overlay in a user namespace; --review is "
                           "refused)\n") != std::string::npos,
             dump(text));

    auto r = in_limited_ns({"run", "--", "/bin/true"});
    QVERIFY2(r.exit_code == 125, dump(r));
    QCOMPARE(QString::fromStdString(r.err), QString::fromStdString("paddock: " + line + "\n"));
    std::error_code ec;
    std::filesystem::remove_all(h.root, ec);
  }

  // Where a seccomp filter refuses the unshare (a container's default profile), no sysctl is at
  // fault: doctor says it is the container or sandbox around Paddock, and run refuses with that.
  void doctor_names_a_container_that_forbids_user_namespaces_and_run_refuses_with_the_same_line_data() {
    paddock::test::add_uid_rows();
  }
  void doctor_names_a_container_that_forbids_user_namespaces_and_run_refuses_with_the_same_line() {
    QFETCH(uint, uid);
    paddock::test::CliHome h;
    QVERIFY(h.create(uid, "userns-seccomp", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    h.chown_all();
    auto d = under_a_userns_seccomp_filter({paddock::test::paddock_bin(), "doctor", "--json"}, h.opts);
    QVERIFY2(d.exit_code == 0, dump(d));
    const json report = json::parse(d.out, nullptr, false);
    QVERIFY2(!report.is_discarded(), dump(d));
    QCOMPARE(report["kernel"]["namespaces"]["user"].get<bool>(), false);
    QCOMPARE(report["kernel"]["userns_blocked_by"].get<std::string>(), std::string("container"));
    QCOMPARE(report["kernel"]["userns_error"].get<std::string>(), std::string("EPERM"));
    const std::string line = report["refusals"].at(0).get<std::string>();
    QVERIFY2(line.find("run Paddock on the host") != std::string::npos, line.c_str());
    auto r = under_a_userns_seccomp_filter({paddock::test::paddock_bin(), "run", "--", "/bin/true"}, h.opts);
    QVERIFY2(r.exit_code == 125, dump(r));
    QCOMPARE(QString::fromStdString(r.err), QString::fromStdString("paddock: " + line + "\n"));
    std::error_code ec;
    std::filesystem::remove_all(h.root, ec);
  }

  // Review mode's overlay is tried by the probe; doctor's line says what it found, in both forms.
  void doctor_says_whether_review_mode_works_as_the_probe_found_it() {
    json d = doctor_json();
    QVERIFY(!d.is_discarded());
    QVERIFY2(d["kernel"]["overlay_userns_error"].is_string(), d.dump().c_str());
    const std::string error = d["kernel"]["overlay_userns_error"].get<std::string>();
    auto text = run_process({paddock::test::paddock_bin(), "doctor"});
    QVERIFY2(text.exit_code == 0, dump(text));
    const std::string expected =
        error.empty() ? "review mode: yes (an overlay mounts in the sandbox's user namespace)\n"
                      : "review mode: no (" + error + ": no overlay in a user namespace; --review is refused)\n";
    QVERIFY2(text.out.find(expected) != std::string::npos, dump(text));
  }

  void doctor_says_every_required_feature_works_where_namespaces_do() {
    if (!unshare_in_child(CLONE_NEWUSER)) PADDOCK_SKIP_KERNEL("the kernel gives this process no user namespace");
    json d = doctor_json();
    QCOMPARE(d["kernel"]["userns_blocked_by"].get<std::string>(), std::string("none"));
    QVERIFY2(d["refusals"].is_array(), d.dump().c_str());
    if (d["kernel"]["landlock_abi"].get<int>() > 0 && d["refusals"].empty()) {
      auto text = run_process({paddock::test::paddock_bin(), "doctor"});
      QVERIFY2(text.out.find("sandbox:     every required kernel feature works\n") != std::string::npos,
               dump(text));
    }
  }
};

QTEST_APPLESS_MAIN(DoctorTest)
#include "doctor_test.moc"
