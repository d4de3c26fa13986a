// Brokered credentials through the real CLI, helper and broker (docs/credentials.md), as root and
// as uid 65534: a key stored on the host (the 0600 file here: no secret service on this bus)
// reaches a TLS upstream on loopback (a throwaway CA and the PADDOCK_DEBUG_UPSTREAM seams, so
// the runs are tainted) while the sandbox holds only the placeholder. The sandbox searches every
// byte it can read for the key, its whole file view and every process's environment and
// command line, and must not find it; requests without the placeholder are refused; `git push`
// over HTTPS reaches a loopback git server with the token the sandbox never sees; the budget
// stops the next request; the session's report sums the credential's use, and nothing of it
// holds the key.
#include <QtTest>

#include <signal.h>

#include <QStandardPaths>

#include <filesystem>
#include <fstream>

#include "tests/app/cli/cli_home.h"
#include "tests/helpers/broker/tls_upstream.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock::broker::test;
using paddock::test::CliHome;

namespace {

constexpr const char* kKey = "sk-test-REAL-KEY-5f1d7c9a0b3e2468";
constexpr const char* kToken = "ghp_test_REAL_TOKEN_8a6c4e2f0d1b3957";

std::string newest_session(const CliHome& h) {
  std::string best;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(h.sessions_dir(), ec))
    if (e.path().filename().string() > best) best = e.path().filename().string();
  return best.empty() ? "" : h.sessions_dir() + "/" + best;
}

// Every file under `dir`, read whole: none may hold `needle`.
std::vector<std::string> files_holding(const std::string& dir, const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && paddock::test::slurp(it->path().string()).find(needle) != std::string::npos)
      out.push_back(it->path().string());
  return out;
}

}  // namespace

class HelperCredentialsTest : public QObject {
  Q_OBJECT

  // Stores the key as the uid under test, from standard input (never an argument).
  bool store(const CliHome& h, const std::string& name, const std::string& upstream, const std::string& value,
             std::string* out) {
    paddock::test::RunOptions o = h.opts;
    o.stdin_data = value + "\n";
    o.env_unset.push_back("DBUS_SESSION_BUS_ADDRESS");
    auto r = paddock::test::run_process({paddock::test::paddock_bin(), "credentials", "add", name, "--upstream", upstream}, o);
    *out = paddock::test::dump(r).toStdString();
    return r.exit_code == 0;
  }

 private slots:
  void the_sandbox_holds_only_the_placeholder_and_the_upstream_gets_the_key_data() { paddock::test::add_uid_rows(); }
  void the_sandbox_holds_only_the_placeholder_and_the_upstream_gets_the_key() {
    QFETCH(uint, uid);
    QVERIFY2(!QStandardPaths::findExecutable("curl").isEmpty(), "curl is not installed; run scripts/bootstrap");
    CliHome h;
    QVERIFY(h.create(uid, "credentials", {"DBUS_SESSION_BUS_ADDRESS"}));
    TestCa ca;
    QVERIFY2(ca.make(h.root, {"api.example.test"}), ca.error.c_str());
    TlsUpstream upstream;
    QVERIFY2(upstream.start(ca), upstream.error().c_str());
    h.chown_all();
    std::string out;
    QVERIFY2(store(h, "test-key", "api.example.test", kKey, &out), out.c_str());
    QVERIFY2(out.find("(0600;") != std::string::npos, out.c_str());
    const std::string policy = h.root + "/credential.yaml";
    paddock::test::put(policy,
                       "version: 1\n"
                       "credentials:\n"
                       "  test-key:\n"
                       "    upstream: api.example.test\n"
                       "    header: x-api-key\n"
                       "    scheme: raw\n"
                       "    env:\n"
                       "      TEST_BASE_URL: \"${endpoint}\"\n"
                       "      TEST_API_KEY: \"${placeholder}\"\n"
                       "    max_requests: 2\n");
    // The key reaches the sandbox's shell on standard input, into a variable it never exports,
    // and only grep's standard input (never an argument or a file) hands it on
    // (credential_probe.sh).
    const std::string script = h.project + "/probe.sh";
    paddock::test::put(script, paddock::test::slurp(paddock::test::source_dir() + "/tests/helpers/linux/credential_probe.sh"));
    QFile::setPermissions(QString::fromStdString(script), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                                 QFile::ReadOther | QFile::ExeOther);
    h.chown_all();
    paddock::test::RunOptions o = h.opts;
    o.env_override["PADDOCK_DEBUG_UPSTREAM"] = "api.example.test=127.0.0.1:" + std::to_string(upstream.port());
    o.env_override["PADDOCK_DEBUG_UPSTREAM_CA"] = ca.ca_pem;
    o.stdin_data = std::string(kKey) + "\n";
    o.timeout_ms = 600000;
    // --net off: the endpoint is a bound egress of its own (docs/credentials.md).
    // The view's roots, from the IR the session is launched with (the sandbox cannot list /).
    std::vector<std::string> argv = {paddock::test::paddock_bin(), "run", "--allow-tainted", "--net", "off", "--project",
                                     h.project, "--policy", policy, "--", script};
    auto explained = paddock::test::run_process({paddock::test::paddock_bin(), "explain", "--json", "--net", "off", "--project",
                                                 h.project, "--policy", policy},
                                                o);
    const auto ir = nlohmann::json::parse(explained.out, nullptr, false);
    QVERIFY2(!ir.is_discarded(), paddock::test::dump(explained).constData());
    for (const char* grants : {"read_roots", "write_roots"})
      for (const auto& root : ir["ir"]["fs"][grants]) argv.push_back(root.get<std::string>());
    auto r = paddock::test::run_process(argv, o);
    const std::string all = paddock::test::dump(r).toStdString();
    QVERIFY2(r.exit_code == 0, all.c_str());
    QVERIFY2(r.out.find("placeholder=paddock-placeholder-") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("base=http://127.0.0.1:3129") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("with_rc=0") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("without=403") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("other_host=403") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("budget=200") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("over_budget=403") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("searched") != std::string::npos, all.c_str());
    QVERIFY2(r.out.find("FOUND-IN-") == std::string::npos, all.c_str());
    // The search covered the view: the system's files (/usr alone holds tens of thousands).
    const auto counted = r.out.find("readable_files=");
    QVERIFY2(counted != std::string::npos && std::stol(r.out.substr(counted + 15)) > 10000, all.c_str());
    // The upstream got the key, twice (the budget's two requests), and never the placeholder.
    const auto keys = upstream.header_values("x-api-key");
    QCOMPARE(keys.size(), std::size_t{2});
    for (const auto& k : keys) QCOMPARE(QString::fromStdString(k), QString(kKey));
    // What the agent kept of the echo is scrubbed.
    const std::string echo = paddock::test::slurp(h.project + "/echo.json");
    QVERIFY2(echo.find("*****") != std::string::npos && echo.find(kKey) == std::string::npos, echo.c_str());
    // The session's records sum the use and never hold the key.
    const std::string session = newest_session(h);
    const std::string report = paddock::test::slurp(session + "/report.json");
    QVERIFY2(report.find("\"requests\": 2") != std::string::npos, report.c_str());
    QVERIFY2(report.find("\"refused\": 3") != std::string::npos, report.c_str());
    const std::string events = paddock::test::slurp(session + "/events.jsonl");
    QVERIFY2(events.find("request budget used (2 requests)") != std::string::npos, events.c_str());
    QVERIFY2(events.find("\"path\":\"/echo\"") != std::string::npos, events.c_str());
    for (const std::string& dir : {session, h.root + "/state", h.project})
      QVERIFY2(files_holding(dir, kKey).empty(), (dir + " holds the key").c_str());
    // The credential list says it was used in this session.
    auto listed = paddock::test::run_process({paddock::test::paddock_bin(), "credentials", "list", "--json"}, h.opts);
    QVERIFY2(listed.out.find(session.substr(session.rfind('/') + 1)) != std::string::npos, paddock::test::dump(listed).constData());
  }

  void git_pushes_over_https_with_a_token_the_sandbox_never_sees_data() { paddock::test::add_uid_rows(); }
  void git_pushes_over_https_with_a_token_the_sandbox_never_sees() {
    QFETCH(uint, uid);
    CliHome h;
    QVERIFY(h.create(uid, "credentials-git", {"DBUS_SESSION_BUS_ADDRESS"}));
    TestCa ca;
    QVERIFY2(ca.make(h.root, {"git.example.test"}), ca.error.c_str());
    // The server's repository, and a token file only the server reads.
    const std::string repos = h.root + "/server";
    std::filesystem::create_directories(repos);
    auto init = paddock::test::run_process({"git", "init", "-q", "--bare", "-b", "main", repos + "/repo.git"});
    QVERIFY2(init.exit_code == 0, paddock::test::dump(init).constData());
    paddock::test::run_process({"git", "-C", repos + "/repo.git", "config", "http.receivepack", "true"});
    paddock::test::put(h.root + "/token", kToken);
    const std::string record = h.root + "/auth.log";
    const std::string log = h.root + "/git-server.out";
    const pid_t server = paddock::test::spawn_process({"python3", paddock::test::source_dir() + "/tests/helpers/linux/git_https_server.py",
                                                       ca.cert_pem, ca.key_pem, repos, h.root + "/token", record},
                                                      log);
    int port = 0;
    QVERIFY(paddock::test::eventually([&] {
      std::ifstream f(log);
      return static_cast<bool>(f >> port) && port > 0;
    }));
    std::string out;
    h.chown_all();
    QVERIFY2(store(h, "git-token", "git.example.test", kToken, &out), out.c_str());
    const std::string policy = h.root + "/git.yaml";
    paddock::test::put(policy,
                       "version: 1\n"
                       "credentials:\n"
                       "  git-token:\n"
                       "    upstream: git.example.test\n"
                       "    header: authorization\n"
                       "    scheme: basic\n"
                       "    basic_user: x-access-token\n"
                       "    env:\n"
                       "      GIT_CONFIG_COUNT: \"2\"\n"
                       "      GIT_CONFIG_KEY_0: \"url.${endpoint}/.insteadOf\"\n"
                       "      GIT_CONFIG_VALUE_0: \"https://git.example.test/\"\n"
                       "      GIT_CONFIG_KEY_1: \"http.${endpoint}/.extraHeader\"\n"
                       "      GIT_CONFIG_VALUE_1: \"Authorization: Bearer ${placeholder}\"\n");
    const std::string script = h.project + "/push.sh";
    paddock::test::put(script, paddock::test::slurp(paddock::test::source_dir() + "/tests/helpers/linux/credential_git_push.sh"));
    QFile::setPermissions(QString::fromStdString(script), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                                 QFile::ReadOther | QFile::ExeOther);
    h.chown_all();
    paddock::test::RunOptions o = h.opts;
    o.env_override["PADDOCK_DEBUG_UPSTREAM"] = "git.example.test=127.0.0.1:" + std::to_string(port);
    o.env_override["PADDOCK_DEBUG_UPSTREAM_CA"] = ca.ca_pem;
    o.timeout_ms = 120000;
    auto r = paddock::test::run_process({paddock::test::paddock_bin(), "run", "--allow-tainted", "--project", h.project,
                                         "--policy", policy, "--", script},
                                        o);
    ::kill(server, SIGKILL);
    paddock::test::wait_exit(server);
    const std::string all = paddock::test::dump(r).toStdString() + "\n--- server ---\n" + paddock::test::slurp(log);
    QVERIFY2(r.exit_code == 0, all.c_str());
    QVERIFY2(r.out.find("pushed\n0\n") != std::string::npos, all.c_str());
    auto logged = paddock::test::run_process({"git", "-c", "safe.directory=*", "-C", repos + "/repo.git", "log", "--format=%s", "main"});
    QVERIFY2(logged.out.find("pushed through the broker") != std::string::npos, paddock::test::dump(logged).constData());
    // Every request the server saw carried the token as Basic x-access-token:TOKEN.
    const std::string auths = paddock::test::slurp(record);
    QVERIFY2(!auths.empty() && auths.find("Bearer") == std::string::npos && auths.find("Basic ") != std::string::npos,
             auths.c_str());
    for (const std::string& dir : {h.project, newest_session(h)})
      QVERIFY2(files_holding(dir, kToken).empty(), (dir + " holds the token").c_str());
  }
};

QTEST_GUILESS_MAIN(HelperCredentialsTest)
#include "helper_credentials_test.moc"
