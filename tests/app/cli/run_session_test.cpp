// `paddock run`, sessions, stop and verify end to end: the real CLI, engine, helper and kernel.
// Each case runs as root and as uid 65534 (setpriv) with its own HOME and XDG dirs.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/process_runner.h"
#include "tests/app/cli/cli_home.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

class RunSessionTest : public QObject {
  Q_OBJECT

  CliHome h_;

  void setup_row() {
    QFETCH(uint, uid);
    setup_row_for(uid);
  }

  void setup_row_for(uid_t uid) {
    QVERIFY(h_.create(uid, "run", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    fs::create_directories(h_.project + "/src");
    put(h_.project + "/src/main.txt", "hello from the project\n");
  }

  void chown_all() { h_.chown_all(); }

  ProcessResult paddock(std::vector<std::string> args, RunOptions extra = {}) {
    RunOptions o = h_.opts;
    for (const auto& [k, v] : extra.env_override) o.env_override[k] = v;
    args.insert(args.begin(), paddock_bin());
    return run_process(args, o);
  }

  std::vector<std::string> session_ids() { return h_.session_ids(); }
  std::string session_dir(const std::string& id) { return h_.root + "/state/paddock/sessions/" + id; }

  // `paddock run` in the background, as the row's uid from the project, its output the test's.
  pid_t spawn_paddock(std::vector<std::string> args, bool landlock_tier = false) {
    auto argv = paddock_run_argv(landlock_tier, args.front());
    argv.insert(argv.end(), args.begin() + 1, args.end());
    args = std::move(argv);
    const pid_t pid = spawn_process(args, "", h_.opts);
    spawned_.push_back(pid);
    return pid;
  }

  // The sessions a case started in the background and did not wait for (it failed before):
  // killed, so that none outlives the test holding ctest's output pipe. A pid not yet reaped is
  // still this process's child, never another process's.
  void kill_spawned() {
    for (pid_t pid : std::exchange(spawned_, {})) {
      if (::waitpid(pid, nullptr, WNOHANG) != 0) continue;  // reaped now, or already
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

  std::vector<pid_t> spawned_;

 private slots:
  void cleanup() {
    kill_spawned();
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void run_returns_the_agents_exit_code_and_the_contract_codes_data() { add_uid_rows(); }
  void run_returns_the_agents_exit_code_and_the_contract_codes() {
    setup_row();
    chown_all();
    auto seven = paddock({"run", "--", "sh", "-c", "exit 7"});
    QVERIFY2(seven.exit_code == 7, dump(seven));
    auto sig = paddock({"run", "--", "sh", "-c", "kill -TERM $$"});
    QVERIFY2(sig.exit_code == 128 + SIGTERM, dump(sig));
    auto missing = paddock({"run", "--", "no-such-command-paddock"});
    QVERIFY2(missing.exit_code == 127, dump(missing));
    auto timeout = paddock({"run", "--timeout", "1", "--", "sleep", "30"});
    QVERIFY2(timeout.exit_code == 124, dump(timeout));
    auto no_cmd = paddock({"run"});
    QVERIFY2(no_cmd.exit_code == 2, dump(no_cmd));
    QCOMPARE(std::count(no_cmd.err.begin(), no_cmd.err.end(), '\n'), 1L);
    auto bad_timeout = paddock({"run", "--timeout", "soon", "--", "true"});
    QVERIFY2(bad_timeout.exit_code == 2, dump(bad_timeout));
  }

  // `run` caches the helper's probe per boot in the private runtime dir; a cache that does not
  // parse, does not match its key, is writable by others or lies about a fact the helper checks
  // is never what a session runs on.
  void the_probe_is_cached_and_a_bad_cache_is_never_trusted_data() { add_uid_rows(); }
  void the_probe_is_cached_and_a_bad_cache_is_never_trusted() {
    setup_row();
    chown_all();
    const std::string cache = h_.root + "/run/paddock/probe-cache.json";
    auto first = paddock({"run", "--", "true"});
    QVERIFY2(first.exit_code == 0, dump(first));
    struct stat st {};
    QVERIFY(::stat(cache.c_str(), &st) == 0);
    QCOMPARE(st.st_mode & 0777u, 0600u);
    QCOMPARE(st.st_uid, h_.uid);
    const json good = json::parse(slurp(cache));
    auto fresh = run_process({helper_bin(), "probe"}, h_.opts);  // same uid via h_.opts.prefix
    QVERIFY2(fresh.exit_code == 0, dump(fresh));
    QCOMPARE(good["probe"], json::parse(fresh.out));
    auto ran = [&] { return fs::exists(h_.project + "/ran.txt"); };
    const std::vector<std::string> touch = {"run", "--", "sh", "-c", "echo ran > ran.txt"};

    put(cache, "{not json");
    auto garbage = paddock(touch);
    QVERIFY2(garbage.exit_code == 0 && ran(), dump(garbage));
    QCOMPARE(json::parse(slurp(cache)), good);

    // A fact the helper re-checks, and one the plan does not refuse on (a lie that makes the plan
    // refuse is caught sooner: the refusal is re-checked against a fresh probe).
    json lying = good;
    lying["probe"]["landlock_abi"] = good["probe"]["landlock_abi"].get<int>() - 1;
    json stale = lying;
    stale["key"]["boot_id"] = "not-this-boot\n";
    put(cache, stale.dump());
    fs::remove(h_.project + "/ran.txt");
    auto stale_run = paddock(touch);
    QVERIFY2(stale_run.exit_code == 0 && ran(), dump(stale_run));
    QCOMPARE(json::parse(slurp(cache)), good);

    put(cache, lying.dump());
    ::chmod(cache.c_str(), 0666);
    fs::remove(h_.project + "/ran.txt");
    auto shared = paddock(touch);
    QVERIFY2(shared.exit_code == 0 && ran(), dump(shared));

    // Matching key, wrong fact: the helper re-validates it and refuses; nothing runs and the
    // cache is dropped, so the next run probes afresh.
    put(cache, lying.dump());
    ::chmod(cache.c_str(), 0600);
    fs::remove(h_.project + "/ran.txt");
    auto lie = paddock(touch);
    QVERIFY2(lie.exit_code == 103 && !ran(), dump(lie));
    QVERIFY(!fs::exists(cache));
    auto after = paddock(touch);
    QVERIFY2(after.exit_code == 0 && ran(), dump(after));
    QCOMPARE(json::parse(slurp(cache)), good);
  }

  void secret_shaped_files_are_unreadable_through_paddock_run_data() { add_uid_rows(); }
  void secret_shaped_files_are_unreadable_through_paddock_run() {
    setup_row();
    put(h_.home + "/.ssh/id_rsa", "SECRET-SSH\n");
    for (const char* name : {".env", ".ENV.production", "PRIVATE.PEM", "x.KDBX", "server.key", "cert.P12"})
      put(h_.project + "/" + name, std::string("SECRET-") + name + "\n");
    fs::create_hard_link(h_.project + "/.env", h_.project + "/innocent-hardlink.txt");
    fs::create_symlink(h_.home + "/.ssh/id_rsa", h_.project + "/ssh-link");
    fs::create_symlink(h_.project + "/PRIVATE.PEM", h_.project + "/pem-link");
    chown_all();
    auto r = paddock({"run", "--", "sh", "-c",
                      "cat .env .ENV.production PRIVATE.PEM x.KDBX server.key cert.P12 innocent-hardlink.txt "
                      "ssh-link pem-link " + h_.home + "/.ssh/id_rsa /etc/shadow; cat src/main.txt"});
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("root:") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("hello from the project") != std::string::npos, dump(r));
  }

  // A secret whose name is not UTF-8 goes through the whole chain: the glob matches its bytes,
  // the IR carries them encoded, the helper decodes them and masks that very file.
  void a_secret_whose_name_is_not_utf8_is_masked_through_paddock_run_data() { add_uid_rows(); }
  void a_secret_whose_name_is_not_utf8_is_masked_through_paddock_run() {
    setup_row();
    const std::string name = "caf\xe9.pem";
    put(h_.project + "/" + name, "SECRET-LATIN1\n");
    fs::create_directories(h_.project + "/d\xff");
    put(h_.project + "/d\xff/.env", "SECRET-DIR\n");
    chown_all();
    auto r = paddock({"run", "--", "sh", "-c", "cat '" + name + "' 'd\xff/.env'; ls -A 'd\xff'; cat src/main.txt"});
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find(".env") != std::string::npos, dump(r));  // the name is there; its bytes are not
    QVERIFY2(r.out.find("hello from the project") != std::string::npos, dump(r));
    QCOMPARE(slurp(h_.project + "/" + name), std::string("SECRET-LATIN1\n"));
    const auto ids = session_ids();
    QVERIFY(!ids.empty());
    QVERIFY(slurp(session_dir(ids.back()) + "/ir.json").find("bytes:") != std::string::npos);
  }

  // A descriptor left open by whoever starts Paddock (a shell's `9<file`, an IDE's leaked fd)
  // would reach the agent already open, past the mount view and Landlock, which judge a path only
  // when it is opened. Only stdin, stdout and stderr cross into the sandbox.
  void descriptors_inherited_from_the_caller_do_not_reach_the_agent_data() { add_uid_rows(); }
  void descriptors_inherited_from_the_caller_do_not_reach_the_agent() {
    setup_row();
    put(h_.home + "/.ssh/id_rsa", "SECRET-SSH\n");
    chown_all();
    int fd = ::open((h_.home + "/.ssh/id_rsa").c_str(), O_RDONLY);  // no O_CLOEXEC: inherited
    QVERIFY(fd >= 0);
    QVERIFY(::dup2(fd, 9) == 9);
    ::close(fd);
    auto r = paddock({"run", "--", "sh", "-c", "cat <&9; ls /proc/self/fd"});
    ::close(9);
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    // ls lists 0, 1, 2 and the directory it is reading: nothing else is open in the agent.
    std::vector<std::string> fds;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) fds.push_back(line);
    QVERIFY2(fds.size() == 4 && fds[0] == "0" && fds[1] == "1" && fds[2] == "2", dump(r));
  }

  // Paddock's own files are never implied by a grant: granting the directories that hold them
  // (read all of the test root, write its config dir) still leaves the signing key unreadable,
  // the user-tier policy unwritable, and the session records and control sockets out of sight.
  void paddocks_own_files_stay_out_of_reach_whatever_is_granted_data() { add_uid_rows(); }
  void paddocks_own_files_stay_out_of_reach_whatever_is_granted() {
    setup_row();
    fs::create_directories(h_.root + "/config/paddock");
    put(h_.root + "/config/paddock/signing_key", "SECRET-SIGNING-KEY\n");
    put(h_.root + "/config/elsewhere.txt", "not paddock's\n");
    chown_all();
    auto r = paddock({"run", "--profile", "permissive", "--allow-read", h_.root, "--allow-write", h_.root + "/config",
                      "--", "sh", "-c",
                      "cat " + h_.root + "/config/paddock/signing_key; cat " + h_.root + "/config/elsewhere.txt; "
                      "echo 'version: 1' > " + h_.root + "/config/paddock/policy.yaml && echo WROTE-POLICY; "
                      "ls " + h_.root + "/state/paddock/sessions && echo LISTED-SESSIONS; "
                      "ls " + h_.root + "/run/paddock && echo LISTED-SOCKETS; "
                      "echo ok > " + h_.root + "/config/granted.txt && echo WROTE-GRANTED"});
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("WROTE-POLICY") == std::string::npos && !fs::exists(h_.root + "/config/paddock/policy.yaml"), dump(r));
    QVERIFY2(r.out.find("LISTED-") == std::string::npos, dump(r));
    // The grants themselves still hold around the masked directories.
    QVERIFY2(r.out.find("not paddock's") != std::string::npos && r.out.find("WROTE-GRANTED") != std::string::npos, dump(r));

    // Absent at launch is no way in: `run` makes the directory first, so it is masked too.
    fs::remove_all(h_.root + "/config/paddock");
    auto planted = paddock({"run", "--profile", "permissive", "--allow-write", h_.root + "/config", "--", "sh", "-c",
                            "mkdir -p " + h_.root + "/config/paddock; echo 'version: 1' > " + h_.root +
                                "/config/paddock/policy.yaml && echo PLANTED"});
    QVERIFY2(planted.out.find("PLANTED") == std::string::npos, dump(planted));
    QVERIFY2(!fs::exists(h_.root + "/config/paddock/policy.yaml"), dump(planted));
  }

  void hash_matches_the_attestation_and_verify_detects_one_changed_byte_data() { add_uid_rows(); }
  void hash_matches_the_attestation_and_verify_detects_one_changed_byte() {
    setup_row();
    chown_all();
    auto hash = paddock({"hash", "--timeout", "90s"});
    QVERIFY2(hash.exit_code == 0, dump(hash));
    auto r = paddock({"run", "--timeout", "90s", "--", "true"});
    QVERIFY2(r.exit_code == 0, dump(r));
    auto ids = session_ids();
    QCOMPARE(ids.size(), std::size_t(1));
    json att = json::parse(slurp(session_dir(ids[0]) + "/attestation.json"));
    QCOMPARE(att["ir_hash"].get<std::string>() + "\n", hash.out);
    // The session holds the files docs/cli.md lists and nothing else, and ir.json and plan.json are
    // the very bytes their attested hashes cover.
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(session_dir(ids[0]))) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    QCOMPARE(files, (std::vector<std::string>{"attestation.json", "audit", "events.jsonl", "ir.json", "plan.json", "report.json"}));
    for (const auto& [file, key] : {std::pair<std::string, std::string>{"ir.json", "ir_hash"}, {"plan.json", "plan_hash"}}) {
      auto sum = run_process({"sha256sum", session_dir(ids[0]) + "/" + file});
      QVERIFY2(sum.exit_code == 0, dump(sum));
      QCOMPARE("sha256:" + sum.out.substr(0, 64), att[key].get<std::string>());
    }
    auto ok = paddock({"verify", "--session", ids[0]});
    QVERIFY2(ok.exit_code == 0, dump(ok));
    // Flip one byte inside a string value (still valid JSON): verify must notice.
    const std::string ir_path = session_dir(ids[0]) + "/ir.json";
    std::string bytes = slurp(ir_path);
    auto pos = bytes.find("/proj");
    QVERIFY(pos != std::string::npos);
    bytes[pos + 1] = 'q';
    ::chmod(ir_path.c_str(), 0644);
    put(ir_path, bytes);
    auto bad = paddock({"verify", "--session", ids[0]});
    QVERIFY2(bad.exit_code == 103, dump(bad));
    auto unknown = paddock({"verify", "--session", "../etc"});
    QVERIFY2(unknown.exit_code == 2, dump(unknown));
  }

  void sessions_lists_a_running_session_and_stop_ends_its_whole_tree_data() { add_uid_rows(); }
  void sessions_lists_a_running_session_and_stop_ends_its_whole_tree() { list_and_stop(false); }

  // The landlock tier's session is a session like the others: listed running, stopped by
  // `paddock stop`, its events written.
  void the_landlock_tiers_session_is_listed_and_stopped_too_data() { add_uid_rows(); }
  void the_landlock_tiers_session_is_listed_and_stopped_too() { list_and_stop(true); }

 private:
  void list_and_stop(bool landlock_tier) {
    setup_row();
    chown_all();
    const std::string marker = "1000." + std::to_string(::getpid()) + "3";
    std::vector<std::string> args = {"run"};
    if (landlock_tier) args.insert(args.end(), {"--net", "off"});
    args.insert(args.end(), {"--", "sh", "-c", "setsid sleep " + marker + " & sleep " + marker});
    pid_t pid = spawn_paddock(args, landlock_tier);
    QVERIFY(eventually([&] { return count_processes_with(marker) >= 3; }));
    std::string id;
    QVERIFY(eventually([&] {
      auto s = paddock({"sessions", "--json"});
      json j = json::parse(s.out, nullptr, false);
      if (!j.is_array() || j.empty() || j[0]["status"] != "running") return false;
      id = j[0]["id"].get<std::string>();
      return true;
    }));
    auto stop = paddock({"stop", id});
    QVERIFY2(stop.exit_code == 0, dump(stop));
    int code = wait_exit(pid);
    QVERIFY2(code == 128 + SIGTERM || code == 128 + SIGKILL, std::to_string(code).c_str());
    QVERIFY(eventually([&] { return count_processes_with(marker) == 0; }));
    json list = json::parse(paddock({"sessions", "--json"}).out);
    QCOMPARE(list[0]["status"].get<std::string>(), std::string("stopped"));
    std::string events = slurp(session_dir(id) + "/events.jsonl");
    QVERIFY2(events.find("\"session_ended\"") != std::string::npos && events.find("\"cpu_ms\"") != std::string::npos,
             events.c_str());
    auto again = paddock({"stop", id});
    QVERIFY2(again.exit_code == 2, dump(again));
  }

 private slots:

  // Without Landlock's signal scoping (ABI < 6) an agent can stop the helper with kill(0,
  // SIGSTOP), and a stopped helper keeps no time. The test stops it from outside (this kernel
  // scopes signals): the sandbox's init still ends the session just after the deadline.
  void the_wall_time_holds_even_while_the_helper_is_stopped_data() { add_uid_rows(); }
  void the_wall_time_holds_even_while_the_helper_is_stopped() {
    setup_row();
    chown_all();
    const std::string marker = "2000." + std::to_string(::getpid()) + "7";
    // 4 s: the helper must be stopped before its own deadline, even when a loaded machine takes a
    // second or two to start the agent (with 2 s, the helper's timer sometimes fired first).
    pid_t pid = spawn_paddock({"run", "--timeout", "4", "--", "sleep", marker});  // run execs the helper
    // Whatever happens below, the helper is not left stopped.
    std::unique_ptr<void, std::function<void(void*)>> resume(&pid, [](void* p) {
      ::kill(*static_cast<pid_t*>(p), SIGCONT);
    });
    // The agent: the sleep itself (the helper's own command line names the marker too).
    auto agent_alive = [&] { return count_processes_running({"sleep", marker}) > 0; };
    QVERIFY(eventually(agent_alive));
    QCOMPARE(::kill(pid, SIGSTOP), 0);
    QVERIFY2(eventually([&] { return !agent_alive(); }, 10), "the agent outlived its wall time");
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    QVERIFY2(stat.find(") T ") != std::string::npos, stat.c_str());  // the helper was stopped all along
    QCOMPARE(::kill(pid, SIGCONT), 0);
    QCOMPARE(wait_exit(pid), 124);
    const auto ids = session_ids();
    QCOMPARE(ids.size(), std::size_t(1));
    const std::string events = slurp(session_dir(ids[0]) + "/events.jsonl");
    QVERIFY2(events.find("\"enforced_by\":\"sandbox init") != std::string::npos, events.c_str());
  }

  void sigkill_of_paddock_leaves_zero_processes_data() { add_uid_rows(); }
  void sigkill_of_paddock_leaves_zero_processes() {
    setup_row();
    chown_all();
    const std::string marker = "1000." + std::to_string(::getpid()) + "5";
    pid_t pid = spawn_paddock({"run", "--", "sh", "-c", "(sleep " + marker + " &); sleep " + marker});
    QVERIFY(eventually([&] { return count_processes_with(marker) >= 3; }));
    ::kill(pid, SIGKILL);
    wait_exit(pid);
    QVERIFY(eventually([&] { return count_processes_with(marker) == 0; }));
  }

  void a_tainted_policy_runs_only_with_allow_tainted_data() { add_uid_rows(); }
  void a_tainted_policy_runs_only_with_allow_tainted() {
    setup_row();
    fs::create_directories(h_.root + "/sys");
    chown_all();
    RunOptions taint;
    taint.env_override = {{"PADDOCK_SYSTEM_DIR", h_.root + "/sys"}};
    auto refused = paddock({"run", "--", "true"}, taint);
    QVERIFY2(refused.exit_code == 125 && refused.err.find("--allow-tainted") != std::string::npos, dump(refused));
    QVERIFY(session_ids().empty());
    auto allowed = paddock({"run", "--allow-tainted", "--", "true"}, taint);
    QVERIFY2(allowed.exit_code == 0, dump(allowed));
    json att = json::parse(slurp(session_dir(session_ids().at(0)) + "/attestation.json"));
    QVERIFY2(!att["taint"].empty(), att.dump().c_str());
  }

  void an_unapproved_repository_layer_is_refused_with_the_approve_command_data() { add_uid_rows(); }
  void an_unapproved_repository_layer_is_refused_with_the_approve_command() {
    setup_row();
    fs::create_directories(h_.project + "/.paddock");
    put(h_.project + "/.paddock/policy.yaml", "version: 1\nfilesystem:\n  deny: [secret-dir]\n");
    chown_all();
    auto r = paddock({"run", "--", "true"});
    QVERIFY2(r.exit_code == 126 && r.err.find("paddock approve") != std::string::npos, dump(r));
    QVERIFY(session_ids().empty());
  }

  // The default profile (memory 16GiB, processes 4096) runs for a user with or without a
  // writable cgroup, and what the sandbox gets is what `paddock plan` and `paddock doctor` said:
  // with a cgroup no per-process rlimit, without one RLIMIT_DATA and RLIMIT_NPROC at the limit.
  void the_default_profile_limits_run_as_planned_data() { add_uid_rows(); }
  void the_default_profile_limits_run_as_planned() {
    setup_row();
    chown_all();
    auto plan = paddock({"plan", "--json"});
    QVERIFY2(plan.exit_code == 0, dump(plan));
    json limits;
    const json plan_json = json::parse(plan.out);
    for (const auto& step : plan_json["plan"]["steps"])
      if (step["step"] == "limits") limits = step["value"];
    std::map<std::string, std::string> via;
    for (const auto& l : limits) via[l["limit"].get<std::string>()] = l["mechanism"].get<std::string>();
    QVERIFY2(via.count("memory_bytes") && via.count("processes"), plan.out.c_str());
    auto doctor = paddock({"doctor", "--json"});
    json rows = json::parse(doctor.out)["limits"];
    QCOMPARE(rows["resources.memory_bytes"]["support"].get<std::string>(),
             std::string(via["memory_bytes"] == "rlimit_data" ? "partial" : "exact"));

    auto r = paddock({"run", "--", "cat", "/proc/self/limits"});
    QVERIFY2(r.exit_code == 0, dump(r));
    // "Max data size   <soft>   <hard>   bytes" -> "<soft> <hard>"
    const auto limit_of = [&](const std::string& name) {
      auto pos = r.out.find(name);
      if (pos == std::string::npos) return std::string("absent");
      std::istringstream f(r.out.substr(pos + name.size(), r.out.find('\n', pos) - pos - name.size()));
      std::string soft, hard;
      f >> soft >> hard;
      return soft + " " + hard;
    };
    const std::string data = limit_of("Max data size"), procs = limit_of("Max processes");
    if (via["memory_bytes"] == "rlimit_data")
      QVERIFY2(data == "17179869184 17179869184", dump(r));
    else
      QVERIFY2(data != "17179869184 17179869184", dump(r));
    if (via["processes"] == "rlimit_nproc")
      QVERIFY2(procs == "4096 4096", dump(r));
    else
      QVERIFY2(procs != "4096 4096", dump(r));
    // The address space is never capped: Node's reservations must fit.
    QVERIFY2(limit_of("Max address space") == "unlimited unlimited", dump(r));
    // A user without a cgroup on this kernel (>= 5.14) has every limit enforced, none refused.
    if (h_.uid != 0 && via["processes"] == "rlimit_nproc")
      QVERIFY2(rows["resources.processes"]["support"] == "exact", doctor.out.c_str());
  }

  void a_network_mode_gets_the_relay_which_refuses_unlisted_domains_data() { add_uid_rows(); }
  void a_network_mode_gets_the_relay_which_refuses_unlisted_domains() {
    setup_row();
    chown_all();
    // python3 (the in-sandbox client here) is a hard requirement: scripts/bootstrap installs it.
    QVERIFY2(::access("/usr/bin/python3", X_OK) == 0, "python3 is not installed at /usr/bin/python3; run scripts/bootstrap");
    // Only the in-sandbox relay on 127.0.0.1:3128 is contacted; the name is refused by policy
    // before any DNS lookup, so no traffic leaves the machine.
    auto r = paddock({"run", "--net", "allowlist", "--allow-domain", "allowed.test", "--", "/usr/bin/python3", "-c",
                      "import os,socket\n"
                      "print(os.environ['HTTPS_PROXY'])\n"
                      "s=socket.create_connection(('127.0.0.1',3128))\n"
                      "s.sendall(b'CONNECT unlisted.test:443 HTTP/1.1\\r\\nHost: unlisted.test:443\\r\\n\\r\\n')\n"
                      "print(s.recv(200).split(b'\\r\\n')[0].decode())\n"});
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("http://127.0.0.1:3128") != std::string::npos, dump(r));
    QVERIFY2(r.out.find(" 403 ") != std::string::npos, dump(r));
    std::string events = slurp(session_dir(session_ids().at(0)) + "/events.jsonl");
    QVERIFY2(events.find("\"net_request\"") != std::string::npos && events.find("unlisted.test") != std::string::npos,
             events.c_str());
  }

  void an_ask_is_raised_on_the_control_socket_and_its_answer_decides_data() { add_uid_rows(); }
  void an_ask_is_raised_on_the_control_socket_and_its_answer_decides() {
    setup_row();
    chown_all();
    // python3 (the in-sandbox client here) is a hard requirement: scripts/bootstrap installs it.
    QVERIFY2(::access("/usr/bin/python3", X_OK) == 0, "python3 is not installed at /usr/bin/python3; run scripts/bootstrap");
    pid_t pid = spawn_paddock({"run", "--net", "ask", "--", "/usr/bin/python3", "-c",
                               "import socket\n"
                               "s=socket.create_connection(('127.0.0.1',3128))\n"
                               "s.sendall(b'CONNECT unknown.test:443 HTTP/1.1\\r\\nHost: unknown.test:443\\r\\n\\r\\n')\n"
                               "s.recv(200)\n"});
    std::string id;
    QVERIFY(eventually([&] {
      auto ids = session_ids();
      if (ids.empty()) return false;
      id = ids[0];
      return fs::exists(h_.root + "/run/paddock/" + id + ".sock");
    }));
    // Subscribe (late is fine: pending asks are replayed), answer deny.
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", (h_.root + "/run/paddock/" + id + ".sock").c_str());
    QVERIFY(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    const std::string sub = "{\"cmd\":\"subscribe\"}\n";
    QVERIFY(::write(s, sub.data(), sub.size()) == static_cast<ssize_t>(sub.size()));
    std::string buf, ask_id;
    char c;
    while (ask_id.empty() && ::read(s, &c, 1) == 1) {
      if (c != '\n') {
        buf += c;
        continue;
      }
      json ev = json::parse(buf, nullptr, false);
      buf.clear();
      if (ev.is_object() && ev.value("event", "") == "ask") ask_id = ev["id"].get<std::string>();
    }
    ::close(s);
    QVERIFY(!ask_id.empty());
    int c2 = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    QVERIFY(::connect(c2, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    const std::string answer = json{{"cmd", "ask_reply"}, {"id", ask_id}, {"decision", "deny"}}.dump() + "\n";
    QVERIFY(::write(c2, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()));
    char rbuf[64] = {};
    QVERIFY(::read(c2, rbuf, sizeof rbuf - 1) > 0);
    ::close(c2);
    QCOMPARE(std::string(rbuf), std::string("{\"ok\":true}\n"));
    QCOMPARE(wait_exit(pid), 0);
    std::string events = slurp(session_dir(id) + "/events.jsonl");
    QVERIFY2(events.find("\"decision\":\"deny\"") != std::string::npos &&
                 events.find("no answer within") == std::string::npos,
             events.c_str());
  }

  // With agent_state: shared (the user's explicit choice; own state, the default, keeps the agent's
  // writes out of the user's directory: tests/helpers/linux/helper_agent_state_test.cpp) the agent preset's
  // data directory is writable, and with it the settings whose commands the agent's CLI runs on
  // the host: a hook the agent adds is named when its session ends, on stderr and under the
  // session in `paddock sessions` each time; a session that leaves it alone has no such line;
  // filesystem.protect_agent_config keeps the file read-only instead.
  void a_hook_the_agent_adds_is_named_and_protect_agent_config_keeps_it_out_data() { add_uid_rows(); }
  void a_hook_the_agent_adds_is_named_and_protect_agent_config_keeps_it_out() {
    setup_row();
    const std::string settings = h_.home + "/.claude/settings.json";
    const std::string before = R"({"theme":"dark"})";
    fs::create_directories(h_.home + "/.claude");
    put(settings, before);
    put(h_.root + "/shared.yaml", "version: 1\nfilesystem: {agent_state: shared}\n");
    chown_all();
    const std::vector<std::string> claude = {"run", "--agent", "claude-code", "--net", "off", "--policy",
                                             h_.root + "/shared.yaml", "--", "sh", "-c"};
    auto with = [&](const std::string& script) {
      std::vector<std::string> a = claude;
      a.push_back(script);
      return a;
    };
    const std::string add_hook = R"(printf '%s' '{"theme":"dark","hooks":{"Stop":[{"hooks":[{"type":"command",)"
                                 R"("command":"touch /tmp/pwned"}]}]}}' > "$HOME/.claude/settings.json" && echo wrote)";
    auto quiet = paddock(with(R"(cat "$HOME/.claude/settings.json")"));
    QVERIFY2(quiet.exit_code == 0 && quiet.out.find("dark") != std::string::npos, dump(quiet));
    QVERIFY2(quiet.err.find("hooks") == std::string::npos, dump(quiet));
    auto hooked = paddock(with(add_hook));
    QVERIFY2(hooked.exit_code == 0 && hooked.out.find("wrote") != std::string::npos, dump(hooked));
    QVERIFY2(hooked.err.find(settings + ": hooks added") != std::string::npos, dump(hooked));

    auto list = paddock({"sessions"});
    QVERIFY2(list.exit_code == 0, dump(list));
    const std::string line = "  ! " + settings + ": hooks added by the agent";
    QVERIFY2(list.out.find(line) != std::string::npos, dump(list));
    // The hook's session only: its config change, and the audit's finding on the same file (which
    // quarantine and keep decide).
    std::size_t marks = 0;
    for (std::size_t at = list.out.find("  ! "); at != std::string::npos; at = list.out.find("  ! ", at + 1)) ++marks;
    QVERIFY2(marks == 2, dump(list));
    QVERIFY2(list.out.find("  ! 1 finding for a tool on this machine to run, undecided") != std::string::npos, dump(list));
    auto listed = paddock({"sessions", "--json"});
    QVERIFY2(listed.exit_code == 0, dump(listed));
    int with_changes = 0;
    for (const auto& s : json::parse(listed.out)) {
      if (!s.contains("config_changes")) continue;
      ++with_changes;
      QCOMPARE(s["config_changes"], json::parse(R"([{"file":")" + settings + R"(","key":"hooks","change":"added"}])"));
    }
    QCOMPARE(with_changes, 1);

    put(settings, before);
    put(h_.root + "/config/paddock/policy.yaml", "version: 1\nfilesystem:\n  protect_agent_config: true\n");
    chown_all();
    auto kept = paddock(with(add_hook + " || echo refused"));
    QVERIFY2(kept.exit_code == 0 && kept.out.find("refused") != std::string::npos, dump(kept));
    QVERIFY2(kept.err.find("Read-only file system") != std::string::npos ||
                 kept.err.find("Permission denied") != std::string::npos,
             dump(kept));
    QCOMPARE(slurp(settings), before);
    auto again = paddock({"sessions"});
    QVERIFY2(again.out.find(line) == again.out.rfind(line), dump(again));  // still the one session
  }

  void a_missing_helper_is_one_line_and_exit_125_data() { add_uid_rows(); }
  void a_missing_helper_is_one_line_and_exit_125() {
    setup_row();
    fs::create_directories(h_.root + "/prefix/bin");
    fs::create_directories(h_.root + "/prefix/share");
    fs::copy_file(paddock_bin(), h_.root + "/prefix/bin/paddock");
    fs::copy(paddock::test::build_data(), h_.root + "/prefix/share/paddock", fs::copy_options::recursive);
    chown_all();
    auto r = run_process({h_.root + "/prefix/bin/paddock", "run", "--", "true"}, h_.opts);
    QVERIFY2(r.exit_code == 125, dump(r));
    QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1L);
    QVERIFY(session_ids().empty());
  }
};

QTEST_GUILESS_MAIN(RunSessionTest)
#include "run_session_test.moc"
