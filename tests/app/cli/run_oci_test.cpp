// `paddock run --backend oci` end to end (docs/backends.md): the real CLI and helper hand the IR's
// OCI plan to runc from Debian, as root and as uid 65534 (rootless), and the session is a session
// like any other: attestation (with the runtime and the hash of the config.json it was given),
// events, report, `sessions`, `stop`, `verify`. The container's view is tried from inside as an
// agent would, and what the session leaves in the project is checked from outside.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/session/usage_message.h"
#include "tests/app/cli/cli_home.h"
#include "tests/support/control_client.h"
#include "tests/support/loopback_server.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

class RunOciTest : public QObject {
  Q_OBJECT

  CliHome h_;

  // runc missing fails the row: scripts/bootstrap installs it.
  void setup_row() {
    QFETCH(uint, uid);
    QVERIFY2(fs::exists("/usr/sbin/runc") || fs::exists("/usr/bin/runc"), "runc is not installed: scripts/bootstrap installs it");
    // Outside /tmp: the container's /tmp is a private tmpfs, where a write that escaped the view
    // would land unseen.
    QVERIFY(h_.create(uid, "oci", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}, "home", "proj", "/var/tmp"));
    put(h_.home + "/.ssh/id_ed25519", "PRIVATE-KEY-OCI\n");
    put(h_.project + "/src/main.txt", "hello from the project\n");
    h_.chown_all();
  }

  ProcessResult oci(std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "--backend", "oci", "--net", "off"});
    return h_.paddock(args);
  }

  std::string session_dir(const std::string& id) const { return h_.sessions_dir() + "/" + id; }

  // Every name in the project, recursively, relative to it.
  std::vector<std::string> project_names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(h_.project)) out.push_back(fs::relative(e.path(), h_.project).string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void a_session_is_recorded_attested_and_verified_data() { add_uid_rows(); }
  void a_session_is_recorded_attested_and_verified() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const auto before = h_.session_ids();
    auto r = oci({"--", "sh", "-c", "echo out; exit 7"});
    QVERIFY2(r.exit_code == 7, dump(r));
    QVERIFY2(r.out == "out\n", dump(r));
    const std::string id = h_.new_session(before);
    QVERIFY(!id.empty());
    const std::string dir = session_dir(id);
    const json att = json::parse(slurp(dir + "/attestation.json"));
    QCOMPARE(att["backend"].get<std::string>(), std::string("oci"));
    QVERIFY2(att["runtime"].get<std::string>().rfind("runc ", 0) == 0, att.dump().c_str());
    const json report = json::parse(slurp(dir + "/report.json"));
    QCOMPARE(report["status"].get<std::string>(), std::string("exited"));
    QCOMPARE(report["exit_code"].get<int>(), 7);
    QVERIFY(report["attested"].get<bool>());
    QVERIFY2(report["usage"]["cpu_ms"].get<long>() > 0, report.dump().c_str());  // the runtime's tree, measured
    const json started = json::parse(slurp(dir + "/events.jsonl").substr(0, slurp(dir + "/events.jsonl").find('\n')));
    QCOMPARE(started["event"].get<std::string>(), std::string("session_started"));
    QCOMPARE(started["backend"].get<std::string>(), std::string("oci"));
    QCOMPARE(started["plan_hash"], att["plan_hash"]);
    const json plan = json::parse(slurp(dir + "/plan.json"));
    QCOMPARE(plan["backend"].get<std::string>(), std::string("oci"));

    auto listed = h_.paddock({"sessions"});
    QVERIFY2(listed.exit_code == 0 && listed.out.find(id + "  exited  7") != std::string::npos, dump(listed));
    auto verified = h_.paddock({"verify", "--session", id});
    QVERIFY2(verified.exit_code == 0, dump(verified));
    QVERIFY2(verified.out.find(att["runtime_config_hash"].get<std::string>()) != std::string::npos, dump(verified));

    // The config the runtime was given, changed afterwards: the hash no longer matches.
    const std::string config = dir + "/bundle/config.json";
    const std::string original = slurp(config);
    json widened = json::parse(original);
    widened["process"]["env"].push_back("EXTRA=1");
    put(config, widened.dump(2) + "\n");
    auto changed = h_.paddock({"verify", "--session", id});
    QVERIFY2(changed.exit_code == 103 && changed.err.find("config.json") != std::string::npos, dump(changed));
    // Changed and re-attested: the config is no longer the plan's with the launch's facts.
    json mounts_dropped = json::parse(original);
    mounts_dropped["mounts"].erase(mounts_dropped["mounts"].size() - 1);
    const std::string text = mounts_dropped.dump(2) + "\n";
    put(config, text);
    json reattested = att;
    reattested["runtime_config_hash"] = paddock::sha256_hex(text);
    put(dir + "/attestation.json", reattested.dump(2) + "\n");
    auto rewritten = h_.paddock({"verify", "--session", id});
    QVERIFY2(rewritten.exit_code == 103 && rewritten.err.find("differs from the plan") != std::string::npos, dump(rewritten));
  }

  // What the agent can reach: the project (read and write), not the key in the home directory,
  // not the rest of the home; the protected paths the project lacks cannot be made, and the
  // placeholders that keep them absent are gone from the project after the session.
  void the_container_holds_the_policys_view_and_leaves_the_project_as_it_was_data() { add_uid_rows(); }
  void the_container_holds_the_policys_view_and_leaves_the_project_as_it_was() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const auto names_before = project_names();
    const std::string script =
        "cat src/main.txt; echo made > src/new.txt && echo wrote-project;"
        "cat " + h_.home + "/.ssh/id_ed25519 && echo read-key;"
        "echo x > " + h_.home + "/outside.txt && echo wrote-home;"
        "mkdir -p .git/hooks && echo made-git;"
        "rmdir .git && echo removed-placeholder;"
        "mv .git .git-moved && echo moved-placeholder;"
        "echo 'echo pwned' > .npmrc && echo wrote-npmrc;"
        "exit 0";
    auto r = oci({"--", "sh", "-c", script});
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("hello from the project") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("wrote-project") != std::string::npos, dump(r));
    for (const char* escaped : {"read-key", "wrote-home", "made-git", "removed-placeholder", "moved-placeholder", "wrote-npmrc"})
      QVERIFY2(r.out.find(escaped) == std::string::npos, (QByteArray(escaped) + "\n" + dump(r)).constData());
    QVERIFY2(r.out.find("PRIVATE-KEY-OCI") == std::string::npos && r.err.find("PRIVATE-KEY-OCI") == std::string::npos, dump(r));
    QVERIFY(!fs::exists(h_.home + "/outside.txt"));
    QCOMPARE(slurp(h_.project + "/src/new.txt"), std::string("made\n"));
    auto names_after = project_names();
    names_after.erase(std::remove(names_after.begin(), names_after.end(), "src/new.txt"), names_after.end());
    QCOMPARE(names_after, names_before);
  }

  // The wall-time limit and `paddock stop` end the container with everything it started, a
  // process that left the agent's session included.
  void the_time_limit_and_stop_end_the_whole_container_data() { add_uid_rows(); }
  void the_time_limit_and_stop_end_the_whole_container() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const std::string marker = "paddock-oci-stray-" + std::to_string(::getpid());
    const auto strays = [&] { return run_process({"pgrep", "-f", marker}, {}).out; };
    auto timed = oci({"--timeout", "2", "--", "sh", "-c", "setsid sh -c 'sleep 300; : " + marker + "' & sleep 300"});
    QVERIFY2(timed.exit_code == 124, dump(timed));
    QVERIFY2(strays().empty(), strays().c_str());

    const auto before = h_.session_ids();
    std::vector<std::string> args = {paddock_bin(), "run", "--backend", "oci", "--net", "off", "--",
                                     "sh", "-c", "setsid sh -c 'sleep 300; : " + marker + "' & sleep 300"};
    const pid_t pid = spawn_process(args, "", h_.opts);
    QVERIFY(pid > 0);
    std::string id;
    for (int i = 0; i < 100 && id.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      id = h_.new_session(before);
      if (!id.empty() && h_.paddock({"sessions"}).out.find(id + "  running") == std::string::npos) id.clear();
    }
    QVERIFY2(!id.empty(), "the session never showed as running");
    auto stopped = h_.paddock({"stop", id});
    QVERIFY2(stopped.exit_code == 0, dump(stopped));
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    const json report = json::parse(slurp(session_dir(id) + "/report.json"));
    QCOMPARE(report["status"].get<std::string>(), std::string("stopped"));
    QVERIFY2(strays().empty(), strays().c_str());
  }

  // While the container runs, the control socket's usage answer counts its processes (the
  // runtime's descendants, a `setsid` one included) and their CPU time, and names the policy's
  // limits as the IR has them.
  void the_usage_answer_counts_the_containers_processes_data() { add_uid_rows(); }
  void the_usage_answer_counts_the_containers_processes() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const auto before = h_.session_ids();
    const pid_t pid = spawn_process({paddock_bin(), "run", "--backend", "oci", "--net", "off", "--", "sh", "-c",
                                     "setsid sh -c 'while :; do :; done' & while :; do :; done"},
                                    "", h_.opts);
    QVERIFY(pid > 0);
    std::string id, last;
    paddock::session::LiveUsage first;
    QVERIFY2(eventually([&] {
               if (id.empty()) id = h_.new_session(before);
               if (id.empty()) return false;
               last = control_line(h_.root + "/run/paddock/" + id + ".sock", R"({"cmd":"usage"})");
               auto u = paddock::session::decode_usage_reply(last);
               if (!u.ok()) return false;
               first = *u;
               return u->processes >= 2 && u->memory_bytes > 0;
             }),
             last.c_str());
    QVERIFY2(eventually([&] {
               last = control_line(h_.root + "/run/paddock/" + id + ".sock", R"({"cmd":"usage"})");
               auto u = paddock::session::decode_usage_reply(last);
               return u.ok() && u->cpu_ms >= first.cpu_ms + 300;
             }),
             last.c_str());
    const json resources = json::parse(slurp(session_dir(id) + "/ir.json"))["resources"];
    const auto limit = [&](const char* key) -> std::optional<std::int64_t> {
      if (!resources.contains(key) || resources[key].is_null()) return std::nullopt;
      return resources[key].get<std::int64_t>();
    };
    QCOMPARE(first.limits.memory_bytes, limit("memory_bytes"));
    QCOMPARE(first.limits.processes, limit("processes"));
    QCOMPARE(first.limits.cpu_ms, limit("cpu_seconds") ? std::optional<std::int64_t>(*limit("cpu_seconds") * 1000) : std::nullopt);
    QVERIFY2(h_.paddock({"stop", id}).exit_code == 0, id.c_str());
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
  }

  // A stop that comes while the runtime is still making the container (the session shows as
  // running from the moment the runtime is started) ends it as stopped, not as a runtime failure.
  // runc's window between making the container and starting its process is a few milliseconds,
  // so a stand-in runtime holds it open: its `run` waits, never writing the pid file, until its
  // `kill` comes.
  void a_stop_while_the_container_is_being_made_reads_stopped_data() { add_uid_rows(); }
  void a_stop_while_the_container_is_being_made_reads_stopped() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const std::string runtime = h_.root + "/slow-runc";
    put(runtime,
        "#!/bin/sh\n"
        "[ \"$1\" = --version ] && { echo 'runc version 1.1.5'; exit 0; }\n"
        "case \"$3\" in\n"
        "  run) echo $$ > \"$2/making\"; exec sleep 300 ;;\n"
        "  kill) kill -KILL \"$(cat \"$2/making\")\" ;;\n"
        "esac\n");
    fs::permissions(runtime, fs::perms(0755));
    h_.chown_all();
    const auto before = h_.session_ids();
    const pid_t pid = spawn_process({paddock_bin(), "run", "--backend", "oci", "--runtime", runtime, "--net", "off", "--", "true"},
                                    "", h_.opts);
    QVERIFY(pid > 0);
    std::string id;
    bool stopped = false;
    for (int i = 0; i < 1000 && !stopped; ++i) {
      if (id.empty()) id = h_.new_session(before);
      if (!id.empty()) stopped = h_.paddock({"stop", id}).exit_code == 0;
      if (!stopped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!stopped) ::kill(pid, SIGKILL);
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    QVERIFY2(stopped, "the session never took a stop");
    const json report = json::parse(slurp(session_dir(id) + "/report.json"));
    QVERIFY2(report["status"] == "stopped" && !report.contains("error"), report.dump().c_str());
  }

  // What `run --backend oci` cannot do is refused before anything starts, in one line.
  void a_filtered_network_reaches_allowed_hosts_through_the_broker_and_nothing_else_data() { add_uid_rows(); }
  void a_filtered_network_reaches_allowed_hosts_through_the_broker_and_nothing_else() {
    // The runtime hands the helper the container's seccomp listener; each connect(2) off the
    // container's loopback, or to the proxy's port on it, is answered with the broker.
    setup_row();
    if (QTest::currentTestFailed()) return;
    LoopbackServer server([](int fd) {
      char buf[4096];
      (void)!::read(fd, buf, sizeof buf);
      const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 17\r\nConnection: close\r\n\r\nhello from a host";
      (void)!::write(fd, reply.data(), reply.size());
    });
    const std::string port = std::to_string(server.port());
    // Through the proxy to an allowed name; to a name the policy does not list; straight to an
    // address elsewhere (the broker answers, refusing a plain GET); straight to the server's port
    // on the container's own loopback, where nothing listens.
    const std::string script =
        "curl -sS --max-time 20 --proxytunnel http://api.paddock.test:" + port + "/; echo; echo ---; "
        "curl -sS --max-time 20 --proxytunnel http://other.paddock.test:" + port + "/; echo \"other:$?\"; echo ---; "
        "curl -sS --max-time 20 --noproxy '*' http://192.0.2.1/; echo; echo ---; "
        "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:" + port + "/; echo \"loopback:$?\"";
    RunOptions o = h_.opts;
    o.env_override["PADDOCK_DEBUG_RESOLVE"] = "api.paddock.test=127.0.0.1,other.paddock.test=127.0.0.1";
    const auto before = h_.session_ids();
    auto r = run_process({paddock_bin(), "run", "--backend", "oci", "--allow-tainted", "--net", "allowlist",
                          "--allow-domain", "api.paddock.test", "--", "sh", "-c", script},
                         o);
    QVERIFY2(r.exit_code == 0, dump(r));
    const auto parts = QString::fromStdString(r.out).split("---");
    QVERIFY2(parts.size() == 4, dump(r));
    QVERIFY2(parts[0].contains("hello from a host"), dump(r));
    QVERIFY2(parts[1].contains("other:56") && !parts[1].contains("hello"), dump(r));
    QVERIFY2(parts[2].contains("Paddock sandbox proxy"), dump(r));
    QVERIFY2(parts[3].contains("loopback:7"), dump(r));
    QCOMPARE(server.accepted(), 1);
    // The listener's path is one of the launch's facts: the session verifies.
    const std::string id = h_.new_session(before);
    const std::string events = slurp(session_dir(id) + "/events.jsonl");
    QVERIFY2(events.find("\"host\":\"other.paddock.test\"") != std::string::npos, events.c_str());
    auto verified = h_.paddock({"verify", "--session", id});
    QVERIFY2(verified.exit_code == 0, dump(verified));
  }

  void an_agent_with_shared_state_runs_and_a_hook_it_adds_is_named_data() { add_uid_rows(); }
  void an_agent_with_shared_state_runs_and_a_hook_it_adds_is_named() {
    // The agent's settings watched as the Linux helper watches them: read before the container
    // exists, compared once it is gone.
    setup_row();
    if (QTest::currentTestFailed()) return;
    const std::string settings = h_.home + "/.claude/settings.json";
    put(settings, R"({"theme":"dark"})");
    put(h_.root + "/shared.yaml", "version: 1\nfilesystem: {agent_state: shared}\n");
    h_.chown_all();
    const auto before = h_.session_ids();
    auto r = h_.paddock({"run", "--backend", "oci", "--agent", "claude-code", "--net", "off", "--policy",
                         h_.root + "/shared.yaml", "--", "sh", "-c",
                         R"(printf '%s' '{"theme":"dark","hooks":{"Stop":[]}}' > "$HOME/.claude/settings.json" && echo wrote)"});
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    QVERIFY2(r.err.find(settings + ": hooks added") != std::string::npos, dump(r));
    const json report = json::parse(slurp(session_dir(h_.new_session(before)) + "/report.json"));
    QCOMPARE(report["config_changes"], json::parse(R"([{"file":")" + settings + R"(","key":"hooks","change":"added"}])"));
  }

  void what_the_oci_backend_cannot_do_is_refused_in_one_line_data() { add_uid_rows(); }
  void what_the_oci_backend_cannot_do_is_refused_in_one_line() {
    setup_row();
    if (QTest::currentTestFailed()) return;
    const auto one_line = [](const ProcessResult& r) { return std::count(r.err.begin(), r.err.end(), '\n') == 1; };
    auto missing = oci({"--runtime", "no-such-runtime", "--", "true"});
    QVERIFY2(missing.exit_code == 125 && one_line(missing) && missing.err.find("no-such-runtime") != std::string::npos,
             dump(missing));
    auto linux_runtime = h_.paddock({"run", "--runtime", "runc", "--", "true"});
    QVERIFY2(linux_runtime.exit_code == 2 && one_line(linux_runtime), dump(linux_runtime));
    // Published ports need the sandbox's own relay, which the container does not have.
    auto publish = h_.paddock({"run", "--backend", "oci", "--net", "allowlist", "--allow-domain", "example.com",
                               "--publish", "8080", "--", "true"});
    QVERIFY2(publish.exit_code == 125 && one_line(publish), dump(publish));
    // A bundle for running by hand cannot have a filtered network: nothing would answer.
    auto bundle = h_.paddock({"plan", "--backend", "oci", "--net", "allowlist", "--allow-domain", "example.com",
                              "--bundle", h_.root + "/by-hand", "--", "true"});
    QVERIFY2(bundle.exit_code == 125 && one_line(bundle) && bundle.err.find("paddock run --backend oci") != std::string::npos,
             dump(bundle));
    auto review = oci({"--review", "--", "true"});
    QVERIFY2(review.exit_code == 125 && one_line(review), dump(review));
    auto not_a_runtime = oci({"--runtime", "/bin/false", "--", "true"});
    QVERIFY2(not_a_runtime.exit_code == 125 && one_line(not_a_runtime), dump(not_a_runtime));
    // gVisor's runsc (Debian 12's answers its --version so) is refused before anything runs: it
    // would drop the bundle's seccomp profile and answer denied calls with another errno.
    const std::string runsc = h_.root + "/bin/runsc";
    put(runsc, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'runsc version 0.0~20221219.0'; echo 'spec: 1.0.2-dev'; exit 0; }\n"
               "touch \"$0.ran\"\n");
    fs::permissions(runsc, fs::perms(0755));
    h_.chown_all();
    auto gvisor = oci({"--runtime", runsc, "--", "true"});
    QVERIFY2(gvisor.exit_code == 125 && one_line(gvisor) && gvisor.err.find("gVisor") != std::string::npos, dump(gvisor));
    QVERIFY2(!fs::exists(runsc + ".ran"), "runsc was asked to run the container");
  }
};

QTEST_GUILESS_MAIN(RunOciTest)
#include "run_oci_test.moc"
