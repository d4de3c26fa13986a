// Merge rules (docs/policy-layers.md, "Merging"): unions, monotone deny, strictest limits,
// single-source net mode, environment allowlist, taint.
#include <QtTest>

#include <filesystem>

#include "engine/engine.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::contains;
using paddock::test::EngineEnv;
using paddock::test::has_deny;
using paddock::test::eval_err;
using paddock::test::eval_ok;

class EvaluateMergeTest : public QObject {
  Q_OBJECT
 private slots:
  void a_deny_beats_every_allow_and_no_tier_removes_it() {
    EngineEnv env;
    env.write(env.project + "/secret/x", "");
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/secret]}\n");
    env.write(env.root + "/p.yaml", "version: 1\nfilesystem: {allow_read: [$PROJECT/secret], allow_write: [$PROJECT/secret/x]}\n");
    auto in = env.inputs();
    in.policy_files = {env.root + "/p.yaml"};
    in.allow_writes = {env.project + "/secret"};
    const auto e = eval_ok(in);
    QVERIFY(has_deny(e.ir, env.project + "/secret"));
    const auto w = why(e, env.project + "/secret/x");
    QVERIFY(!w.allowed);
    QCOMPARE(w.tier, std::string("repository"));
  }

  void limits_take_the_strictest_value_across_tiers_flags_and_timeout() {
    EngineEnv env;
    env.user("version: 1\nlimits: {memory: 2GiB, processes: 100}\n");
    env.repo("version: 1\nlimits: {memory: 64GiB, processes: 50, wall_time: 2h}\n");
    auto in = env.inputs();
    in.limits = "mem=3GiB,procs=70,cpu=10m";
    in.timeout_secs = 600;
    const auto e = eval_ok(in);
    QCOMPARE(*e.ir.resources.memory_bytes, std::int64_t(2) << 30);
    QCOMPARE(*e.ir.resources.processes, std::int64_t(50));
    QCOMPARE(*e.ir.resources.cpu_seconds, std::int64_t(600));
    QCOMPARE(*e.ir.resources.wall_time_secs, std::int64_t(600));
    QCOMPARE(*e.ir.resources.open_files, std::int64_t(8192));  // from the default profile
  }

  void a_bad_limits_flag_is_bad_input() {
    EngineEnv env;
    auto in = env.inputs();
    in.limits = "mem=4GB";
    QCOMPARE(eval_err(in).code, ErrorCode::kBadInput);
  }

  void net_mode_has_one_source_cli_over_agent_over_user_over_system() {
    EngineEnv env;
    env.system("version: 1\nnetwork: {mode: ask}\n");
    auto in = env.inputs();
    QCOMPARE(eval_ok(in).ir.egress.mode, NetMode::kAsk);
    env.user("version: 1\nnetwork: {mode: strict}\n");
    QCOMPARE(eval_ok(in).ir.egress.mode, NetMode::kStrict);
    in.agent = "codex";
    QCOMPARE(eval_ok(in).ir.egress.mode, NetMode::kAllowlist);
    in.net = NetMode::kOff;
    QCOMPARE(eval_ok(in).ir.egress.mode, NetMode::kOff);
    in.net = NetMode::kAsk;
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.egress.mode, NetMode::kAsk);
    QCOMPARE(e.provenance["egress.mode"][0]["tier"].get<std::string>(), std::string("cli-flags"));
  }

  void a_layer_may_only_force_the_network_off() {
    EngineEnv env;
    env.repo("version: 1\nnetwork: {mode: \"off\"}\n");
    auto in = env.inputs();
    in.net = NetMode::kAllowlist;
    QCOMPARE(eval_ok(in).ir.egress.mode, NetMode::kOff);
    env.repo("version: 1\nnetwork: {mode: allowlist}\n");
    const auto err = eval_err(in);
    QCOMPARE(err.code, ErrorCode::kBadInput);
    QVERIFY2(err.message.find("policy.yaml:2:17: key 'network.mode'") != std::string::npos, err.message.c_str());
  }

  void domains_union_lowercase_and_ip_literals_are_refused() {
    EngineEnv env;
    env.repo("version: 1\nnetwork: {allow_domains: [GitHub.com., \"*.npmjs.org\"]}\n");
    auto in = env.inputs();
    in.allow_domains = {"pypi.org", "github.com:22"};
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.egress.domains, (std::vector<std::string>{"*.npmjs.org", "github.com", "pypi.org"}));
    QCOMPARE(e.ir.egress.strict_ports.at("github.com"), std::vector<int>{22});
    env.repo("version: 1\nnetwork: {allow_domains: [ok.example.com, 10.0.0.1]}\n");
    auto err = eval_err(env.inputs());
    QVERIFY2(err.message.find("policy.yaml:2:43: key 'network.allow_domains[1]'") != std::string::npos, err.message.c_str());
    QVERIFY(err.message.find("IP literal") != std::string::npos);
    for (const char* bad : {"[::1]", "*", "*.com", "a.*.b.com", "0x7f.1"}) {
      in.allow_domains = {bad};
      QVERIFY2(!evaluate(in).ok(), bad);
    }
  }

  void a_network_preset_adds_the_domains_its_list_entry_names_with_the_layers_origin() {
    EngineEnv env;
    env.repo("version: 1\nnetwork: {presets: [pypi, go]}\n");
    const auto e = eval_ok(env.inputs());
    QCOMPARE(e.ir.egress.domains,
             (std::vector<std::string>{"files.pythonhosted.org", "proxy.golang.org", "pypi.org", "sum.golang.org"}));
    const auto why = e.provenance.find("egress.domains:pypi.org");
    QVERIFY2(why != e.provenance.end() && why->dump().find("network.presets[0]") != std::string::npos,
             e.provenance.dump().c_str());
  }

  void strict_mode_warns_about_domains_without_ports() {
    EngineEnv env;
    auto in = env.inputs();
    in.net = NetMode::kStrict;
    in.allow_domains = {"a.example.com", "b.example.com:443"};
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.warnings.size(), size_t(1));
    QVERIFY2(e.ir.warnings[0].find("a.example.com has no strict_ports") != std::string::npos, e.ir.warnings[0].c_str());
    QVERIFY(!why(e, "a.example.com").allowed);
    QVERIFY(why(e, "b.example.com:443").allowed);
    QVERIFY(!why(e, "b.example.com:80").allowed);
  }

  void cidr_stays_separate_from_domains() {
    EngineEnv env;
    env.repo("version: 1\nnetwork: {allow_cidr: [10.0.0.0/8, \"fd00::/8\"]}\n");
    const auto e = eval_ok(env.inputs());
    QCOMPARE(e.ir.egress.cidr, (std::vector<std::string>{"10.0.0.0/8", "fd00::/8"}));
    QVERIFY(e.ir.egress.domains.empty());
    env.repo("version: 1\nnetwork: {allow_cidr: [10.0.0.0/33]}\n");
    QVERIFY(!evaluate(env.inputs()).ok());
  }

  void environment_is_an_allowlist_and_hard_deny_beats_pass_through() {
    EngineEnv env;
    env.user("version: 1\nenvironment: {pass_through: [\"MY_*\", GITHUB_TOKEN, aws_profile, \"bad-name\", \"*\", \"A*B\"], deny: [MY_HIDDEN]}\nsecrets: {brokered_env: [MY_BROKERED]}\n");
    auto in = env.inputs();
    for (const char* k : {"MY_VAR", "MY_HIDDEN", "MY_BROKERED", "MY_SECRET_THING", "GITHUB_TOKEN", "aws_profile", "OTHER", "my_api_token"})
      in.environment[k] = "v";
    in.environment["PATH"] = "/usr/bin::.:bin:/usr/bin:/bin/";
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.env.passed_names, (std::vector<std::string>{"LANG", "MY_VAR"}));
    QCOMPARE(e.ir.env.set.at("PATH"), std::string("/usr/bin:/bin"));
    QCOMPARE(e.ir.env.set.at("HOME"), env.home);
    QCOMPARE(e.ir.env.set.at("TMPDIR"), std::string("/tmp"));
    QVERIFY(contains(e.ir.secrets.brokered_env, "MY_BROKERED"));
    int dropped = 0;
    for (const auto& w : e.ir.warnings) dropped += w.find("dropped from environment.pass_through") != std::string::npos;
    QCOMPARE(dropped, 3);
    QVERIFY(!contains(e.ir.env.pass_through, "*"));
    QCOMPARE(why(e, "GITHUB_TOKEN").rule, std::string("hard-deny *TOKEN*"));
    QCOMPARE(why(e, "aws_profile").rule, std::string("hard-deny AWS_*"));
    QVERIFY(!why(e, "MY_HIDDEN").allowed);
    QVERIFY(why(e, "MY_VAR").allowed);
  }

  void the_agents_own_key_passes_only_when_the_user_opted_in() {
    EngineEnv env;
    auto in = env.inputs();
    in.agent = "claude-code";
    in.environment["ANTHROPIC_API_KEY"] = "k";
    in.environment["ANTHROPIC_OTHER"] = "k";
    QVERIFY(!contains(eval_ok(in).ir.env.passed_names, "ANTHROPIC_API_KEY"));
    env.user("version: 1\nenvironment: {agent_credentials: true}\n");
    const auto e = eval_ok(in);
    QVERIFY(contains(e.ir.env.passed_names, "ANTHROPIC_API_KEY"));
    QVERIFY(!contains(e.ir.env.passed_names, "ANTHROPIC_OTHER"));
    env.repo("version: 1\nenvironment: {agent_credentials: true}\n");
    const auto err = eval_err(in);
    QCOMPARE(err.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(err.message.find("key 'environment.agent_credentials'") != std::string::npos, err.message.c_str());
  }

  void boundary_weakening_switches_taint_the_ir() {
    EngineEnv env;
    auto in = env.inputs();
    in.environment["PADDOCK_FORCE_TIER"] = "fs-only";
    in.environment["PADDOCK_DEBUG_NO_SECCOMP"] = "1";
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.taint.size(), size_t(3));
    QVERIFY(e.ir.taint[0].find("PADDOCK_DEBUG_NO_SECCOMP") == 0);
    QVERIFY(e.ir.taint[1].find("PADDOCK_FORCE_TIER") == 0);
    QVERIFY(e.ir.taint[2].find("PADDOCK_SYSTEM_DIR") == 0);
    in.environment.erase("PADDOCK_SYSTEM_DIR");
    in.environment.erase("PADDOCK_FORCE_TIER");
    in.environment.erase("PADDOCK_DEBUG_NO_SECCOMP");
    QVERIFY(eval_ok(in).ir.taint.empty());
  }

  void the_resolver_seam_is_frozen_into_the_ir_and_taints_it() {
    EngineEnv env;
    auto in = env.inputs();
    in.environment.erase("PADDOCK_SYSTEM_DIR");
    in.environment["PADDOCK_DEBUG_RESOLVE"] = "Api.Example.Test.=127.0.0.1,api.example.test=::1,b.example.test=127.0.0.2";
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.egress.debug_resolve.size(), size_t(2));
    QCOMPARE(e.ir.egress.debug_resolve.at("api.example.test"), (std::vector<std::string>{"127.0.0.1", "::1"}));
    QCOMPARE(e.ir.egress.debug_resolve.at("b.example.test"), (std::vector<std::string>{"127.0.0.2"}));
    QCOMPARE(e.ir.taint.size(), size_t(1));
    QVERIFY2(e.ir.taint[0].find("PADDOCK_DEBUG_RESOLVE: test seam") == 0, e.ir.taint[0].c_str());
    // The table is part of the IR: it round-trips through the strict reader and changes the hash.
    auto back = ir_from_json(to_json(e.ir));
    QVERIFY(back.ok() && back->egress.debug_resolve == e.ir.egress.debug_resolve);
    in.environment.erase("PADDOCK_DEBUG_RESOLVE");
    const auto clean = eval_ok(in);
    QVERIFY(clean.ir.egress.debug_resolve.empty() && clean.ir.taint.empty() && clean.ir_hash != e.ir_hash);
    // Loopback only, exact names only, well-formed entries only: anything else is an error.
    for (const char* bad : {"api.example.test=10.0.0.1", "api.example.test=8.8.8.8", "api.example.test=127.0.0.01",
                            "api.example.test=::2", "*.example.test=127.0.0.1", "api.example.test", "127.0.0.1=127.0.0.1",
                            "api.example.test=127.0.0.1,", "localhost=127.0.0.1"}) {
      in.environment["PADDOCK_DEBUG_RESOLVE"] = bad;
      QCOMPARE(eval_err(in).code, ErrorCode::kBadInput);
    }
  }

  void unix_sockets_are_never_reachable_unless_named() {
    EngineEnv env;
    env.write(env.project + "/agent.sock", "");
    auto in = env.inputs();
    in.environment["SSH_AUTH_SOCK"] = env.project + "/agent.sock";
    in.environment["XDG_RUNTIME_DIR"] = env.project + "/run";
    auto e = eval_ok(in);
    QVERIFY(has_deny(e.ir, env.project + "/agent.sock"));
    QVERIFY(has_deny(e.ir, env.project + "/run/bus"));
    QVERIFY(!why(e, env.project + "/agent.sock").allowed);
    for (const auto& f : e.lint) QVERIFY2(f.rule != "ESC" || f.message.find("agent.sock") == std::string::npos, f.message.c_str());
    env.write(env.root + "/p.yaml", "version: 1\nunix_sockets: {allow: [$PROJECT/agent.sock]}\n");
    in.policy_files = {env.root + "/p.yaml"};
    e = eval_ok(in);
    QVERIFY(!has_deny(e.ir, env.project + "/agent.sock"));
    QVERIFY(contains(e.ir.egress.unix_socket_files, env.project + "/agent.sock"));
    bool esc = false;
    for (const auto& f : e.lint) esc = esc || (f.rule == "ESC" && f.message.find("agent.sock") != std::string::npos);
    QVERIFY(esc);
  }

  void an_absent_grant_is_reported_not_silently_dropped() {
    EngineEnv env;
    auto in = env.inputs();
    in.allow_reads = {env.root + "/does-not-exist"};
    const auto e = eval_ok(in);
    QVERIFY(!contains(e.ir.fs.read_roots, env.root + "/does-not-exist"));
    QCOMPARE(e.ir.warnings.size(), size_t(1));
    QVERIFY(e.ir.warnings[0].find("does not exist; not granted") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(EvaluateMergeTest)
#include "evaluate_merge_test.moc"
