// A running session's usage on its control socket ({"cmd":"usage"}), from the real helper, as
// root and as uid 65534: while the agent's tree holds memory and burns CPU, the answer shows the
// memory and the processes, its CPU time grows from one answer to the next, and it names the
// limits of the plan. Once from the session's cgroup leaf where the probe finds one, once with
// the cgroups forgotten (the probe handed to the helper is stripped of them), where it is read
// from /proc over the sandbox's processes.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/session/control.h"
#include "engine/session/usage_message.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/skip.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
using nlohmann::json;

class HelperUsageTest : public QObject {
  Q_OBJECT

  SandboxFixture fixture_;
  pid_t helper_ = -1;

  void forget_cgroups() {
    json p = json::parse(slurp(fixture_.probe_file));
    p["cgroup"]["v2_delegated_writable"] = false;
    p["cgroup"]["v2_controllers"] = json::array();
    p["cgroup"]["v1_writable"] = false;
    std::ofstream(fixture_.probe_file) << p.dump();
  }

  // Runs two processes that each hold 24 MiB and spin, and reads the usage while they do.
  void usage_grows_and_names_the_limits(bool with_cgroups) {
    QFETCH(uint, uid);
    remove_fixture(fixture_);
    fixture_ = make_fixture(uid);
    QVERIFY2(!fixture_.root.empty(), "fixture/probe failed");
    if (!with_cgroups) forget_cgroups();
    FrozenIr ir = base_ir(fixture_);
    ir.resources.cpu_seconds = 600;
    ir.resources.memory_bytes = 512ll << 20;
    // Without a cgroup a process limit is RLIMIT_NPROC, which binds nothing for root: refused (125).
    if (with_cgroups) ir.resources.processes = 64;
    const std::string probe = fixture_.probe_tool();
    HelperInvocation h =
        prepare_helper(fixture_, ir, {"/bin/sh", "-c", probe + " hold 24 & exec " + probe + " hold 24"});
    const std::string log = fixture_.root + "/log";
    helper_ = spawn_process(h.argv(), log);

    session::LiveUsage first;
    std::string last;
    // Both holders have touched their memory: the answer counts it (and init, the two of them).
    QVERIFY2(eventually([&] {
               last = control_line(h.control_socket, session::encode_control_request(session::request_of(session::ControlCommand::kUsage)));
               auto u = session::decode_usage_reply(last);
               if (!u.ok()) return false;
               first = *u;
               return u->memory_bytes >= (40ll << 20) && u->processes >= 3;
             }),
             (last + "\n" + slurp(log)).c_str());
    QCOMPARE(first.limits.cpu_ms, std::optional<std::int64_t>(600000));
    QCOMPARE(first.limits.memory_bytes, std::optional<std::int64_t>(512ll << 20));
    QCOMPARE(first.limits.processes, with_cgroups ? std::optional<std::int64_t>(64) : std::nullopt);
    // They spin: the tree's CPU time grows from one answer to the next.
    QVERIFY2(eventually([&] {
               last = control_line(h.control_socket, session::encode_control_request(session::request_of(session::ControlCommand::kUsage)));
               auto u = session::decode_usage_reply(last);
               return u.ok() && u->cpu_ms >= first.cpu_ms + 300;
             }),
             last.c_str());

    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})"), std::string(R"({"ok":true})"));
    int st = 0;
    while (::waitpid(helper_, &st, 0) < 0 && errno == EINTR) {}
    helper_ = -1;
    QVERIFY(slurp(h.session_dir + "/report.json").find("\"stopped\"") != std::string::npos);
  }

 private slots:
  void cleanup() {
    if (helper_ > 0) {
      ::kill(helper_, SIGKILL);  // a helper killed so leaves no process behind (helper_lifecycle_test)
      ::waitpid(helper_, nullptr, 0);
      helper_ = -1;
    }
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void the_usage_answer_grows_while_the_agent_works_and_names_the_limits_data() { add_uid_rows(); }
  void the_usage_answer_grows_while_the_agent_works_and_names_the_limits() { usage_grows_and_names_the_limits(true); }

  void without_a_cgroup_the_usage_is_read_from_the_sandboxs_processes_data() { add_uid_rows(); }
  void without_a_cgroup_the_usage_is_read_from_the_sandboxs_processes() { usage_grows_and_names_the_limits(false); }
};

QTEST_GUILESS_MAIN(HelperUsageTest)
#include "helper_usage_test.moc"
