// The egress path end to end through the REAL pieces: `paddock run` -> engine (the tainted
// PADDOCK_DEBUG_RESOLVE seam frozen into the IR) -> paddock-helper -> the listener inside the
// sandbox's network namespace -> the broker on the host -> a server this test runs on 127.0.0.1.
// curl (CONNECT and SOCKS5) and git over ssh (--git-ssh, paddock-connect as ProxyCommand) run
// inside the sandbox. Only loopback is ever contacted; no real name is ever resolved (the seam
// answers only from its table). `--net ask` is answered with `paddock ask` while `paddock
// sessions` shows the pending asks. Every case runs as root and as uid 65534; the broker's cases
// run in the landlock tier too, where no network namespace exists and the helper answers each
// connect(2) of the agent with a connection to the broker (rows "<user>-landlock").
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/loopback_server.h"
#include "tests/support/process_runner.h"
#include "tests/app/cli/cli_home.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Reads until `end` is seen (or 16 KiB, EOF, timeout).
std::string read_until(int fd, const std::string& end) {
  std::string got;
  char buf[4096];
  while (got.find(end) == std::string::npos && got.size() < 16384) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

const std::string kBody = "hello through the paddock broker";

std::string http_handler(int fd) {
  std::string head = read_until(fd, "\r\n\r\n");
  write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(kBody.size()) +
                    "\r\nConnection: close\r\n\r\n" + kBody);
  return head.substr(0, head.find("\r\n"));
}

// Enough of SSH for the test: both sides send their identification line first (RFC 4253 §4.2);
// record the client's, then hang up (the client then fails its key exchange).
std::string ssh_handler(int fd) {
  write_all(fd, "SSH-2.0-PaddockFakeServer\r\n");
  std::string line = read_until(fd, "\n");
  return line.substr(0, line.find_first_of("\r\n"));
}

std::vector<json> events_of(const std::string& path) {
  std::vector<json> out;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

bool has_event(const std::vector<json>& events, const std::function<bool(const json&)>& pred) {
  return std::any_of(events.begin(), events.end(), pred);
}

}  // namespace

class EgressSessionTest : public QObject {
  Q_OBJECT

  CliHome h_;
  bool landlock_ = false;  // the row's tier is the landlock tier

  void setup_row(bool tiers = false) {
    QFETCH(uint, uid);
    landlock_ = false;
    if (tiers) {
      QFETCH(QString, tier);
      landlock_ = tier == "landlock";
    }
    QVERIFY(h_.create(uid, "egress", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER", "PADDOCK_DEBUG_RESOLVE",
                                      "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                      "all_proxy"}));
    h_.chown_all();
  }

  // args ({"run" or "hash", options...}) as the row gives them: in the row's tier, with the
  // permissive profile.
  std::vector<std::string> run_argv(std::vector<std::string> args) const {
    std::vector<std::string> argv = paddock_run_argv(landlock_, args.front());
    argv.insert(argv.end(), {"--profile", "permissive"});
    argv.insert(argv.end(), args.begin() + 1, args.end());
    return argv;
  }

  // The permissive profile for every row: these tests are about the network, and it sets no
  // resource limits (run_session_test and helper_limits_test cover the default profile's).
  ProcessResult paddock(std::vector<std::string> args, const std::string& seam) {
    RunOptions o = h_.opts;
    if (!seam.empty()) o.env_override["PADDOCK_DEBUG_RESOLVE"] = seam;
    return run_process(run_argv(std::move(args)), o);
  }

  // The CLI without the profile (`sessions`, `ask`).
  ProcessResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), paddock_bin());
    return run_process(args, h_.opts);
  }

  // `paddock run` in the background (stdout and stderr to `out`), for a session to talk to.
  pid_t spawn_paddock(std::vector<std::string> args, const std::string& seam, const std::string& out) {
    args = run_argv(std::move(args));
    RunOptions opts = h_.opts;
    opts.env_override["PADDOCK_DEBUG_RESOLVE"] = seam;
    return spawn_process(args, out, opts);
  }

  // The asks `paddock sessions --json` lists under the running session `id`.
  json asks_of(const std::string& id) {
    auto r = cli({"sessions", "--json"});
    json list = json::parse(r.out, nullptr, false);
    if (!list.is_array()) return json();
    for (const auto& s : list)
      if (s.value("id", "") == id && s.value("status", "") == "running") return s.value("asks", json());
    return json();
  }

  std::string only_session_dir() {
    std::vector<std::string> ids;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(h_.sessions_dir(), ec)) ids.push_back(e.path().string());
    std::sort(ids.begin(), ids.end());
    return ids.empty() ? "" : ids.back();
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void curl_in_the_sandbox_reaches_a_loopback_server_through_connect_and_socks5_data() { add_uid_and_tier_rows(); }
  void curl_in_the_sandbox_reaches_a_loopback_server_through_connect_and_socks5() {
    setup_row(true);
    LoopbackServer server(0, http_handler);
    QVERIFY2(server.error().empty(), server.error().c_str());
    const std::string port = std::to_string(server.port());
    const std::string url = "http://api.paddock.test:" + port + "/hello";
    // CONNECT (curl --proxytunnel with HTTP_PROXY from the sandbox's environment), SOCKS5 with
    // the name sent to the proxy, then a name the policy does not list, by hand over bash's
    // /dev/tcp so that the broker's whole 403 answer (its body) is visible.
    const std::string script =
        "curl -sS --max-time 20 --proxytunnel " + url + "; echo; echo ---; "
        "curl -sS --max-time 20 -x socks5h://127.0.0.1:3128 " + url + "; echo; echo ---; "
        "bash -c 'exec 3<>/dev/tcp/127.0.0.1/3128; "
        "printf \"CONNECT other.paddock.test:" + port + " HTTP/1.1\\r\\nHost: other.paddock.test\\r\\n\\r\\n\" >&3; "
        "timeout 10 cat <&3'";
    auto r = paddock({"run", "--allow-tainted", "--net", "allowlist", "--allow-domain", "api.paddock.test", "--",
                      "sh", "-c", script},
                     "api.paddock.test=127.0.0.1,other.paddock.test=127.0.0.1");
    QVERIFY2(r.exit_code == 0, dump(r));
    const auto parts = QString::fromStdString(r.out).split("---");
    QVERIFY2(parts.size() == 3, dump(r));
    QVERIFY2(parts[0].contains(QString::fromStdString(kBody)), dump(r));
    QVERIFY2(parts[1].contains(QString::fromStdString(kBody)), dump(r));
    QVERIFY2(parts[2].contains("403") && parts[2].contains("egress.domains") && parts[2].contains("other.paddock.test"),
             dump(r));
    // Both allowed requests reached the server, with the path intact; the refused one never did.
    const auto seen = server.seen();
    QVERIFY2(seen.size() == 2, std::to_string(seen.size()).c_str());
    for (const auto& s : seen) QCOMPARE(s, std::string("GET /hello HTTP/1.1"));

    const std::string dir = only_session_dir();
    const auto events = events_of(dir + "/events.jsonl");
    QVERIFY2(has_event(events, [](const json& e) { return e["event"] == "net_request" && e["host"] == "api.paddock.test"; }),
             slurp(dir + "/events.jsonl").c_str());
    QVERIFY(has_event(events, [](const json& e) {
      return e["event"] == "dns_resolved" && e["host"] == "api.paddock.test" && e["verdict"] == "allowed";
    }));
    // Every broker event of a seam session carries the taint.
    for (const auto& e : events)
      if (e["event"] == "net_request" || e["event"] == "dns_resolved" || e["event"] == "net_egress")
        QVERIFY2(e.value("taint", "") == "PADDOCK_DEBUG_RESOLVE", e.dump().c_str());
    QVERIFY(has_event(events, [](const json& e) { return e["event"] == "net_egress"; }));
    QVERIFY(has_event(events, [](const json& e) {
      return e["event"] == "net_request" && e["host"] == "other.paddock.test" && e.dump().find("deny") != std::string::npos;
    }));
    // The attestation carries the seam's taint, naming the table.
    json att = json::parse(slurp(dir + "/attestation.json"));
    QVERIFY2(att["taint"].dump().find("PADDOCK_DEBUG_RESOLVE") != std::string::npos, att.dump().c_str());
  }

  void the_seam_taints_the_run_and_is_refused_without_allow_tainted_data() { add_uid_rows(); }
  void the_seam_taints_the_run_and_is_refused_without_allow_tainted() {
    setup_row();
    LoopbackServer server(0, http_handler);
    QVERIFY2(server.error().empty(), server.error().c_str());
    const std::string url = "http://api.paddock.test:" + std::to_string(server.port()) + "/";
    auto r = paddock({"run", "--net", "allowlist", "--allow-domain", "api.paddock.test", "--", "curl", "-sS",
                      "--proxytunnel", url},
                     "api.paddock.test=127.0.0.1");
    QVERIFY2(r.exit_code == 125 && r.err.find("--allow-tainted") != std::string::npos &&
                 r.err.find("PADDOCK_DEBUG_RESOLVE") != std::string::npos,
             dump(r));
    QVERIFY(server.seen().empty());
    // The seam accepts loopback addresses only.
    auto bad = paddock({"run", "--allow-tainted", "--net", "allowlist", "--", "true"}, "api.paddock.test=10.0.0.1");
    QVERIFY2(bad.exit_code == 2 && bad.err.find("loopback") != std::string::npos, dump(bad));
  }

  void an_allowed_name_missing_from_the_seams_table_never_resolves_data() { add_uid_rows(); }
  void an_allowed_name_missing_from_the_seams_table_never_resolves() {
    // The same allowed name, but the seam maps a DIFFERENT name: the helper's table answers
    // only what the IR lists, so api.paddock.test does not resolve at all (no real lookup falls
    // through), and loopback is reachable through no name the table does not list.
    setup_row();
    LoopbackServer server(0, http_handler);
    QVERIFY2(server.error().empty(), server.error().c_str());
    const std::string url = "http://api.paddock.test:" + std::to_string(server.port()) + "/";
    auto r = paddock({"run", "--allow-tainted", "--net", "allowlist", "--allow-domain", "api.paddock.test", "--",
                      "curl", "-sS", "--max-time", "20", "--proxytunnel", url},
                     "unrelated.paddock.test=127.0.0.1");
    QVERIFY2(r.exit_code != 0 && r.out.find(kBody) == std::string::npos, dump(r));
    QVERIFY(server.seen().empty());
    const std::string dir = only_session_dir();
    QVERIFY2(has_event(events_of(dir + "/events.jsonl"), [](const json& e) {
      return e["event"] == "dns_resolved" && e["host"] == "api.paddock.test" && e["verdict"] == "failed" &&
             e["reason"].get<std::string>().find("PADDOCK_DEBUG_RESOLVE") != std::string::npos;
    }), slurp(dir + "/events.jsonl").c_str());
  }

  void git_over_ssh_goes_through_the_broker_with_git_ssh_data() { add_uid_rows(); }
  void git_over_ssh_goes_through_the_broker_with_git_ssh() {
    setup_row();
    // ssh's port is 22, so the fake server must be there (the test runs as root; the sandboxed
    // client does not). Nothing else on this machine listens on 22.
    LoopbackServer server(22, ssh_handler);
    if (!server.error().empty()) QFAIL((server.error() + " (is an sshd running?)").c_str());
    auto r = paddock({"run", "--allow-tainted", "--git-ssh", "--net", "strict", "--allow-domain",
                      "git.paddock.test:22", "--", "sh", "-c",
                      "echo \"$GIT_SSH_COMMAND\"; GIT_TERMINAL_PROMPT=0 git ls-remote ssh://git@git.paddock.test/x.git"},
                     "git.paddock.test=127.0.0.1");
    // The fake server hangs up after the banners, so git fails; what matters is who it talked to.
    QVERIFY2(r.exit_code != 0 && r.out.find("paddock-connect") != std::string::npos, dump(r));
    const auto seen = server.seen();
    QVERIFY2(seen.size() == 1 && seen[0].rfind("SSH-2.0-OpenSSH", 0) == 0, dump(r));
    const std::string dir = only_session_dir();
    QVERIFY2(has_event(events_of(dir + "/events.jsonl"), [](const json& e) {
      return e["event"] == "net_request" && e["host"] == "git.paddock.test" && e["port"] == 22 &&
             e.dump().find("allow") != std::string::npos;
    }), slurp(dir + "/events.jsonl").c_str());
    // The plan the helper applied (and hashed) binds paddock-connect read-only into the view and
    // sets GIT_SSH_COMMAND; the attestation reports the field.
    json att = json::parse(slurp(dir + "/attestation.json"));
    QVERIFY2(att.dump().find("egress.git_ssh") != std::string::npos, att.dump().c_str());
    // `paddock hash` with the same inputs, --git-ssh included, names the IR the run attested.
    auto hash = paddock({"hash", "--git-ssh", "--net", "strict", "--allow-domain", "git.paddock.test:22"},
                        "git.paddock.test=127.0.0.1");
    QVERIFY2(hash.exit_code == 0, dump(hash));
    QCOMPARE(hash.out, att["ir_hash"].get<std::string>() + "\n");
    json plan = json::parse(slurp(dir + "/plan.json"));
    bool bound = false, env_set = false;
    for (const auto& st : plan["steps"]) {
      if (st["step"] == "mount" && st["value"]["op"] == "bind_ro" &&
          st["value"]["target"].get<std::string>().find("/paddock-connect") != std::string::npos)
        bound = true;
      if (st["step"] == "env" && st["value"]["set"].contains("GIT_SSH_COMMAND")) env_set = true;
    }
    QVERIFY2(bound && env_set, plan.dump().c_str());
  }

  void git_ssh_to_a_port_the_strict_policy_does_not_list_shows_the_brokers_reason_data() { add_uid_rows(); }
  void git_ssh_to_a_port_the_strict_policy_does_not_list_shows_the_brokers_reason() {
    setup_row();
    LoopbackServer server(22, ssh_handler);
    if (!server.error().empty()) QFAIL((server.error() + " (is an sshd running?)").c_str());
    // Strict mode, only port 443 of the host: ssh's CONNECT to port 22 is refused by the broker,
    // and paddock-connect puts the broker's reason (the rule) on ssh's stderr.
    auto r = paddock({"run", "--allow-tainted", "--git-ssh", "--net", "strict", "--allow-domain",
                      "git.paddock.test:443", "--", "sh", "-c",
                      "GIT_TERMINAL_PROMPT=0 git ls-remote ssh://git@git.paddock.test/x.git"},
                     "git.paddock.test=127.0.0.1");
    QVERIFY2(r.exit_code != 0, dump(r));
    QVERIFY2(r.err.find("paddock-connect: the sandbox proxy refused git.paddock.test:22") != std::string::npos &&
                 r.err.find("403") != std::string::npos && r.err.find("strict") != std::string::npos,
             dump(r));
    QVERIFY(server.seen().empty());
  }

  void asks_are_listed_by_sessions_and_answered_by_paddock_ask_data() { add_uid_and_tier_rows(); }
  void asks_are_listed_by_sessions_and_answered_by_paddock_ask() {
    setup_row(true);
    LoopbackServer server(0, http_handler);
    QVERIFY2(server.error().empty(), server.error().c_str());
    const std::string port = std::to_string(server.port());
    const std::string url = "http://ask.paddock.test:" + port;
    const std::string curl = "curl -sS --max-time 60 --proxytunnel " + url;
    // One request, then two at once: each connection to an unlisted name waits for an answer.
    // (The landlock tier's temporary directory is TMPDIR: the host's /tmp is not granted there.)
    const std::string script = "t=${TMPDIR:-/tmp}; " + curl + "/first; echo; echo ---; " + curl +
                               "/second >$t/2 2>&1 & " + curl + "/third >$t/3 2>&1 & wait; cat $t/2; echo; echo ---; cat $t/3";
    const std::string out = h_.root + "/run.out";
    pid_t pid = spawn_paddock({"run", "--allow-tainted", "--net", "ask", "--", "sh", "-c", script},
                              "ask.paddock.test=127.0.0.1", out);
    std::string id;
    QVERIFY2(eventually([&] {
      const std::string dir = only_session_dir();
      id = dir.substr(dir.rfind('/') + 1);
      json asks = id.empty() ? json() : asks_of(id);
      return asks.is_array() && asks.size() == 1;
    }), (slurp(out) + dump(cli({"sessions", "--json"})).toStdString()).c_str());
    // `paddock sessions` shows it under the session: its id, host and port, and how to answer.
    auto listed = cli({"sessions"});
    QVERIFY2(listed.exit_code == 0 && listed.out.find("? ask ask-1  ask.paddock.test:" + port) != std::string::npos &&
                 listed.out.find("paddock ask " + id + " ask-1 allow-once|allow-session|deny") != std::string::npos,
             dump(listed));
    QCOMPARE(asks_of(id)[0]["host"].get<std::string>(), std::string("ask.paddock.test"));
    QCOMPARE(asks_of(id)[0]["port"].get<int>(), server.port());

    // Errors are one line each, exit 2: an ask the session never raised, a word that is no
    // answer, a session that does not exist.
    auto unknown = cli({"ask", id, "ask-99", "deny"});
    QVERIFY2(unknown.exit_code == 2 && unknown.err == "paddock: session " + id + ": no ask ask-99 in this session (see 'paddock sessions')\n",
             dump(unknown));
    auto bad_word = cli({"ask", id, "maybe"});
    QVERIFY2(bad_word.exit_code == 2 && bad_word.err.find("allow-once, allow-session or deny") != std::string::npos,
             dump(bad_word));
    auto no_session = cli({"ask", "20990101T000000Z-000000000000", "deny"});
    QVERIFY2(no_session.exit_code == 2 && no_session.err.find("no session 20990101T000000Z-000000000000") != std::string::npos,
             dump(no_session));
    QVERIFY(server.seen().empty());

    // The only pending ask, answered without naming it: the request goes through.
    auto once = cli({"ask", id, "allow-once"});
    QVERIFY2(once.exit_code == 0 &&
                 once.out == "answered allow-once to ask.paddock.test:" + port + " (ask ask-1 of session " + id + ")\n",
             dump(once));
    auto again = cli({"ask", id, "ask-1", "deny"});
    QVERIFY2(again.exit_code == 2 && again.err.find("ask ask-1 was already answered: allow_once") != std::string::npos &&
                 std::count(again.err.begin(), again.err.end(), '\n') == 1,
             dump(again));

    // Allowed once is once: the next two connections ask again. With two pending, an answer
    // that names none is refused, listing them.
    QVERIFY2(eventually([&] { json a = asks_of(id); return a.is_array() && a.size() == 2; }), slurp(out).c_str());
    auto which = cli({"ask", id, "deny"});
    QVERIFY2(which.exit_code == 2 && which.err.find("has 2 pending asks; name one") != std::string::npos &&
                 which.out.find("ask-2  ask.paddock.test:" + port) != std::string::npos &&
                 which.out.find("ask-3  ask.paddock.test:" + port) != std::string::npos,
             dump(which));
    auto deny = cli({"ask", id, "ask-2", "deny"});
    QVERIFY2(deny.exit_code == 0 && deny.out.find("answered deny to ask.paddock.test:" + port) != std::string::npos,
             dump(deny));
    // One ask is pending now, but another was waiting a moment ago: the one pending may not be
    // the one the user saw, so an answer that does not name it is refused, showing both.
    auto unnamed = cli({"ask", id, "allow-once"});
    QVERIFY2(unnamed.exit_code == 2 && unnamed.err.find("more than one ask in the last 30 seconds") != std::string::npos &&
                 unnamed.out.find("ask-2  ask.paddock.test:" + port) != std::string::npos &&
                 unnamed.out.find("ask-3  ask.paddock.test:" + port) != std::string::npos,
             dump(unnamed));
    auto allow = cli({"ask", id, "ask-3", "allow-once"});
    QVERIFY2(allow.exit_code == 0 && allow.out.find("answered allow-once to ask.paddock.test:" + port + " (ask ask-3") !=
                                           std::string::npos,
             dump(allow));
    QCOMPARE(wait_exit(pid), 0);

    // First allowed and served; of the two at once, the denied one was refused by the broker
    // and never reached the server, the allowed one was served.
    const std::string text = slurp(out);
    const auto parts = QString::fromStdString(text).split("---");
    QVERIFY2(parts.size() == 3, text.c_str());
    QVERIFY2(parts[0].contains(QString::fromStdString(kBody)), text.c_str());
    QVERIFY2((parts[1].contains("403") && parts[2].contains(QString::fromStdString(kBody))) ||
                 (parts[2].contains("403") && parts[1].contains(QString::fromStdString(kBody))),
             text.c_str());
    auto seen = server.seen();
    std::sort(seen.begin(), seen.end());
    QVERIFY2(seen.size() == 2 && seen[0] == "GET /first HTTP/1.1" &&
                 (seen[1] == "GET /second HTTP/1.1" || seen[1] == "GET /third HTTP/1.1"),
             text.c_str());
    const std::string events = slurp(only_session_dir() + "/events.jsonl");
    QVERIFY2(events.find("denied by the user") != std::string::npos && events.find("allowed once") != std::string::npos,
             events.c_str());

    // The session is over: nothing is pending, and an answer says so.
    auto late = cli({"ask", id, "deny"});
    QVERIFY2(late.exit_code == 2 && late.err == "paddock: session " + id + " is not running (see 'paddock sessions')\n",
             dump(late));
    auto after = cli({"sessions"});
    QVERIFY2(after.out.find("? ask") == std::string::npos, dump(after));
  }

  void in_the_landlock_tier_every_connection_of_the_agent_reaches_the_broker_and_nothing_else_data() { add_uid_rows(); }
  void in_the_landlock_tier_every_connection_of_the_agent_reaches_the_broker_and_nothing_else() {
    // As an attacker in the tier would: the agent's sockets are the host's, so it ignores the
    // proxy and connects straight to a loopback server, over IPv6, to an address elsewhere,
    // without blocking; tries UDP, raw, Unix, SCTP and MPTCP sockets, a listener, and a send that
    // connects (MSG_FASTOPEN). Then a process outside the sandbox tries the broker's port.
    setup_row();
    landlock_ = true;
    LoopbackServer server(0, http_handler);
    QVERIFY2(server.error().empty(), server.error().c_str());
    put(h_.project + "/attack.py", R"PY(import errno, os, socket, sys, time
port = int(sys.argv[1])
def err(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
print("udp", err(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)))
print("raw", err(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)))
print("unix", err(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)))
print("sctp", err(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132)))
print("mptcp", err(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)))
print("bind", err(lambda: socket.socket().bind(("127.0.0.1", 0))))
print("listen", err(lambda: socket.socket().listen(1)))
print("fastopen", err(lambda: socket.socket().sendto(b"GET /fastopen HTTP/1.0\r\n\r\n", 0x20000000, ("127.0.0.1", port))))
for name, family, addr in [("direct4", socket.AF_INET, ("127.0.0.1", port)), ("direct6", socket.AF_INET6, ("::1", port)),
                           ("elsewhere", socket.AF_INET, ("192.0.2.1", 80))]:
    s = socket.socket(family)
    s.settimeout(10)
    s.connect(addr)
    s.sendall(b"GET /direct HTTP/1.0\r\n\r\n")
    print(name, s.recv(200).split(b"\r\n")[0].decode())
s = socket.socket()
s.setblocking(False)
try:
    s.connect(("127.0.0.1", port))
except BlockingIOError:
    pass
print("nonblocking", s.getblocking(), s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))
print("broker", s.getpeername()[1], flush=True)
while not os.path.exists("go"):
    time.sleep(0.1)
# The tier's stated loss: a process that hides itself from its own uid (non-dumpable) cannot
# connect, as an unprivileged helper cannot read its descriptor. It fails; it is never let through.
import ctypes
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
print("nondumpable", err(lambda: socket.create_connection(("127.0.0.1", port), timeout=10)), flush=True)
)PY");
    h_.chown_all();
    const std::string out = h_.root + "/run.out";
    pid_t pid = spawn_paddock({"run", "--allow-tainted", "--net", "allowlist", "--allow-domain", "api.paddock.test", "--",
                               "/usr/bin/python3", "attack.py", std::to_string(server.port())},
                              "api.paddock.test=127.0.0.1", out);
    int broker_port = 0;
    QVERIFY2(eventually([&] {
      const std::string text = slurp(out);
      const auto at = text.find("broker ");
      if (at == std::string::npos) return false;
      broker_port = std::atoi(text.c_str() + at + 7);
      return broker_port > 0;
    }), slurp(out).c_str());
    // From outside: the broker's port is on the host's loopback, but it serves the helper's own
    // connections only. This one is closed before anything is read.
    const int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(static_cast<uint16_t>(broker_port));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QVERIFY(::connect(c, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
    timeval tv{10, 0};
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    write_all(c, "CONNECT api.paddock.test:" + std::to_string(server.port()) + " HTTP/1.1\r\nHost: api.paddock.test\r\n\r\n");
    char byte = 0;
    const ssize_t got = ::read(c, &byte, 1);
    ::close(c);
    QVERIFY2(got <= 0, "the broker answered a process outside the sandbox");
    put(h_.project + "/go", "");
    QCOMPARE(wait_exit(pid), 0);
    const std::string text = slurp(out);
    for (const char* line : {"udp ESOCKTNOSUPPORT", "unix EAFNOSUPPORT", "sctp EPROTONOSUPPORT", "mptcp EPROTONOSUPPORT",
                             "bind EACCES", "listen EACCES", "fastopen EACCES", "nonblocking False 0"})
      QVERIFY2(text.find(line) != std::string::npos, (std::string(line) + "\n" + text).c_str());
    // Root's helper reads every process's descriptors: the loss is an ordinary user's only.
    QFETCH(uint, uid);
    const std::string nondumpable = uid == 0 ? "nondumpable ok" : "nondumpable EACCES";
    QVERIFY2(text.find(nondumpable) != std::string::npos, (nondumpable + "\n" + text).c_str());
    QVERIFY2(text.find("raw E") != std::string::npos, text.c_str());
    // Each direct connection got the broker's answer (it speaks only the proxy protocols) and
    // never reached the server, whatever address it named.
    for (const char* name : {"direct4 ", "direct6 ", "elsewhere "})
      QVERIFY2(text.find(std::string(name) + "HTTP/1.1 501") != std::string::npos, text.c_str());
    QVERIFY2(server.seen().empty(), "a connection of the agent reached the server");
    const std::string events = slurp(only_session_dir() + "/events.jsonl");
    QVERIFY2(events.find("foreign_connection") != std::string::npos, events.c_str());
  }

  void git_ssh_with_net_off_is_refused_before_anything_runs_data() { add_uid_rows(); }
  void git_ssh_with_net_off_is_refused_before_anything_runs() {
    setup_row();
    auto r = paddock({"run", "--git-ssh", "--net", "off", "--", "true"}, "");
    QVERIFY2(r.exit_code == 125 && r.err.find("--git-ssh") != std::string::npos, dump(r));
  }
};

QTEST_GUILESS_MAIN(EgressSessionTest)
#include "egress_session_test.moc"
