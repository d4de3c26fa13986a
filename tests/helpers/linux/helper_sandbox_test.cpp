// The Linux helper's boundary, black-box: the real paddock-helper on the real kernel, each case
// as root and as uid 65534 (setpriv). Every case would fail if the mechanism were missing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QtTest>

#include <algorithm>
#include <sstream>
#include <filesystem>
#include <fstream>

#include "engine/engine.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;

class HelperSandboxTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;

  ProcessResult probe(const std::vector<std::string>& args) {
    std::vector<std::string> cmd = {fixture_.probe_tool()};
    cmd.insert(cmd.end(), args.begin(), args.end());
    return run_helper(fixture_, base_ir(fixture_), cmd);
  }

  // The IR the engine freezes for the fixture with a built-in profile (what `paddock run` would
  // hand the helper), the probe tool granted. The test's own system dir taints the plan.
  FrozenIr profile_ir(const std::string& profile, const std::string& agent,
                      const std::vector<std::string>& reads = {},
                      const std::map<std::string, std::string>& env = {}) {
    Inputs in;
    in.project = fixture_.project;
    in.profile = profile;
    in.agent = agent;
    in.resources_dir = paddock::test::source_dir() + "/resources";
    in.environment = {{"HOME", fixture_.home}, {"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"},
                      {"PADDOCK_SYSTEM_DIR", fixture_.root + "/etc-paddock"}};
    for (const auto& [k, v] : env) in.environment[k] = v;
    in.allow_reads = reads;
    in.allow_reads.push_back(fixture_.tools);
    auto e = evaluate(in);
    if (!e.ok()) qFatal("evaluate: %s", e.error().message.c_str());
    return e->ir;
  }

  ProcessResult probe_with(const FrozenIr& ir, const std::vector<std::string>& args) {
    std::vector<std::string> cmd = {fixture_.probe_tool()};
    cmd.insert(cmd.end(), args.begin(), args.end());
    return run_helper(fixture_, ir, cmd, [](auto& a) { a.allow_tainted = true; });
  }

 private slots:
  void cleanup() { remove_fixture(fixture_); fixture_ = {}; }

  // Some distributions install helpers execute-only (mode 0111). The kernel then starts the
  // helper non-dumpable, which made its /proc files root's: it could not write the id maps of the
  // sandbox it made (exit 125, "cannot write /proc/PID/setgroups"). It works as any install does.
  void an_execute_only_helper_builds_the_sandbox_as_any_install_does_data() { add_uid_rows(); }
  void an_execute_only_helper_builds_the_sandbox_as_any_install_does() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string dir = fixture_.root + "/execute-only";
    std::filesystem::create_directories(dir);
    const std::string helper = dir + "/paddock-helper";
    std::filesystem::copy_file(helper_bin(), helper);
    QCOMPARE(::chmod(helper.c_str(), 0111), 0);
    QCOMPARE(::chmod(dir.c_str(), 0755), 0);
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {fixture_.probe_tool(), "write", fixture_.project + "/xo.txt"});
    std::vector<std::string> argv = h.prefix;
    argv.push_back(helper);
    const auto rest = h.helper_argv();
    argv.insert(argv.end(), rest.begin() + 1, rest.end());
    RunOptions o;
    o.env_override = {{"HOME", fixture_.home}, {"LANG", "C.UTF-8"}};
    auto r = run_process(argv, o);
    QVERIFY2(r.exit_code == 0 && r.out.find("write:ok") != std::string::npos, dump(r));
    auto probe = run_process([&] {
      std::vector<std::string> p = h.prefix;
      p.insert(p.end(), {helper, "probe"});
      return p;
    }());
    QVERIFY2(probe.exit_code == 0 && probe.out.find("\"user\":true") != std::string::npos, dump(probe));
  }

  void writes_inside_the_project_land_and_writes_outside_are_denied_data() { add_uid_rows(); }
  void writes_inside_the_project_land_and_writes_outside_are_denied() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    auto in = probe({"write", fixture_.project + "/src/new.txt"});
    QVERIFY2(in.out.find("write:ok") != std::string::npos, dump(in));
    QCOMPARE(slurp(fixture_.project + "/src/new.txt"), std::string("written-in-sandbox\n"));
    for (const std::string& target : {fixture_.outside + "/new.txt", fixture_.home + "/new.txt",
                                      std::string("/etc/paddock-test-file"), std::string("/usr/paddock-test"),
                                      fixture_.root + "/state/not-granted.txt"}) {
      auto out = probe({"write", target});
      QVERIFY2(out.exit_code == 0 && out.out.find("write:E") != std::string::npos,
               (target + "\n" + dump(out).toStdString()).c_str());
      QVERIFY2(!std::filesystem::exists(target), target.c_str());
    }
  }

  // The built-in lists as the real sandbox applies them: credential stores of other tools, a
  // history, another agent's login and secret-shaped project files read as empty, directly and
  // through a symlink in the project; the files the user's tools execute cannot be written.
  void the_profiles_credential_masks_hold_in_the_sandbox_data() { add_uid_rows(); }
  void the_profiles_credential_masks_hold_in_the_sandbox() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::vector<std::string> secrets = {
        fixture_.home + "/.pgpass", fixture_.home + "/.config/git/credentials", fixture_.home + "/.codex/auth.json",
        fixture_.home + "/.bash_history", fixture_.home + "/.m2/settings.xml", fixture_.project + "/deploy_rsa",
        fixture_.project + "/config/prod.env", fixture_.project + "/.npmrc", fixture_.project + "/infra/terraform.tfstate"};
    auto plant = [](const std::string& p, const std::string& text) {
      std::filesystem::create_directories(std::filesystem::path(p).parent_path());
      put(p, text);
    };
    for (const auto& p : secrets) plant(p, "SECRET-" + p + "\n");
    plant(fixture_.project + "/.vscode/tasks.json", "{}\n");
    std::filesystem::create_symlink(fixture_.home + "/.pgpass", fixture_.project + "/link-to-pgpass");
    chown_tree(fixture_.root, fixture_.uid);
    // permissive reads the whole home: every mask matters.
    const FrozenIr ir = profile_ir("permissive", "claude-code");
    for (const auto& p : secrets) {
      QVERIFY2(slurp(p).find("SECRET") == 0, p.c_str());  // planted: the host reads it
      auto r = probe_with(ir, {"read", p});
      QVERIFY2(r.exit_code == 0 && r.out.find("SECRET") == std::string::npos, (p + "\n" + dump(r).toStdString()).c_str());
      QVERIFY2(r.out.find("read:ok:0:") != std::string::npos || r.out.find("read:E") != std::string::npos, dump(r));
    }
    auto link = probe_with(ir, {"read", fixture_.project + "/link-to-pgpass"});
    QVERIFY2(link.out.find("SECRET") == std::string::npos, dump(link));
    auto w = probe_with(ir, {"write", fixture_.project + "/.vscode/tasks.json"});
    QVERIFY2(w.out.find("write:E") != std::string::npos, dump(w));
    QCOMPARE(slurp(fixture_.project + "/.vscode/tasks.json"), std::string("{}\n"));
    // The masks are narrow: the rest of the home and project still read.
    auto notes = probe_with(ir, {"read", fixture_.home + "/notes.txt"});
    QVERIFY2(notes.out.find("plain notes") != std::string::npos, dump(notes));
    auto src = probe_with(ir, {"read", fixture_.project + "/src/main.txt"});
    QVERIFY2(src.out.find("hello from the project") != std::string::npos, dump(src));
  }

  // A host control socket inside a grant (here a runtime directory the user granted) cannot be
  // connected to: the engine's scan masks it, and a symlink or hard link to it made beforehand in
  // the project leads to a mask too.
  void a_socket_under_a_grant_cannot_be_connected_to_data() { add_uid_rows(); }
  void a_socket_under_a_grant_cannot_be_connected_to() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string rt = fixture_.root + "/run-user";
    const std::string sock = rt + "/emacs/server";  // a name no built-in list knows
    std::filesystem::create_directories(rt + "/emacs");
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
    QVERIFY(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(s, 16) == 0);
    ::chmod(sock.c_str(), 0777);  // connectable by the row's uid, were it not masked
    std::filesystem::create_symlink(sock, fixture_.project + "/link-to-manager");
    QVERIFY(::link(sock.c_str(), (fixture_.project + "/manager-twin").c_str()) == 0);
    chown_tree(fixture_.root, fixture_.uid);
    const FrozenIr ir = profile_ir("default", "", {rt}, {{"XDG_RUNTIME_DIR", rt}});
    for (const std::string& path : {sock, fixture_.project + "/link-to-manager", fixture_.project + "/manager-twin"}) {
      auto r = probe_with(ir, {"unix-connect", path});
      QVERIFY2(r.exit_code == 0 && r.out.find("unix_connect:E") != std::string::npos, (path + "\n" + dump(r).toStdString()).c_str());
    }
    ::close(s);
  }

  void secrets_read_as_empty_or_absent_even_through_symlinks_data() { add_uid_rows(); }
  void secrets_read_as_empty_or_absent_even_through_symlinks() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    for (const std::string& path :
         {fixture_.home + "/.ssh/id_rsa", fixture_.home + "/.aws/credentials", fixture_.project + "/.env",
          fixture_.project + "/link-to-env", fixture_.project + "/link-to-ssh", std::string("/etc/shadow")}) {
      auto r = probe({"read", path});
      QVERIFY2(r.exit_code == 0, dump(r));
      QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
      QVERIFY2(r.out.find("read:ok:0:") != std::string::npos || r.out.find("read:E") != std::string::npos,
               dump(r));
      if (path == "/etc/shadow") QVERIFY2(r.out.find("root:") == std::string::npos, dump(r));
    }
    // The grants themselves still read: the masks are narrow.
    auto ok = probe({"read", fixture_.project + "/src/main.txt"});
    QVERIFY2(ok.out.find("hello from the project") != std::string::npos, dump(ok));
    auto notes = probe({"read", fixture_.home + "/notes.txt"});
    QVERIFY2(notes.out.find("plain notes") != std::string::npos, dump(notes));
  }

  void a_masked_file_cannot_be_renamed_or_hard_linked_away_data() { add_uid_rows(); }
  void a_masked_file_cannot_be_renamed_or_hard_linked_away() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string env = fixture_.project + "/.env";
    auto r = run_helper(fixture_, base_ir(fixture_),
                        {"/bin/sh", "-c", "mv " + env + " " + fixture_.project + "/moved; ln " + env + " " +
                                              fixture_.project + "/hard; cat " + fixture_.project +
                                              "/moved " + fixture_.project + "/hard; true"});
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QCOMPARE(slurp(env), std::string("SECRET-DOTENV\n"));
  }

  void host_secrets_in_the_environment_are_absent_data() { add_uid_rows(); }
  void host_secrets_in_the_environment_are_absent() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    RunOptions o;
    o.env_override = {{"AWS_SECRET_ACCESS_KEY", "HOSTSECRET1"}, {"GITHUB_TOKEN", "HOSTSECRET2"},
                      {"PADDOCK_UNLISTED", "HOSTSECRET3"}};
    auto r = run_helper(fixture_, base_ir(fixture_), {"/usr/bin/env"}, {}, o);
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("HOSTSECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("HOME=" + fixture_.home) != std::string::npos, dump(r));
    QVERIFY2(r.out.find("LANG=C.UTF-8") != std::string::npos, dump(r));  // passed by name
  }

  void net_off_cannot_reach_a_server_on_the_host_loopback_data() { add_uid_rows(); }
  void net_off_cannot_reach_a_server_on_the_host_loopback() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QVERIFY(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(s, 4) == 0);
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    int port = ntohs(a.sin_port);
    // Control: the same probe outside the sandbox connects.
    auto direct = run_process({fixture_.probe_tool(), "connect", std::to_string(port)});
    QVERIFY2(direct.out.find("connect:ok") != std::string::npos, dump(direct));
    auto r = probe({"connect", std::to_string(port)});
    ::close(s);
    QVERIFY2(r.exit_code == 0 && r.out.find("connect:E") != std::string::npos, dump(r));
  }

  // The sandbox's loopback is its own: a server there binds and answers its client, even on a
  // port a host server holds (a different namespace), and a layer can forbid binding.
  void the_sandbox_binds_its_own_loopback_unless_a_layer_forbids_it_data() { add_uid_rows(); }
  void the_sandbox_binds_its_own_loopback_unless_a_layer_forbids_it() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QVERIFY(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(s, 4) == 0);
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    const std::string port = std::to_string(ntohs(a.sin_port));
    auto r = probe({"serve-loopback", port});
    QVERIFY2(r.exit_code == 0 && r.out.find("bind4:ok") != std::string::npos && r.out.find("bind6:ok") != std::string::npos &&
                 r.out.find("selfconnect:ok") != std::string::npos,
             dump(r));
    FrozenIr forbid = base_ir(fixture_);
    forbid.egress.loopback_bind = false;
    auto f = probe_with(forbid, {"serve-loopback", port});
    ::close(s);
    QVERIFY2(f.exit_code == 0 && f.out.find("bind4:EACCES") != std::string::npos && f.out.find("bind6:EACCES") != std::string::npos,
             dump(f));
  }

  void forbidden_socket_families_fail_with_eafnosupport_data() { add_uid_rows(); }
  void forbidden_socket_families_fail_with_eafnosupport() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    auto r = probe({"sockets"});
    QVERIFY2(r.exit_code == 0, dump(r));
    for (const char* allowed : {"socket_unix:ok", "socket_inet:ok"})
      QVERIFY2(r.out.find(allowed) != std::string::npos, dump(r));
    for (const char* fam : {"netlink", "packet", "key", "alg", "vsock", "bluetooth", "family200"})
      QVERIFY2(r.out.find(std::string("socket_") + fam + ":EAFNOSUPPORT") != std::string::npos, dump(r));
  }

  void forbidden_syscalls_fail_with_eperm_data() { add_uid_rows(); }
  void forbidden_syscalls_fail_with_eperm() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    auto r = probe({"syscalls"});
    QVERIFY2(r.exit_code == 0, dump(r));
    for (const char* name :
         {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "mount", "umount2", "pivot_root",
          "bpf", "perf_event_open", "kexec_load", "init_module", "finit_module", "delete_module", "keyctl",
          "userfaultfd", "io_uring_setup", "ioctl_tiocsti", "ioctl_tiocsti_high_bits", "ioctl_tioclinux",
          "unshare_user", "setns"})
      QVERIFY2(r.out.find(std::string(name) + ":EPERM\n") != std::string::npos,
               (std::string(name) + " not EPERM\n" + dump(r).toStdString()).c_str());
  }

  void tmp_is_private_data() { add_uid_rows(); }
  void tmp_is_private() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string host_marker = "/tmp/paddock-host-only-" + std::to_string(::getpid());
    std::ofstream(host_marker) << "host\n";
    const std::string inside = "/tmp/paddock-inside-" + std::to_string(::getpid());
    auto r = run_helper(fixture_, base_ir(fixture_),
                        {"/bin/sh", "-c", "ls -a /tmp; echo made > " + inside + " && echo wrote"});
    std::filesystem::remove(host_marker);
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("paddock-host-only") == std::string::npos, dump(r));
    QVERIFY(!std::filesystem::exists(inside));
  }

  // The view is built beside the host root (staged at /oldroot), which is then detached with the
  // staging root in one lazy unmount: nothing of it, and none of the host's own mounts (sysfs,
  // cgroups), may remain in the agent's mount table.
  void the_view_keeps_no_host_root_and_no_host_mounts_data() { add_uid_rows(); }
  void the_view_keeps_no_host_root_and_no_host_mounts() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    auto r = run_helper(fixture_, base_ir(fixture_), {"/bin/cat", "/proc/self/mountinfo"});
    QVERIFY2(r.exit_code == 0 && r.out.find(" / / ") != std::string::npos, dump(r));
    std::istringstream lines(r.out);
    std::string line;
    int mounts = 0;
    while (std::getline(lines, line)) {
      std::istringstream f(line);
      std::string id, parent, dev, root, point;
      f >> id >> parent >> dev >> root >> point;
      const std::string fstype = line.substr(line.find(" - ") + 3, line.find(' ', line.find(" - ") + 3) - line.find(" - ") - 3);
      ++mounts;
      QVERIFY2(point.rfind("/oldroot", 0) != 0 && point.rfind("/newroot", 0) != 0, line.c_str());
      QVERIFY2(fstype != "sysfs" && fstype.rfind("cgroup", 0) != 0 && fstype != "mqueue", line.c_str());
    }
    QVERIFY2(mounts > 5, r.out.c_str());
  }

  void the_agents_exit_code_and_signal_come_back_data() { add_uid_rows(); }
  void the_agents_exit_code_and_signal_come_back() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    QCOMPARE(probe({"exit", "7"}).exit_code, 7);
    QCOMPARE(probe({"kill", "15"}).exit_code, 128 + 15);
    auto missing = run_helper(fixture_, base_ir(fixture_), {"no-such-command-paddock"});
    QVERIFY2(missing.exit_code == 127, dump(missing));
    auto not_exec = run_helper(fixture_, base_ir(fixture_), {fixture_.project + "/src/main.txt"});
    QVERIFY2(not_exec.exit_code == 126, dump(not_exec));
  }

  void a_plan_hash_mismatch_exits_103_before_anything_runs_data() { add_uid_rows(); }
  void a_plan_hash_mismatch_exits_103_before_anything_runs() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_),
                                        {fixture_.probe_tool(), "write", fixture_.project + "/ran.txt"});
    h.args.plan_hash = "sha256:" + std::string(64, '0');
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 103, dump(r));
    QVERIFY(!std::filesystem::exists(fixture_.project + "/ran.txt"));
    QVERIFY(slurp(h.session_dir + "/report.json").find("\"failed\"") != std::string::npos);
    QVERIFY(!std::filesystem::exists(h.session_dir + "/attestation.json"));
  }

  // A probe from another kernel (a stale cache after an upgrade) is not believed: 103, with the
  // reason, before the plan is even compiled.
  void a_probe_of_another_kernel_release_exits_103_before_anything_runs_data() { add_uid_rows(); }
  void a_probe_of_another_kernel_release_exits_103_before_anything_runs() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_),
                                        {fixture_.probe_tool(), "write", fixture_.project + "/ran.txt"});
    const std::string other = fixture_.root + "/other-kernel-probe.json";
    auto probe = nlohmann::json::parse(slurp(fixture_.probe_file));
    probe["kernel_release"] = "2.6.32-not-this-one";
    put(other, probe.dump());
    ::chmod(other.c_str(), 0644);
    h.args.probe_file = other;
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 103 && r.err.find("does not describe this kernel") != std::string::npos, dump(r));
    QVERIFY(!std::filesystem::exists(fixture_.project + "/ran.txt"));
  }

  // The helper stages attestation.json and report.json while init builds the view; a setup that
  // fails there (a read root that vanished after the IR was frozen) must still leave exactly a
  // failed report: no attestation, no temporary.
  void a_setup_failure_in_the_sandbox_leaves_a_failed_report_and_no_temporaries_data() { add_uid_rows(); }
  void a_setup_failure_in_the_sandbox_leaves_a_failed_report_and_no_temporaries() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    FrozenIr ir = base_ir(fixture_);
    ir.fs.read_roots.push_back(fixture_.root + "/vanished");
    normalize(ir);
    HelperInvocation h = prepare_helper(fixture_, ir, {fixture_.probe_tool(), "write", fixture_.project + "/ran.txt"});
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY(!std::filesystem::exists(fixture_.project + "/ran.txt"));
    QVERIFY(!std::filesystem::exists(h.session_dir + "/attestation.json"));
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(h.session_dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (std::vector<std::string>{"events.jsonl", "ir.json", "report.json"}));
    auto report = nlohmann::json::parse(slurp(h.session_dir + "/report.json"));
    QCOMPARE(report.at("status").get<std::string>(), std::string("failed"));
    QVERIFY2(report.at("error").get<std::string>().find("vanished") != std::string::npos, report.dump().c_str());
  }

  void the_attestation_is_stored_before_exec_with_the_ir_hash_data() { add_uid_rows(); }
  void the_attestation_is_stored_before_exec_with_the_ir_hash() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    FrozenIr ir = base_ir(fixture_);
    HelperInvocation h = prepare_helper(fixture_, ir, {"/bin/true"});
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 0, dump(r));
    auto att = nlohmann::json::parse(slurp(h.session_dir + "/attestation.json"));
    QCOMPARE(att.at("ir_hash").get<std::string>(), ir_hash(ir));
    QCOMPARE(att.at("plan_hash").get<std::string>(), h.plan_hash);
    QVERIFY(att.at("abi").get<int>() >= 0);
    std::string events = slurp(h.session_dir + "/events.jsonl");
    auto started = events.find("\"session_started\""), attest = events.find("\"attestation\""),
         ended = events.find("\"session_ended\"");
    QVERIFY2(started != std::string::npos && attest != std::string::npos && ended != std::string::npos &&
                 started < attest && attest < ended,
             events.c_str());
    auto report = nlohmann::json::parse(slurp(h.session_dir + "/report.json"));
    QCOMPARE(report.at("exit_code").get<int>(), 0);
    QVERIFY(report.at("usage").contains("cpu_ms") && report.at("usage").at("pids").get<long>() >= 1);
  }

  // The agent is executed only once its attestation is stored: where attestation.json cannot be
  // put in place (here a directory occupies the name), the command never runs and the session
  // fails with 125, the cause named.
  void an_attestation_that_cannot_be_stored_keeps_the_agent_from_running_data() { add_uid_rows(); }
  void an_attestation_that_cannot_be_stored_keeps_the_agent_from_running() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string marker = "ran-" + std::to_string(::getpid());
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {"/bin/echo", marker});
    std::filesystem::create_directory(h.session_dir + "/attestation.json");
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.out.find(marker) == std::string::npos, dump(r));
    QVERIFY2(r.err.find("attestation.json") != std::string::npos, dump(r));
    const std::string report = slurp(h.session_dir + "/report.json");
    QVERIFY2(report.find("\"failed\"") != std::string::npos, report.c_str());
  }

  // With --record-session the helper writes the session's ir.json (the bytes it was handed) and
  // plan.json (the canonical bytes of the plan whose hash it checked); on a mismatch only ir.json,
  // what was asked for, and a failed report.
  void the_helper_records_the_ir_and_the_verified_plan_in_the_session_data() { add_uid_rows(); }
  void the_helper_records_the_ir_and_the_verified_plan_in_the_session() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    FrozenIr ir = base_ir(fixture_);
    for (const bool matching : {true, false}) {
      HelperInvocation h = prepare_helper(fixture_, ir, {"/bin/true"}, [](auto& a) { a.record_session = true; });
      // The IR comes from elsewhere; the session starts without the two records.
      const std::string given = fixture_.root + "/given-ir.json";
      std::filesystem::rename(h.session_dir + "/ir.json", given);
      ::chown(given.c_str(), fixture_.uid, fixture_.uid);
      h.args.ir_file = given;
      if (!matching) h.args.plan_hash = "sha256:" + std::string(64, '0');
      auto r = run_process(h.argv());
      QVERIFY2(r.exit_code == (matching ? 0 : 103), dump(r));
      QCOMPARE(slurp(h.session_dir + "/ir.json"), slurp(given));
      if (matching) {
        const std::string plan = slurp(h.session_dir + "/plan.json");
        QCOMPARE(sha256_hex(plan), h.plan_hash);
        QVERIFY2(plan.find("\"probe\"") != std::string::npos, plan.c_str());
      } else {
        QVERIFY(!std::filesystem::exists(h.session_dir + "/plan.json"));
        QVERIFY(slurp(h.session_dir + "/report.json").find("\"failed\"") != std::string::npos);
      }
    }
  }

  // A record the helper cannot write (a directory occupies plan.json) ends the session before the
  // agent executes, though the sandbox was already being built: 125, the cause named.
  void a_session_record_that_cannot_be_written_keeps_the_agent_from_running_data() { add_uid_rows(); }
  void a_session_record_that_cannot_be_written_keeps_the_agent_from_running() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string marker = "ran-" + std::to_string(::getpid());
    HelperInvocation h = prepare_helper(fixture_, base_ir(fixture_), {"/bin/echo", marker},
                                        [](auto& a) { a.record_session = true; });
    std::filesystem::create_directory(h.session_dir + "/plan.json");
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 125, dump(r));
    QVERIFY2(r.out.find(marker) == std::string::npos, dump(r));
    QVERIFY2(r.err.find("plan.json") != std::string::npos, dump(r));
  }

  // The report's usage is the agent's whole tree: a double-forked orphan's CPU time, a child's
  // peak memory, every process; not the helper's or the sandbox init's own.
  void the_sessions_usage_covers_the_agents_whole_tree_data() { add_uid_rows(); }
  void the_sessions_usage_covers_the_agents_whole_tree() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string tool = fixture_.probe_tool();
    // The orphan spins 300 ms of CPU time and exits on its own; the agent outlives it by polling
    // for its mark (no wall-clock guess on a loaded machine).
    const std::string mark = "/tmp/spun";
    HelperInvocation h = prepare_helper(
        fixture_, base_ir(fixture_),
        {"/bin/sh", "-c",
         "(" + tool + " spin 300 > " + mark + " &); " + tool + " alloc 48; "
         "while ! grep -q ok " + mark + " 2>/dev/null; do sleep 0.05; done"});
    auto r = run_process(h.argv());
    QVERIFY2(r.exit_code == 0, dump(r));
    auto usage = nlohmann::json::parse(slurp(h.session_dir + "/report.json")).at("usage");
    QVERIFY2(usage.at("cpu_ms").get<long>() >= 300, usage.dump().c_str());
    QVERIFY2(usage.at("max_rss").get<long>() >= 48L << 20, usage.dump().c_str());
    QVERIFY2(usage.at("pids").get<long>() >= 4, usage.dump().c_str());  // sh, subshell, spin, alloc
  }
};

QTEST_GUILESS_MAIN(HelperSandboxTest)
#include "helper_sandbox_test.moc"
