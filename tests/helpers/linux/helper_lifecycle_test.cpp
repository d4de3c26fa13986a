// Session lifecycle of the real helper: stop (control socket) and timeout kill setsid'ed and
// double-forked descendants; SIGKILL of the helper leaves zero processes. Each case as root and
// as uid 65534. (Limits: helper_limits_test.)
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"
#include "tests/support/skip.h"

using namespace paddock;
using namespace paddock::test;

namespace {

// A shell that leaves a setsid'ed and a double-forked sleeper behind, each tagged by marker.
std::vector<std::string> escaping_tree(const std::string& marker) {
  return {"/bin/sh", "-c",
          "setsid sleep 1000." + marker + " & (sleep 1000." + marker + " &) ; sleep 1000." + marker};
}

}  // namespace

class HelperLifecycleTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;
  int marker_seq_ = 0;

  std::string new_marker() { return std::to_string(::getpid() % 100000) + std::to_string(++marker_seq_) + "7"; }

 private slots:
  void cleanup() { remove_fixture(fixture_); fixture_ = {}; }

  void setsid_and_double_forked_children_die_at_timeout_data() { add_uid_rows(); }
  void setsid_and_double_forked_children_die_at_timeout() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    std::string marker = new_marker();
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), escaping_tree(marker), [](auto& a) { a.timeout_secs = 2; });
    pid_t pid = spawn_process(h.argv(), fixture_.root + "/log");
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) >= 4; }));  // helper + 3 sleeps
    int code = wait_exit(pid);
    QVERIFY2(code == 124, slurp(fixture_.root + "/log").c_str());
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) == 0; }));
    QVERIFY(slurp(h.session_dir + "/events.jsonl").find("\"wall_time\"") != std::string::npos);
    QVERIFY(slurp(h.session_dir + "/report.json").find("\"timeout\"") != std::string::npos);
  }

  void setsid_and_double_forked_children_die_at_stop_data() { add_uid_rows(); }
  void setsid_and_double_forked_children_die_at_stop() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    std::string marker = new_marker();
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), escaping_tree(marker));
    pid_t pid = spawn_process(h.argv(), fixture_.root + "/log");
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) >= 4; }));
    QVERIFY(std::filesystem::exists(h.control_socket));
    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})"), std::string(R"({"ok":true})"));
    int code = wait_exit(pid);
    QVERIFY2(code == 128 + SIGTERM || code == 128 + SIGKILL, slurp(fixture_.root + "/log").c_str());
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) == 0; }));
    QVERIFY(!std::filesystem::exists(h.control_socket));
    QVERIFY(slurp(h.session_dir + "/report.json").find("\"stopped\"") != std::string::npos);
  }

  // The sandbox's init makes its network namespace while the helper writes its id maps. When
  // the kernel refuses that namespace (here: a user namespace around the helper allows none), the
  // helper must still end with 125, one line naming the cause, and a failed session, not die of
  // SIGPIPE on the release pipe or blame the id maps.
  void a_sandbox_that_cannot_get_a_network_namespace_fails_with_the_cause_data() { add_uid_rows(); }
  void a_sandbox_that_cannot_get_a_network_namespace_fails_with_the_cause() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    // The helper runs as uid 0 of a user namespace of the row's uid; that namespace allows no
    // network namespace below it. The probe is taken in the same kind of namespace (it records the
    // user), before the limit: the refusal must come from the kernel at setup, not from the plan.
    auto in_userns = [&](const std::string& before_exec, const std::vector<std::string>& cmd) {
      std::vector<std::string> argv = fixture_.prefix();
      for (const auto& a : {std::string("unshare"), std::string("-Ur"), std::string("/bin/sh"), std::string("-c"),
                            before_exec + "exec \"$@\"", std::string("sh")})
        argv.push_back(a);
      argv.insert(argv.end(), cmd.begin(), cmd.end());
      return argv;
    };
    // Whether the kernel gives this uid a nested user namespace is the kernel's to say (asked with
    // /bin/true); the helper's probe inside one must then work.
    auto userns = run_process(in_userns("", {"/bin/true"}));
    if (userns.exit_code != 0) PADDOCK_SKIP_KERNEL("no nested user namespace for this uid: " + userns.err);
    auto probe = run_process(in_userns("", {helper_bin(), "probe"}));
    QVERIFY2(probe.exit_code == 0, dump(probe));
    SandboxFixture nested = fixture_;
    nested.probe_file = fixture_.root + "/probe-nested.json";
    { std::ofstream(nested.probe_file) << probe.out; }
    std::string marker = new_marker();
    HelperInvocation h = prepare_helper(nested, base_ir(nested), {"/bin/echo", "ran." + marker});
    const std::vector<std::string> helper_argv = h.helper_argv();
    auto r = run_process(in_userns("echo 0 > /proc/sys/user/max_net_namespaces && ", helper_argv));
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.err.find("network namespace") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("ran." + marker) == std::string::npos, dump(r));
    const std::string report = slurp(h.session_dir + "/report.json");
    QVERIFY2(report.find("\"failed\"") != std::string::npos, report.c_str());
    QVERIFY2(report.find("network namespace") != std::string::npos, report.c_str());
  }

  // The control socket is made while the sandbox builds its view: a socket that cannot be made
  // still ends the session before the agent starts, with one line and a failed session.
  void a_control_socket_that_cannot_be_made_fails_the_session_before_the_agent_starts_data() { add_uid_rows(); }
  void a_control_socket_that_cannot_be_made_fails_the_session_before_the_agent_starts() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    std::string marker = new_marker();
    const std::string not_a_dir = fixture_.state + "/plain-file";
    { std::ofstream(not_a_dir) << "x"; }
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {"/bin/echo", "ran." + marker});
    h.args.control_socket = not_a_dir + "/s.sock";
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.err.find("plain-file") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("ran." + marker) == std::string::npos, dump(r));
    QVERIFY2(slurp(h.session_dir + "/report.json").find("\"failed\"") != std::string::npos, dump(r));
  }

  // The broker holds descriptors for each connection the agent opens to the proxy. At the caller's
  // soft limit (1024 here) an agent's flood of connections used up the helper's descriptors: its
  // control socket then accepted nobody (`paddock stop` said "not running") and the report could
  // not be written. The helper takes its hard limit and caps the broker's connections below it.
  void a_flood_of_proxy_connections_leaves_the_helper_able_to_stop_and_report_data() { add_uid_rows(); }
  void a_flood_of_proxy_connections_leaves_the_helper_able_to_stop_and_report() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    FrozenIr ir = base_ir(fixture_);
    ir.egress.mode = NetMode::kAllowlist;
    ir.resources.open_files = 4096;  // the agent may hold as many sockets as the hard limit allows
    normalize(ir);
    // More than the caller's soft limit, more than the broker may serve within the hard limit.
    HelperInvocation h = prepare_helper(fixture_, ir, {fixture_.probe_tool(), "flood", "3128", "1500"});
    std::vector<std::string> argv = {"prlimit", "--nofile=1024:4096", "--"};
    const std::vector<std::string> helper = h.argv();
    argv.insert(argv.end(), helper.begin(), helper.end());
    const std::string log = fixture_.root + "/log";
    pid_t pid = spawn_process(argv, log);
    QVERIFY2(eventually([&] { return slurp(log).find("flood:") != std::string::npos; }, 60), slurp(log).c_str());
    // More connections than the caller's soft limit reached the proxy (the broker closes those
    // past its cap, but accepts them).
    const std::string flood = slurp(log);
    QVERIFY2(std::atoi(flood.c_str() + flood.find("flood:") + 6) > 1100, flood.c_str());
    // The broker holds the connections it accepted (none has sent a request yet): the helper
    // (prlimit and setpriv exec it, so pid is the helper) still has descriptors to spare.
    const std::filesystem::directory_iterator fds("/proc/" + std::to_string(pid) + "/fd");
    const auto open_fds = std::distance(std::filesystem::begin(fds), std::filesystem::end(fds));
    long soft = 0;
    std::istringstream limits(slurp("/proc/" + std::to_string(pid) + "/limits"));
    for (std::string line; std::getline(limits, line);)
      if (line.rfind("Max open files", 0) == 0) soft = std::atol(line.c_str() + 26);
    QVERIFY2(soft > 0 && open_fds + 64 <= soft,
             ("open " + std::to_string(open_fds) + " of " + std::to_string(soft)).c_str());
    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})"), std::string(R"({"ok":true})"));
    int code = wait_exit(pid);
    QVERIFY2(code == 128 + SIGTERM || code == 128 + SIGKILL, slurp(log).c_str());
    const std::string report = slurp(h.session_dir + "/report.json");
    QVERIFY2(report.find("\"stopped\"") != std::string::npos, (slurp(log) + report).c_str());
    QVERIFY(slurp(h.session_dir + "/events.jsonl").find("connection_limit") != std::string::npos);
  }

  void sigkill_of_the_helper_leaves_zero_processes_data() { add_uid_rows(); }
  void sigkill_of_the_helper_leaves_zero_processes() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    std::string marker = new_marker();
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), escaping_tree(marker));
    pid_t pid = spawn_process(h.argv(), fixture_.root + "/log");
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) >= 4; }));
    // setpriv execs the helper, so pid is the helper itself.
    ::kill(pid, SIGKILL);
    QCOMPARE(wait_exit(pid), 128 + SIGKILL);
    QVERIFY(eventually([&] { return count_processes_with("1000." + marker) == 0; }));
  }
};

QTEST_GUILESS_MAIN(HelperLifecycleTest)
#include "helper_lifecycle_test.moc"
