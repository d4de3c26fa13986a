// The OCI backend against real runtimes (docs/backends.md): the plan's bundle is run by runc and
// by crun from Debian, as root and as uid 65534 (rootless), and the agent-side process tries what
// an attacker would: read outside its roots and under masks, write read-only and protected paths,
// move a protected path's parent away, reach the host's loopback, use a denied syscall or socket
// family, exceed its process and memory limits, and leave a process behind.
//
// This machine's cgroups are hybrid (v1 controllers, a v2 hierarchy with a controller of its own),
// which crun 1.8 refuses outright; the crun rows hide the v2 hierarchy in a private mount
// namespace (rootless: inside a user namespace of the caller's, where the caller is root and the
// bundle maps that root). runc runs unchanged.
#include <dirent.h>
#include <unistd.h>

#include <QtTest>

#include <atomic>
#include <filesystem>

#include "backends/backend.h"
#include "backends/linux/kernel_probe.h"
#include "backends/oci/oci_plan.h"
#include "platform/bundles.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/loopback_server.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
using nlohmann::json;

namespace {

bool on_path(const std::string& tool) {
  return run_process({"sh", "-c", "command -v " + tool}).exit_code == 0;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Host processes whose command line holds `word` (the kill-tree check).
int processes_with(const std::string& word) {
  int n = 0;
  DIR* d = ::opendir("/proc");
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::string cmd = slurp(std::string("/proc/") + e->d_name + "/cmdline");
    for (char& c : cmd)
      if (c == 0) c = ' ';
    if (has(cmd, word) && !has(cmd, "sh -c")) ++n;
  }
  if (d) ::closedir(d);
  return n;
}

}  // namespace

class OciRuntimeTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture f_;

  static void add_rows() {
    QTest::addColumn<QString>("runtime");
    QTest::addColumn<uint>("uid");
    for (const char* rt : {"runc", "crun"})
      for (uint uid : {0u, 65534u})
        QTest::newRow((std::string(rt) + "/" + uid_label(uid)).c_str()) << QString(rt) << uid;
  }

  std::string runtime() const {
    QFETCH(QString, runtime);
    return runtime.toStdString();
  }

  // crun as a rootless user here runs inside a user namespace of that user's, where it is root.
  bool crun_rootless() const { return runtime() == "crun" && f_.uid != 0; }

  bool setup() {
    if (!on_path(runtime())) {
      qWarning("%s is not installed: scripts/bootstrap installs runc and crun", runtime().c_str());
      return false;
    }
    return fixture_for_row(f_);
  }

  FrozenIr ir() const {
    FrozenIr ir = base_ir(f_);
    ir.fs.deny_write = {{f_.project + "/src/main.txt", PathKind::kFile}};
    ir.resources.processes = 64;
    ir.resources.memory_bytes = 256ll << 20;
    normalize(ir);
    return ir;
  }

  // The plan for this caller (its kernel probe), checked, completed and written as a bundle the
  // caller owns; then run by the row's runtime as the caller.
  ProcessResult run(const FrozenIr& ir, const std::string& script) {
    static std::atomic<int> n{0};
    const std::string id = "paddock-oci-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
    auto kernel = linux_backend::probe_from_json(json::parse(slurp(f_.probe_file)));
    if (!kernel.ok()) return {-1, "", "probe: " + kernel.error().message};
    auto plan = backends::compile(ir, backends::BackendId::kOci, oci_backend::to_json(oci_backend::facts_for(*kernel)));
    if (!plan.ok()) return {-1, "", "compile: " + plan.error().message};
    if (Status s = backends::check(*plan); !s.ok()) return {-1, "", "check: " + s.error().message};
    oci_backend::LaunchFacts launch;
    launch.command = {"/bin/sh", "-c", script};
    launch.pass = {{"LANG", "C.UTF-8"}};
    launch.cwd = f_.project;
    launch.uid = launch.gid = crun_rootless() ? 0 : f_.uid;
    auto config = oci_backend::complete_config(plan->steps.at(0).at("value"), launch);
    if (!config.ok()) return {-1, "", "config: " + config.error().message};
    // Only a config without cgroup limits may run under crun --cgroup-manager=disabled.
    if (crun_rootless() && !(*config)["linux"]["resources"].empty()) return {-1, "", "rootless plan asks for cgroups"};
    const std::string bundle = f_.root + "/" + id, state = f_.root + "/" + id + "-state";
    if (Status s = platform::write_oci_bundle(bundle, *config); !s.ok()) return {-1, "", s.error().message};
    std::filesystem::create_directories(state);
    chown_tree(bundle, f_.uid);
    chown_tree(state, f_.uid);
    RunOptions o;
    o.prefix = f_.prefix();
    o.cwd = bundle;
    o.env_override["XDG_RUNTIME_DIR"] = state;
    o.timeout_ms = 120000;
    const std::string hide_v2 = "if [ -d /sys/fs/cgroup/unified ]; then mount -t tmpfs none /sys/fs/cgroup/unified; fi; ";
    if (runtime() == "runc") return run_process({"runc", "--root", state, "run", "--bundle", bundle, id}, o);
    if (f_.uid == 0)
      return run_process({"unshare", "-m", "sh", "-c", hide_v2 + "exec crun --root " + state + " run --bundle " + bundle + " " + id}, o);
    return run_process({"unshare", "-Urm", "sh", "-c",
                        hide_v2 + "exec crun --cgroup-manager=disabled --root " + state + " run --bundle " + bundle + " " + id},
                       o);
  }

  std::string probe_cmd(const std::string& args) { return f_.probe_tool() + " " + args + "; "; }

 private slots:
  void cleanup() {
    remove_fixture(f_);
    f_ = {};
  }

  void reads_outside_the_roots_and_under_masks_fail_and_reads_inside_succeed_data() { add_rows(); }
  void reads_outside_the_roots_and_under_masks_fail_and_reads_inside_succeed() {
    QVERIFY(setup());
    put(f_.root + "/outside-every-grant.txt", "NOT-GRANTED\n");
    ProcessResult r = run(ir(), probe_cmd("read " + f_.root + "/outside-every-grant.txt") +
                                    probe_cmd("read " + f_.home + "/notes.txt") +
                                    probe_cmd("read " + f_.home + "/.ssh/id_rsa") +
                                    probe_cmd("read " + f_.home + "/.aws/credentials") +
                                    probe_cmd("read " + f_.project + "/.env") +
                                    probe_cmd("read " + f_.project + "/link-to-env") +
                                    probe_cmd("read " + f_.project + "/link-to-ssh") +
                                    probe_cmd("read /etc/shadow") + probe_cmd("read " + f_.project + "/src/main.txt"));
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    // A masked directory is an empty read-only tmpfs: crun keeps the plan's mode 0 (EACCES), runc
    // gives the tmpfs the mode of the directory it covers (empty: ENOENT). Neither shows a byte.
    const std::string dir = runtime() == "runc" ? "read:ENOENT\n" : "read:EACCES\n";
    const std::string expected = "read:ENOENT\nread:ok:12:plain notes\n\n" + dir + dir +
                                 "read:EACCES\nread:EACCES\n" + dir +
                                 "read:EACCES\nread:ok:23:hello from the project\n\n";
    QCOMPARE(QString::fromStdString(r.out), QString::fromStdString(expected));
  }

  void writes_to_read_only_and_protected_paths_fail_even_through_a_renamed_parent_or_a_link_data() { add_rows(); }
  void writes_to_read_only_and_protected_paths_fail_even_through_a_renamed_parent_or_a_link() {
    QVERIFY(setup());
    ProcessResult r = run(ir(), probe_cmd("write " + f_.outside + "/readme.txt") + probe_cmd("write /etc/paddock-oci") +
                                    probe_cmd("write " + f_.project + "/src/main.txt") +
                                    probe_cmd("write " + f_.project + "/new.txt") +
                                    "mv src moved 2>/dev/null; echo mv:$?; ln src/main.txt hard 2>/dev/null; echo ln:$?; " +
                                    probe_cmd("write " + f_.project + "/src/main.txt"));
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QCOMPARE(QString::fromStdString(r.out),
             QString("write:EROFS\nwrite:EROFS\nwrite:EROFS\nwrite:ok\nmv:1\nln:1\nwrite:EROFS\n"));
    QCOMPARE(QString::fromStdString(slurp(f_.project + "/src/main.txt")), QString("hello from the project\n"));
    QCOMPARE(QString::fromStdString(slurp(f_.project + "/new.txt")), QString("written-in-sandbox\n"));
    QVERIFY(!std::filesystem::exists(f_.project + "/moved"));
  }

  void the_network_is_loopback_only_and_denied_families_and_syscalls_fail_data() { add_rows(); }
  void the_network_is_loopback_only_and_denied_families_and_syscalls_fail() {
    QVERIFY(setup());
    LoopbackServer host([](int) {});
    ProcessResult r = run(ir(), probe_cmd("connect " + std::to_string(host.port())) + probe_cmd("sockets") +
                                    probe_cmd("syscalls") + "cat /proc/self/status");
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY2(has(r.out, "connect:ECONNREFUSED"), dump(r).constData());
    QCOMPARE(host.accepted(), 0);
    for (const char* ok : {"socket_unix:ok", "socket_inet:ok", "socket_inet6:ok"}) QVERIFY2(has(r.out, ok), dump(r).constData());
    for (const char* fam : {"netlink", "packet", "key", "alg", "vsock", "bluetooth", "family200"})
      QVERIFY2(has(r.out, std::string("socket_") + fam + ":EAFNOSUPPORT"), dump(r).constData());
    for (const char* call : {"ptrace:EPERM", "mount:EPERM", "bpf:EPERM", "keyctl:EPERM", "userfaultfd:EPERM",
                             "io_uring_setup:EPERM", "ioctl_tiocsti:EPERM"})
      QVERIFY2(has(r.out, call), dump(r).constData());
    QVERIFY2(has(r.out, "NoNewPrivs:\t1") && has(r.out, "CapEff:\t0000000000000000") && has(r.out, "Seccomp:\t2"),
             dump(r).constData());
  }

  void the_process_and_memory_limits_hold_data() { add_rows(); }
  void the_process_and_memory_limits_hold() {
    QVERIFY(setup());
    ProcessResult r = run(ir(), probe_cmd("forks 200") + probe_cmd("alloc 512") + "echo end");
    QVERIFY2(has(r.out, "forked:"), dump(r).constData());
    const int forked = std::stoi(r.out.substr(r.out.find("forked:") + 7));
    QVERIFY2(forked > 0 && forked < 64, dump(r).constData());
    // Rootless: RLIMIT_DATA refuses the allocation; root: the cgroup's limit kills the process.
    QVERIFY2(!has(r.out, "alloc:ok"), dump(r).constData());
    QVERIFY2(has(r.out, "end"), dump(r).constData());
  }

  void no_process_outlives_the_container_data() { add_rows(); }
  void no_process_outlives_the_container() {
    QVERIFY(setup());
    ProcessResult r = run(ir(), "setsid sleep 3133.5 </dev/null >/dev/null 2>&1 & sleep 0.3; echo started");
    QVERIFY2(r.exit_code == 0 && has(r.out, "started"), dump(r).constData());
    QVERIFY2(eventually([] { return processes_with("sleep 3133.5") == 0; }, 10), "a process outlived the container");
  }

  // The bundle writer keeps what it is given: a directory that holds anything is refused.
  void a_bundle_is_never_written_over_a_directory_that_holds_something() {
    QTemporaryDir dir;
    put(dir.path().toStdString() + "/keep.txt", "mine\n");
    Status s = platform::write_oci_bundle(dir.path().toStdString(), json{{"mounts", json::array()}});
    QVERIFY(!s.ok());
    QVERIFY2(has(s.error().message, "not empty"), s.error().message.c_str());
    QCOMPARE(QString::fromStdString(slurp(dir.path().toStdString() + "/keep.txt")), QString("mine\n"));
  }
};

QTEST_GUILESS_MAIN(OciRuntimeTest)
#include "oci_runtime_test.moc"
