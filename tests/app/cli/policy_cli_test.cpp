// explain, hash, lint, approve and the signing commands, black-box through the paddock binary.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/support/process_runner.h"

using paddock::test::run_process;
using paddock::test::RunOptions;

namespace {

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

struct World {
  QTemporaryDir tmp;
  std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
  std::string home = root + "/home", project = root + "/project";
  World() {
    std::filesystem::create_directories(home);
    std::filesystem::create_directories(project);
  }
  void write(const std::string& p, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  paddock::test::ProcessResult run(std::vector<std::string> args, const std::string& stdin_data = "") const {
    args.insert(args.begin(), paddock::test::paddock_bin());
    RunOptions o;
    o.cwd = project;
    o.env_override = {{"HOME", home}, {"PADDOCK_SYSTEM_DIR", root + "/etc"}};
    o.env_unset = {"XDG_CONFIG_HOME", "XDG_STATE_HOME", "SSH_AUTH_SOCK"};
    o.stdin_data = stdin_data;
    return run_process(args, o);
  }
};

}  // namespace

class PolicyCliTest : public QObject {
  Q_OBJECT
 private slots:
  void explain_canonical_hashes_to_paddock_hash() {
    World w;
    auto canon = w.run({"explain", "--canonical", "--agent", "codex"});
    QCOMPARE(canon.exit_code, 0);
    auto hash = w.run({"hash", "--agent", "codex"});
    QCOMPARE(hash.exit_code, 0);
    RunOptions so;
    so.stdin_data = canon.out;
    auto sum = run_process({"sha256sum"}, so);
    QCOMPARE("sha256:" + sum.out.substr(0, 64) + "\n", hash.out);
  }

  void explain_json_has_ir_hash_provenance_warnings_and_lint() {
    World w;
    auto r = w.run({"explain", "--json"});
    QCOMPARE(r.exit_code, 0);
    for (const char* k : {"\"ir\"", "\"ir_hash\"", "\"provenance\"", "\"warnings\"", "\"lint\""})
      QVERIFY2(r.out.find(k) != std::string::npos, k);
  }

  void explain_why_answers_with_the_deciding_rule() {
    World w;
    auto r = w.run({"explain", "--why", "/etc/shadow"});
    QCOMPARE(r.exit_code, 0);
    QVERIFY2(r.out.find("DENIED") != std::string::npos && r.out.find("builtin-profile") != std::string::npos, r.out.c_str());
    r = w.run({"explain", "--why", "api.openai.com", "--agent", "codex", "--json"});
    QVERIFY2(r.out.find("\"allowed\": true") != std::string::npos, r.out.c_str());
  }

  void a_bad_layer_is_one_line_with_file_line_column_and_exit_2() {
    World w;
    w.write(w.project + "/.paddock/policy.yaml", "version: 1\nfilesystem:\n  allow_raed: []\n");
    auto r = w.run({"explain"});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
    QVERIFY2(r.err.find(w.project + "/.paddock/policy.yaml:3:3: key 'filesystem.allow_raed'") != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());
  }

  void a_bad_flag_value_is_exit_2() {
    World w;
    QCOMPARE(w.run({"hash", "--net", "open"}).exit_code, 2);
    QCOMPARE(w.run({"hash", "--limits", "mem=4GB"}).exit_code, 2);
    QCOMPARE(w.run({"hash", "--profile", "nope"}).exit_code, 2);
  }

  void a_lockdown_refusal_is_one_line_naming_tier_and_key_with_exit_126() {
    World w;
    w.write(w.root + "/etc/policy.yaml", "version: 1\nsecurity: {immutable: true}\n");
    auto r = w.run({"explain", "--allow-read", "/srv"});
    QCOMPARE(r.exit_code, 126);
    QCOMPARE(count_lines(r.err), 1);
    QVERIFY2(r.err.find("tier cli-flags") != std::string::npos && r.err.find("--allow-read[0]") != std::string::npos, r.err.c_str());
  }

  void lint_strict_exits_1_on_any_finding_and_0_when_clean() {
    World w;
    auto clean = w.run({"lint", "--strict"});
    QCOMPARE(clean.exit_code, 0);
    auto r = w.run({"lint", "--strict", "--profile", "permissive"});
    QCOMPARE(r.exit_code, 1);
    QVERIFY(r.out.find("R2:") != std::string::npos);
    QCOMPARE(w.run({"lint", "--profile", "permissive"}).exit_code, 0);
  }

  void approve_shows_what_a_layer_adds_and_records_it() {
    World w;
    w.write(w.project + "/.paddock/policy.yaml", "version: 1\nnetwork: {allow_domains: [pypi.org]}\n");
    auto before = w.run({"explain"});
    QCOMPARE(before.exit_code, 0);
    QVERIFY(before.out.find("NOT APPROVED") != std::string::npos);
    auto a = w.run({"approve"});
    QCOMPARE(a.exit_code, 0);
    QVERIFY2(a.out.find("network.allow_domains: [\"pypi.org\"]") != std::string::npos, a.out.c_str());
    QVERIFY(std::filesystem::exists(w.home + "/.local/state/paddock/approvals.json"));
    auto after = w.run({"explain"});
    QVERIFY(after.out.find("NOT APPROVED") == std::string::npos);
    QVERIFY(after.out.find("approved") != std::string::npos);
    QVERIFY(w.run({"approve"}).out.find("nothing to approve") != std::string::npos);
  }

  void approve_marks_what_lint_calls_escape_equivalent() {
    World w;
    w.write(w.project + "/.paddock/policy.yaml", "version: 1\nunix_sockets: {allow: [/run/docker.sock]}\n");
    auto a = w.run({"approve"});
    QCOMPARE(a.exit_code, 0);
    QVERIFY2(a.out.find("ESCAPE-EQUIVALENT: unix socket /run/docker.sock") != std::string::npos, a.out.c_str());
  }

  void lint_and_plan_flag_credentials_in_the_projects_git_config_with_the_fix() {
    World w;
    w.write(w.project + "/.git/config", "[remote \"origin\"]\n\turl = https://u:hunter2-token@git.example.org/r.git\n");
    auto lint = w.run({"lint"});
    QCOMPARE(lint.exit_code, 0);
    QVERIFY2(lint.out.find("R6: .git/config:2: remote.origin.url carries credentials") != std::string::npos, lint.out.c_str());
    QVERIFY2(lint.out.find("git config remote.origin.url 'https://git.example.org/r.git'") != std::string::npos,
             lint.out.c_str());
    auto plan = w.run({"plan"});
    QVERIFY2(plan.err.find("paddock: warning: .git/config:2: remote.origin.url") != std::string::npos, plan.err.c_str());
    QVERIFY2((lint.out + plan.out + plan.err).find("hunter2") == std::string::npos, plan.err.c_str());
  }

  void keygen_sign_and_verify_signature_round_trip_and_detect_changes() {
    World w;
    QCOMPARE(w.run({"keygen"}).exit_code, 0);
    QVERIFY(std::filesystem::exists(w.home + "/.config/paddock/signing_key"));
    const auto perms = std::filesystem::status(w.home + "/.config/paddock/signing_key").permissions();
    QCOMPARE(perms & (std::filesystem::perms::group_all | std::filesystem::perms::others_all), std::filesystem::perms::none);
    w.write(w.project + "/team.yaml", "version: 1\n");
    QCOMPARE(w.run({"sign", "team.yaml"}).exit_code, 0);
    QVERIFY(std::filesystem::exists(w.project + "/team.yaml.sig"));
    QCOMPARE(w.run({"verify-signature", "team.yaml"}).exit_code, 0);
    w.write(w.project + "/team.yaml", "version: 1\n# changed\n");
    auto bad = w.run({"verify-signature", "team.yaml"});
    QCOMPARE(bad.exit_code, 126);
    QCOMPARE(count_lines(bad.err), 1);
    w.write(w.project + "/team.yaml.sig", "not hex\n");
    QCOMPARE(w.run({"verify-signature", "team.yaml"}).exit_code, 126);
    QCOMPARE(w.run({"keygen"}).exit_code, 2);  // never overwrites a key
  }

  // A file name that is not UTF-8 inside the project (an agent can plant one): explain, its
  // JSON, the canonical bytes and hash all work, and the canonical bytes still hash to `hash`.
  void a_project_file_whose_name_is_not_utf8_breaks_no_command() {
    World w;
    w.write(w.project + "/caf\xe9.pem", "SECRET\n");
    auto text = w.run({"explain"});
    QVERIFY2(text.exit_code == 0, text.err.c_str());
    // Shown escaped on a terminal (a byte that is not UTF-8 is \xNN), encoded in JSON.
    QVERIFY2(text.out.find(w.project + "/caf\\xe9.pem") != std::string::npos, text.out.c_str());
    auto j = w.run({"explain", "--json"});
    QVERIFY2(j.exit_code == 0, j.err.c_str());
    QVERIFY2(j.out.find("bytes:" + w.project + "/caf%E9.pem") != std::string::npos, j.out.c_str());
    auto canon = w.run({"explain", "--canonical"});
    QCOMPARE(canon.exit_code, 0);
    auto hash = w.run({"hash"});
    QCOMPARE(hash.exit_code, 0);
    RunOptions so;
    so.stdin_data = canon.out;
    auto sum = run_process({"sha256sum"}, so);
    QCOMPARE("sha256:" + sum.out.substr(0, 64) + "\n", hash.out);
    auto plan = w.run({"plan", "--json"});
    QVERIFY2(plan.exit_code == 0, plan.err.c_str());
    QVERIFY(w.run({"explain", "--why", w.project + "/caf\xe9.pem"}).out.find("DENIED") != std::string::npos);
    std::filesystem::remove(w.project + "/caf\xe9.pem");  // QTemporaryDir cannot name it to remove it
  }

  // A file name an agent chose can hold an ESC sequence (which would drive the user's terminal),
  // a newline (which would forge a line of Paddock's output) and a C1 control: explain, --why,
  // plan and lint show each escaped.
  void explain_plan_and_lint_show_control_characters_in_names_escaped() {
    World w;
    const std::string evil = "x\x1b[2J\nFORGED\xc2\x9b.env";
    w.write(w.project + "/" + evil, "SECRET\n");
    w.write(w.home + "/data/" + evil, "SECRET\n");
    const std::vector<std::vector<std::string>> commands = {{"explain"},
                                                            {"explain", "--why", w.project + "/" + evil},
                                                            {"plan", "--backend", "macos"},
                                                            {"lint", "--allow-read", w.home + "/data"}};
    for (const auto& args : commands) {
      auto r = w.run(args);
      const std::string all = r.out + r.err;
      QVERIFY2(r.exit_code == 0 || args[0] == "plan", (args[0] + "\n" + all).c_str());
      QVERIFY2(all.find('\x1b') == std::string::npos, (args[0] + "\n" + all).c_str());
      QVERIFY2(all.find("\nFORGED") == std::string::npos, (args[0] + "\n" + all).c_str());
      QVERIFY2(all.find("\xc2\x9b") == std::string::npos, (args[0] + "\n" + all).c_str());
      QVERIFY2(all.find("x\\x1b[2J\\nFORGED\\u009b.env") != std::string::npos, (args[0] + "\n" + all).c_str());
    }
    std::filesystem::remove(w.project + "/" + evil);
    std::filesystem::remove(w.home + "/data/" + evil);
  }

  // Every layer is bounded before YAML reads it: past 1 MiB, the error names the line where the
  // cap is reached; past the node budget (aliases counted each time they are used), the node.
  void a_layer_past_its_size_or_node_budget_is_one_line_with_file_line_and_exit_2() {
    World w;
    std::string big = "version: 1\n";
    while (big.size() < (std::size_t{1} << 20) + 4096) big += "# a comment that pads the layer past its cap\n";
    w.write(w.project + "/.paddock/policy.yaml", big);
    auto r = w.run({"explain"});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
    const auto line = 1 + std::count(big.begin(), big.begin() + (1 << 20), '\n');
    QVERIFY2(r.err.find("/.paddock/policy.yaml:" + std::to_string(line) + ":1: ") != std::string::npos &&
                 r.err.find("larger than 1 MiB") != std::string::npos,
             r.err.c_str());
    std::string bomb = "version: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
    const char* names[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 1; i < 6; ++i) {
      bomb += std::string(names[i]) + ": &" + names[i] + " [";
      for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*" + names[i - 1];
      bomb += "]\n";
    }
    w.write(w.project + "/.paddock/policy.yaml", bomb);
    auto b = w.run({"explain"});
    QCOMPARE(b.exit_code, 2);
    QCOMPARE(count_lines(b.err), 1);
    QVERIFY2(b.err.find("/.paddock/policy.yaml:") != std::string::npos && b.err.find("YAML nodes") != std::string::npos,
             b.err.c_str());
  }

  void a_layer_value_that_is_not_utf8_is_one_line_with_file_line_column_and_exit_2() {
    World w;
    w.write(w.project + "/.paddock/policy.yaml", "version: 1\nfilesystem:\n  deny: [\"caf\xe9.pem\"]\n");
    auto r = w.run({"explain"});
    QCOMPARE(r.exit_code, 2);
    QCOMPARE(count_lines(r.err), 1);
    QVERIFY2(r.err.find(w.project + "/.paddock/policy.yaml:3:10: key 'filesystem.deny[0]': is not valid UTF-8") !=
                 std::string::npos,
             r.err.c_str());
  }
};

QTEST_GUILESS_MAIN(PolicyCliTest)
#include "policy_cli_test.moc"
