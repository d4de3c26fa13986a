// The landlock tier (docs/capabilities.md, "Linux: the landlock tier"), black-box: the kernel is
// probed and the real paddock-helper runs under no_userns, a seccomp filter that refuses
// CLONE_NEWUSER as a container's default profile does, so user namespaces are truly unavailable.
// Each case as root and as uid 65534 (setpriv), and each would fail if its mechanism were missing.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <utility>

#include "backends/linux/kernel_probe.h"
#include "backends/linux/landlock_tier_plan.h"
#include "engine/session/control.h"
#include "engine/session/usage_message.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;

namespace {


bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

class HelperLandlockTierTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture f_;
  pid_t helper_ = -1;  // a session started in the background, killed if a case fails

  // A fixture whose probe was taken where user namespaces are refused.
  bool blocked_fixture() {
    if (!fixture_for_row(f_)) return false;
    RunOptions o;
    o.prefix = {no_userns_bin()};
    for (const auto& p : f_.prefix()) o.prefix.push_back(p);
    ProcessResult p = run_process({helper_bin(), "probe"}, o);
    if (p.exit_code != 0) return false;
    put(f_.probe_file, p.out);
    return true;
  }

  linux_backend::KernelProbe probe() const {
    return *linux_backend::probe_from_json(nlohmann::json::parse(slurp(f_.probe_file)));
  }

  FrozenIr tier_ir() const {
    FrozenIr ir = base_ir(f_);
    ir.meta.linux_tier = linux_backend::kTierLandlock;
    return ir;
  }

  ProcessResult run(const FrozenIr& ir, const std::vector<std::string>& cmd, HelperInvocation* out = nullptr) {
    HelperInvocation h = prepare_helper(f_, ir, cmd);
    if (out) *out = h;
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    o.env_override["LANG"] = "C.UTF-8";
    std::vector<std::string> argv = {no_userns_bin()};
    for (auto& a : h.argv()) argv.push_back(std::move(a));
    return run_process(argv, o);
  }

  ProcessResult sh(const FrozenIr& ir, const std::string& script, HelperInvocation* out = nullptr) {
    return run(ir, {"/bin/sh", "-c", script}, out);
  }

  std::string probe_cmd(const std::string& args) { return f_.probe_tool() + " " + args + "; "; }

 private slots:
  void cleanup() {
    if (helper_ > 0) {
      ::kill(helper_, SIGKILL);
      (void)wait_exit(std::exchange(helper_, -1));
    }
    remove_fixture(f_);
    f_ = {};
  }

  void the_probe_sees_no_user_namespaces_and_the_namespace_tier_refuses_naming_both_fixes_data() { add_uid_rows(); }
  void the_probe_sees_no_user_namespaces_and_the_namespace_tier_refuses_naming_both_fixes() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    QVERIFY(!probe().user_ns);
    const std::string marker = f_.project + "/src/ran.txt";
    ProcessResult r = run(base_ir(f_), {f_.probe_tool(), "write", marker});
    QCOMPARE(r.exit_code, 125);
    QVERIFY2(has(r.err, "--tier landlock"), r.err.c_str());
    QVERIFY(!std::filesystem::exists(marker));
  }

  void reads_outside_the_grants_and_masked_paths_are_denied_data() { add_uid_rows(); }
  void reads_outside_the_grants_and_masked_paths_are_denied() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    put(f_.root + "/outside-every-grant.txt", "NOT-GRANTED\n");
    chown_tree(f_.root + "/outside-every-grant.txt", f_.uid);
    ProcessResult r = sh(tier_ir(), probe_cmd("read " + f_.root + "/outside-every-grant.txt") +
                                        probe_cmd("read " + f_.home + "/notes.txt") +
                                        probe_cmd("read " + f_.home + "/.ssh/id_rsa") +
                                        probe_cmd("read " + f_.home + "/.aws/credentials") +
                                        probe_cmd("read " + f_.project + "/.env") +
                                        probe_cmd("read " + f_.project + "/link-to-env") +
                                        probe_cmd("read " + f_.project + "/link-to-ssh") +
                                        probe_cmd("read " + f_.project + "/src/main.txt") + "ls " + f_.home + "/.ssh");
    QVERIFY2(r.exit_code != 125, r.err.c_str());
    const std::string expected = "read:EACCES\nread:ok:12:plain notes\n\nread:EACCES\nread:EACCES\nread:EACCES\n"
                                 "read:EACCES\nread:EACCES\nread:ok:23:hello from the project\n\nid_rsa\n";
    QCOMPARE(QString::fromStdString(r.out), QString::fromStdString(expected));
  }

  void writes_to_read_only_roots_and_protected_paths_are_denied_and_links_cannot_carry_a_mask_away_data() { add_uid_rows(); }
  void writes_to_read_only_roots_and_protected_paths_are_denied_and_links_cannot_carry_a_mask_away() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    FrozenIr ir = tier_ir();
    ir.fs.deny_write = {{f_.project + "/src/main.txt", PathKind::kFile}};
    normalize(ir);
    ProcessResult r = sh(ir, probe_cmd("write " + f_.outside + "/readme.txt") + probe_cmd("write /etc/paddock-tier") +
                                 probe_cmd("write " + f_.project + "/src/main.txt") +
                                 probe_cmd("read " + f_.project + "/src/main.txt") +
                                 probe_cmd("write " + f_.project + "/src/new.txt") +
                                 "ln " + f_.project + "/.env " + f_.project + "/src/leak 2>/dev/null || echo link:refused; " +
                                 "mv " + f_.project + "/.env " + f_.project + "/src/moved 2>/dev/null || echo move:refused; " +
                                 "mv " + f_.project + "/src " + f_.project + "/src2 2>/dev/null || echo rename:refused");
    QVERIFY2(r.exit_code != 125, r.err.c_str());
    // src/new.txt is refused too: src holds the read-only main.txt, and nothing can be created
    // directly in a directory the carving lists (the row's stated loss, docs/capabilities.md).
    QCOMPARE(QString::fromStdString(r.out),
             QString("write:EACCES\nwrite:EACCES\nwrite:EACCES\nread:ok:23:hello from the project\n\nwrite:EACCES\n"
                     "link:refused\nmove:refused\nrename:refused\n"));
    QCOMPARE(slurp(f_.project + "/.env"), std::string("SECRET-DOTENV\n"));
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("hello from the project\n"));
  }

  // The carving's loss, and no more: nothing can be created directly in the directory that
  // holds a masked path (the project's root holds .env), while its other directories are writable.
  void a_directory_holding_a_masked_path_is_listable_but_nothing_can_be_created_in_it_data() { add_uid_rows(); }
  void a_directory_holding_a_masked_path_is_listable_but_nothing_can_be_created_in_it() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    ProcessResult r = sh(tier_ir(), probe_cmd("write " + f_.project + "/new.txt") +
                                        probe_cmd("write " + f_.project + "/src/new.txt") + "ls " + f_.project);
    QCOMPARE(QString::fromStdString(r.out), QString("write:EACCES\nwrite:ok\nlink-to-env\nlink-to-ssh\nsrc\n"));
  }

  void the_network_is_off_every_socket_family_is_refused_and_socketpair_works_data() { add_uid_rows(); }
  void the_network_is_off_every_socket_family_is_refused_and_socketpair_works() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    ProcessResult r = run(tier_ir(), {f_.probe_tool(), "sockets"});
    QVERIFY2(r.exit_code == 0, r.err.c_str());
    for (const char* fam : {"unix", "inet", "inet6", "netlink", "packet"})
      QVERIFY2(has(r.out, std::string("socket_") + fam + ":EAFNOSUPPORT"), r.out.c_str());
    // A shell pipeline and a socketpair-based tool still work.
    ProcessResult p = sh(tier_ir(), "python3 -c 'import socket; a,b=socket.socketpair(); a.send(b\"x\"); print(b.recv(1))'");
    QVERIFY2(has(p.out, "b'x'"), (p.out + p.err).c_str());
  }

  // The loss of fs.tmp_isolated: /tmp is the host's and not granted; TMPDIR is private, in the
  // session's directory.
  void tmp_is_the_hosts_and_closed_while_tmpdir_is_private_in_the_session_data() { add_uid_rows(); }
  void tmp_is_the_hosts_and_closed_while_tmpdir_is_private_in_the_session() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    HelperInvocation h;
    ProcessResult r = sh(tier_ir(), probe_cmd("write /tmp/paddock-tier-" + std::to_string(::getpid())) +
                                        "echo \"$TMPDIR\"; " + probe_cmd("write \"$TMPDIR/x\""), &h);
    QCOMPARE(QString::fromStdString(r.out), QString::fromStdString("write:EACCES\n" + h.session_dir + "/tmp\nwrite:ok\n"));
    QVERIFY(std::filesystem::exists(h.session_dir + "/tmp/x"));
    QVERIFY(std::filesystem::exists(h.session_dir + "/attestation.json"));
    QVERIFY(has(slurp(h.session_dir + "/report.json"), "\"exited\""));
  }

  // The report's usage covers the agent's tree, an orphan the agent never waited for included
  // (the helper reaps it as the subreaper): here 64 MiB and 300 ms of CPU spent by an orphan only.
  void the_report_counts_the_cpu_and_memory_of_an_orphan_the_agent_never_waited_for_data() { add_uid_rows(); }
  void the_report_counts_the_cpu_and_memory_of_an_orphan_the_agent_never_waited_for() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    HelperInvocation h;
    ProcessResult r = sh(tier_ir(),
                         "python3 -c 'import time; x = bytearray(64 << 20); t = time.process_time()\n"
                         "while time.process_time() - t < 0.3: pass' & sleep 2",
                         &h);
    QVERIFY2(r.exit_code == 0, r.err.c_str());
    const auto usage = nlohmann::json::parse(slurp(h.session_dir + "/report.json")).at("usage");
    QVERIFY2(usage.at("cpu_ms").get<long>() >= 300, usage.dump().c_str());
    QVERIFY2(usage.at("max_rss").get<long>() >= (64L << 20), usage.dump().c_str());
  }

  // The control socket's usage request, answered as every session answers it: the agent's tree
  // (an orphan holding memory and the agent holding its own) and the plan's limits, its CPU time
  // growing while they spin.
  void a_running_session_answers_the_usage_request_with_its_tree_and_limits_data() { add_uid_rows(); }
  void a_running_session_answers_the_usage_request_with_its_tree_and_limits() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    FrozenIr ir = tier_ir();
    ir.resources.cpu_seconds = 600;
    ir.resources.memory_bytes = 512ll << 20;
    normalize(ir);
    const std::string probe = f_.probe_tool();
    // The first holder is orphaned at once: only the helper, as the subreaper, still sees it.
    HelperInvocation h = prepare_helper(
        f_, ir, {"/bin/sh", "-c", "(" + probe + " hold 24 &) ; exec " + probe + " hold 24"});
    std::vector<std::string> argv = {no_userns_bin()};
    for (auto& a : h.argv()) argv.push_back(std::move(a));
    RunOptions o;
    o.cwd = f_.project;
    const std::string log = f_.root + "/helper.log";
    helper_ = spawn_process(argv, log, o);
    const std::string request = session::encode_control_request(session::request_of(session::ControlCommand::kUsage));
    session::LiveUsage first;
    std::string last;
    QVERIFY2(eventually([&] {
               last = control_line(h.control_socket, request);
               auto u = session::decode_usage_reply(last);
               if (!u.ok()) return false;
               first = *u;
               return u->memory_bytes >= (40ll << 20) && u->processes >= 2;
             }),
             (last + "\n" + slurp(log)).c_str());
    QCOMPARE(first.limits.cpu_ms, std::optional<std::int64_t>(600000));
    QCOMPARE(first.limits.memory_bytes, std::optional<std::int64_t>(512ll << 20));
    QVERIFY2(eventually([&] {
               last = control_line(h.control_socket, request);
               auto u = session::decode_usage_reply(last);
               return u.ok() && u->cpu_ms >= first.cpu_ms + 300;
             }),
             last.c_str());
    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})"), std::string(R"({"ok":true})"));
    (void)wait_exit(std::exchange(helper_, -1));
    QVERIFY(has(slurp(h.session_dir + "/report.json"), "\"stopped\""));
  }

  void a_published_port_which_needs_the_sandboxs_own_network_is_refused_before_the_agent_starts_data() { add_uid_rows(); }
  void a_published_port_which_needs_the_sandboxs_own_network_is_refused_before_the_agent_starts() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    FrozenIr ir = tier_ir();
    ir.egress.mode = NetMode::kAllowlist;
    ir.egress.domains = {"example.com"};
    ir.egress.publish = {8080};
    normalize(ir);
    const std::string marker = f_.project + "/src/ran.txt";
    ProcessResult r = run(ir, {f_.probe_tool(), "write", marker});
    QCOMPARE(r.exit_code, 125);
    QVERIFY2(has(r.err, "needs a network namespace of the sandbox's own"), r.err.c_str());
    QVERIFY(!std::filesystem::exists(marker));
  }

  void a_mask_whose_carving_exceeds_the_budget_is_refused_before_the_agent_starts_data() { add_uid_rows(); }
  void a_mask_whose_carving_exceeds_the_budget_is_refused_before_the_agent_starts() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    const std::string big = f_.outside + "/big";
    std::filesystem::create_directories(big);
    for (int i = 0; i <= linux_backend::kCarveBudget; ++i) std::ofstream(big + "/f" + std::to_string(i)) << i;
    chown_tree(big, f_.uid);
    FrozenIr ir = tier_ir();
    ir.fs.deny.push_back({big + "/f0", PathKind::kFile});
    normalize(ir);
    const std::string marker = f_.project + "/src/ran.txt";
    ProcessResult r = run(ir, {f_.probe_tool(), "write", marker});
    QCOMPARE(r.exit_code, 125);
    QVERIFY2(has(r.err, "needs more than 4096 Landlock rules"), r.err.c_str());
    QVERIFY(!std::filesystem::exists(marker));
  }

  // The loss of the PID namespace, and the sweep that bounds it: a daemon that left the agent's
  // process group outlives the agent, and is killed when the session ends.
  void a_process_that_leaves_the_agents_group_is_swept_at_the_end_data() { add_uid_rows(); }
  void a_process_that_leaves_the_agents_group_is_swept_at_the_end() {
    QVERIFY2(blocked_fixture(), "fixture/probe failed");
    ProcessResult r = sh(tier_ir(), "setsid sh -c 'sleep 300 & echo $! > " + f_.project + "/src/daemon.pid; wait' & sleep 0.5");
    QVERIFY2(has(r.err, "left the agent's process group"), r.err.c_str());
    const pid_t daemon = static_cast<pid_t>(std::stol(slurp(f_.project + "/src/daemon.pid")));
    QVERIFY(daemon > 0);
    QVERIFY2(eventually([&] { return ::kill(daemon, 0) != 0; }, 5), "the daemon outlived the session");
  }
};

QTEST_GUILESS_MAIN(HelperLandlockTierTest)
#include "helper_landlock_tier_test.moc"
