// Tiers, conditions, resolution and secret masking through evaluate().
#include <QtTest>

#include <filesystem>

#include "engine/engine.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::contains;
using paddock::test::EngineEnv;
using paddock::test::has_deny;
using paddock::test::eval_err;
using paddock::test::eval_ok;

class EvaluateTiersTest : public QObject {
  Q_OBJECT
 private slots:
  void the_default_profile_with_an_agent_gives_project_write_system_read_and_the_agents_domains() {
    EngineEnv env;
    std::filesystem::create_directories(env.home + "/.claude");
    auto in = env.inputs();
    in.agent = "claude-code";
    const auto e = eval_ok(in);
    QVERIFY(contains(e.ir.fs.write_roots, env.project));
    QVERIFY(contains(e.ir.fs.write_roots, env.home + "/.claude"));
    QVERIFY(contains(e.ir.fs.read_roots, "/usr"));
    QVERIFY(contains(e.ir.fs.read_roots, "/etc"));
    for (const char* p : {"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/root"}) QVERIFY2(has_deny(e.ir, p), p);
    QVERIFY(has_deny(e.ir, env.home + "/.ssh"));
    // The user's login is never shown to the agent in its own state (docs/agents.md).
    QCOMPARE(e.ir.fs.agent_state.size(), std::size_t(1));
    QCOMPARE(e.ir.fs.agent_state[0].path, env.home + "/.claude");
    QVERIFY(contains(e.ir.fs.agent_state[0].hidden, env.home + "/.claude/.credentials.json"));
    QCOMPARE(e.ir.egress.mode, NetMode::kAllowlist);
    QVERIFY(contains(e.ir.egress.domains, "api.anthropic.com"));
    QCOMPARE(e.ir.meta.agent_dir, env.home + "/.claude");
    QVERIFY(e.ir.fs.tmp_isolated);
    QCOMPARE(e.ir_hash, ir_hash(e.ir));
  }

  void each_agent_preset_allowlists_its_own_api() {
    EngineEnv env;
    const std::pair<const char*, std::vector<std::string>> cases[] = {
        {"codex", {"api.openai.com", "chatgpt.com"}},
        {"gemini-cli", {"generativelanguage.googleapis.com"}},
        {"aider", {"api.openai.com"}},
        {"opencode", {"api.anthropic.com"}},
        {"copilot", {"api.githubcopilot.com"}},
        {"custom", {}}};
    for (const auto& [agent, domains] : cases) {
      auto in = env.inputs();
      in.agent = agent;
      const auto e = eval_ok(in);
      for (const auto& d : domains) QVERIFY2(contains(e.ir.egress.domains, d), (std::string(agent) + " " + d).c_str());
      QVERIFY2(!e.ir.meta.agent_dir.empty(), agent);
      if (domains.empty()) QCOMPARE(e.ir.egress.mode, NetMode::kOff);
    }
  }

  void a_built_in_deny_that_contains_the_users_own_home_is_not_applied_and_says_so() {
    EngineEnv env;
    auto in = env.inputs();
    in.environment["HOME"] = "/root";  // running as root: the profile's /root deny is the home
    in.agent = "claude-code";
    auto e = eval_ok(in);
    QVERIFY(!has_deny(e.ir, "/root"));
    bool warned = false;
    for (const auto& w : e.ir.warnings) warned = warned || w.find("built-in deny of /root is not applied") != std::string::npos;
    QVERIFY(warned);
    // A user-written deny of the home still holds: the exception is only for shipped tiers.
    env.write(env.root + "/p.yaml", "version: 1\nfilesystem: {deny: [\"$HOME\"]}\n");
    in.policy_files = {env.root + "/p.yaml"};
    QVERIFY(has_deny(eval_ok(in).ir, "/root"));
  }

  void a_missing_agent_data_directory_is_reported_not_granted() {
    EngineEnv env;
    auto in = env.inputs();
    in.agent = "codex";
    const auto e = eval_ok(in);
    QVERIFY(!contains(e.ir.fs.write_roots, env.home + "/.codex"));
    QCOMPARE(e.ir.warnings.size(), size_t(1));
    QVERIFY2(e.ir.warnings[0].find("agent data directory " + env.home + "/.codex") == 0, e.ir.warnings[0].c_str());
  }

  void every_tier_is_read_from_its_place_in_order() {
    EngineEnv env;
    env.system("version: 1\nfilesystem: {deny: [/opt/sys-deny]}\n");
    env.write(env.root + "/xdg/paddock/policy.yaml", "version: 1\nfilesystem: {deny: [/opt/user-deny]}\n");
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/repo-deny]}\n");
    env.write(env.project + "/.paddock/policy.d/20-b.yaml", "version: 1\nfilesystem: {deny: [$PROJECT/frag-b]}\n");
    env.write(env.project + "/.paddock/policy.d/10-a.yaml", "version: 1\nfilesystem: {deny: [$PROJECT/frag-a]}\n");
    env.write(env.project + "/.paddock/policy.d/ignored.txt", "not yaml");
    env.write(env.project + "/.paddock/local.yaml", "version: 1\nfilesystem: {deny: [$PROJECT/local-deny]}\n");
    env.write(env.root + "/extra.yaml", "version: 1\nfilesystem: {deny: [$PROJECT/cli-deny]}\n");
    auto in = env.inputs();
    in.environment["XDG_CONFIG_HOME"] = env.root + "/xdg";
    in.policy_files = {env.root + "/extra.yaml"};
    in.allow_reads = {env.root + "/extra.yaml"};
    const auto e = eval_ok(in);
    std::vector<std::string> tiers, files;
    for (const auto& l : e.ir.meta.source_layers) { tiers.push_back(l.tier); files.push_back(l.file); }
    QCOMPARE(tiers, (std::vector<std::string>{"system-global", "user-global", "builtin-profile", "preset", "repository",
                                              "repository-fragment", "repository-fragment", "local-override",
                                              "cli-explicit-file", "cli-flags"}));
    QCOMPARE(files[5], env.project + "/.paddock/policy.d/10-a.yaml");
    QCOMPARE(files[6], env.project + "/.paddock/policy.d/20-b.yaml");
    for (const char* d : {"/opt/sys-deny", "/opt/user-deny"}) QVERIFY(has_deny(e.ir, d));
    for (const char* d : {"/repo-deny", "/frag-a", "/frag-b", "/local-deny", "/cli-deny"}) QVERIFY(has_deny(e.ir, env.project + d));
    QVERIFY(contains(e.ir.fs.read_roots, env.root + "/extra.yaml"));
    QVERIFY(e.ir.meta.source_layers[0].sha256.rfind("sha256:", 0) == 0);
    // The tier stack for the GUI lists every candidate, existing or not.
    QVERIFY(e.layers.size() >= 10);
    // The files the app opens, watches and names for a tier are the ones read here.
    QCOMPARE(files[1], tier_file(kTierUser, env.project, env.root + "/xdg/paddock"));
    QCOMPARE(files[4], tier_file(kTierRepo, env.project, {}));
    QCOMPARE(files[7], tier_file(kTierLocal, env.project, {}));
    QCOMPARE(std::filesystem::path(files[5]).parent_path().string(), fragments_dir(env.project));
    QCOMPARE(tier_file(kTierProfile, env.project, env.root), std::string());
  }

  void a_symlinked_policy_file_is_an_error() {
    EngineEnv env;
    env.write(env.root + "/real.yaml", "version: 1\n");
    std::filesystem::create_directories(env.project + "/.paddock");
    std::filesystem::create_symlink(env.root + "/real.yaml", env.project + "/.paddock/policy.yaml");
    auto r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kBadInput);
    QVERIFY2(r.error().message.find("symlink") != std::string::npos, r.error().message.c_str());
  }

  void unknown_profile_preset_or_agent_names_the_allowed_values() {
    EngineEnv env;
    auto in = env.inputs();
    in.profile = "lax";
    auto r = evaluate(in);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("default, strict, audit, permissive") != std::string::npos, r.error().message.c_str());
  }

  void agent_without_an_agent_is_an_error() {
    EngineEnv env;
    env.repo("version: 1\nfilesystem: {allow_read: [$AGENT/x]}\n");
    auto r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("$AGENT is used but no agent is selected") != std::string::npos, r.error().message.c_str());
    QVERIFY(r.error().message.find(".paddock/policy.yaml:2:") != std::string::npos);
  }

  // The branch comes from .git/HEAD, read without git. The agent writes that file, so the
  // condition decides only the layer's grants: its deny holds on any branch (docs/policy-layers.md,
  // "Conditions").
  void the_branch_condition_reads_git_head_without_git_and_never_lifts_a_restriction() {
    EngineEnv env;
    env.write(env.root + "/shared/notes.txt", "");
    env.write(env.project + "/.git/HEAD", "ref: refs/heads/feature\n");
    const std::string layer = "version: 1\nwhen: {branch: main}\nfilesystem: {allow_read: [" + env.root +
                              "/shared], deny: [$PROJECT/only-on-main]}\n";
    env.repo(layer);
    auto e = eval_ok(env.inputs());
    QVERIFY(has_deny(e.ir, env.project + "/only-on-main"));
    QVERIFY(!contains(e.ir.fs.read_roots, env.root + "/shared"));
    bool said = false;
    for (const auto& l : e.layers)
      if (l.tier == "repository")
        said = !l.applies && l.condition.find("current feature") != std::string::npos &&
               l.condition.find("restrictions apply all the same") != std::string::npos;
    QVERIFY(said);
    env.write(env.project + "/.git/HEAD", "ref: refs/heads/main\n");
    e = eval_ok(env.inputs());
    QVERIFY(has_deny(e.ir, env.project + "/only-on-main"));
    QVERIFY(contains(e.ir.fs.read_roots, env.root + "/shared"));
  }

  void file_exists_refuses_symlink_components_and_paths_outside_the_project() {
    EngineEnv env;
    env.write(env.root + "/elsewhere/Cargo.toml", "");
    env.write(env.root + "/cache/x", "");
    std::filesystem::create_directory_symlink(env.root + "/elsewhere", env.project + "/link");
    env.repo("version: 1\nwhen: {file_exists: link/Cargo.toml}\nfilesystem: {allow_read: [" + env.root + "/cache]}\n");
    auto e = eval_ok(env.inputs());
    QVERIFY(!contains(e.ir.fs.read_roots, env.root + "/cache"));
    env.write(env.project + "/link2/Cargo.toml", "");
    env.repo("version: 1\nwhen: {file_exists: link2/Cargo.toml}\nfilesystem: {allow_read: [" + env.root + "/cache]}\n");
    e = eval_ok(env.inputs());
    QVERIFY(contains(e.ir.fs.read_roots, env.root + "/cache"));
    env.repo("version: 1\nwhen: {file_exists: ../home}\n");
    QVERIFY(!evaluate(env.inputs()).ok());
  }

  void project_contains_is_bounded_by_its_budget() {
    EngineEnv env;
    env.write(env.project + "/infra/main.tf", "");
    env.repo("version: 1\nwhen: {project_contains: \"*.tf\"}\nfilesystem: {deny: [$PROJECT/x]}\n");
    QVERIFY(has_deny(eval_ok(env.inputs()).ir, env.project + "/x"));
    env.repo("version: 1\nwhen: {project_contains: \"*.nothing\"}\nfilesystem: {deny: [$PROJECT/x]}\n");
    for (int i = 0; i < 4100; ++i) env.write(env.project + "/many/f" + std::to_string(i), "");
    auto r = evaluate(env.inputs());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::kRefused);
    QVERIFY2(r.error().message.find("budget") != std::string::npos, r.error().message.c_str());
  }

  void os_and_agent_is_conditions_select_layers() {
    EngineEnv env;
    env.write(env.project + "/.paddock/policy.d/a.yaml", "version: 1\nwhen: {os: macos}\nfilesystem: {deny: [$PROJECT/mac]}\n");
    env.write(env.project + "/.paddock/policy.d/b.yaml", "version: 1\nwhen: {agent_is: codex}\nfilesystem: {deny: [$PROJECT/codex]}\n");
    auto in = env.inputs();
    in.agent = "codex";
    auto e = eval_ok(in);
    QVERIFY(!has_deny(e.ir, env.project + "/mac"));
    QVERIFY(has_deny(e.ir, env.project + "/codex"));
    in.os = "macos";
    in.agent = "aider";
    e = eval_ok(in);
    QVERIFY(has_deny(e.ir, env.project + "/mac"));
    QVERIFY(!has_deny(e.ir, env.project + "/codex"));
  }

  void secret_shaped_files_are_masked_case_insensitively_anywhere_in_the_project() {
    EngineEnv env;
    for (const char* f : {".env", "a/.ENV.local", "a/b/server.PEM", "k.key", "c.P12", "d.pfx", "e.KDBX", "ok.txt", "envy"})
      env.write(env.project + "/" + f, "s");
    for (const char* profile : {"default", "strict", "audit", "permissive"}) {
      auto in = env.inputs();
      in.profile = profile;
      const auto e = eval_ok(in);
      for (const char* f : {".env", "a/.ENV.local", "a/b/server.PEM", "k.key", "c.P12", "d.pfx", "e.KDBX"})
        QVERIFY2(has_deny(e.ir, env.project + "/" + f), (std::string(profile) + " " + f).c_str());
      QVERIFY(!has_deny(e.ir, env.project + "/ok.txt"));
      QVERIFY(!has_deny(e.ir, env.project + "/envy"));
    }
  }

  void a_hard_link_to_a_masked_file_is_masked_too() {
    EngineEnv env;
    env.write(env.project + "/id.pem", "secret");
    std::filesystem::create_hard_link(env.project + "/id.pem", env.project + "/innocent.txt");
    const auto e = eval_ok(env.inputs());
    QVERIFY(has_deny(e.ir, env.project + "/innocent.txt"));
    for (const auto& d : e.ir.fs.deny)
      if (d.path == env.project + "/innocent.txt") QCOMPARE(d.kind, PathKind::kFile);
  }

  void deny_presets_mask_the_tools_credential_stores() {
    EngineEnv env;
    std::filesystem::create_directories(env.home + "/.ssh");
    env.user("version: 1\nfilesystem: {allow_read: [\"~\"], deny_preset: [kube]}\n");
    const auto e = eval_ok(env.inputs());
    for (const char* d : {"/.ssh", "/.aws", "/.config/gcloud", "/.azure", "/.kube", "/.docker", "/.gnupg"})
      QVERIFY2(has_deny(e.ir, env.home + d), d);
    for (const auto& d : e.ir.fs.deny)
      if (d.path == env.home + "/.ssh") QCOMPARE(d.kind, PathKind::kDir);
  }

  void the_overlay_replaces_the_file_bytes_for_live_preview() {
    EngineEnv env;
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/on-disk]}\n");
    auto in = env.inputs();
    in.overlay[env.project + "/.paddock/policy.yaml"] = "version: 1\nfilesystem: {deny: [$PROJECT/in-editor]}\n";
    const auto e = eval_ok(in);
    QVERIFY(has_deny(e.ir, env.project + "/in-editor"));
    QVERIFY(!has_deny(e.ir, env.project + "/on-disk"));
    in.overlay[env.project + "/.paddock/policy.yaml"] = "version: 1\nfilesystem: {denny: []}\n";
    auto r = evaluate(in);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find(env.project + "/.paddock/policy.yaml:2:14: key 'filesystem.denny'") == 0, r.error().message.c_str());
  }

  void reading_never_modifies_a_layer_file() {
    EngineEnv env;
    env.repo("version: 1\nfilesystem: {deny: [$PROJECT/x]}\n");
    env.user("version: 1\n");
    const auto before = std::filesystem::last_write_time(env.project + "/.paddock/policy.yaml");
    auto in = env.inputs();
    in.require_approvals = true;
    (void)evaluate(in);
    (void)evaluate(env.inputs());
    QCOMPARE(std::filesystem::last_write_time(env.project + "/.paddock/policy.yaml"), before);
    QVERIFY(!std::filesystem::exists(env.home + "/.local/state/paddock/approvals.json"));
    QVERIFY(!std::filesystem::exists(env.project + "/.paddock/policy.yaml.sig"));
  }
  // The landlock tier trades the namespaces away (docs/capabilities.md): only the user's own tiers
  // may choose it, the last of them that says it wins, and --tier overrides them all.
  void the_linux_tier_is_the_users_choice_and_the_launch_option_overrides_it() {
    EngineEnv env;
    auto in = env.inputs();
    QCOMPARE(eval_ok(in).ir.meta.linux_tier, std::string("namespaces"));
    env.repo("version: 1\nsandbox: {linux_tier: landlock}\n");
    const Error e = eval_err(in);
    QCOMPARE(e.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(e.message.find("may not set sandbox.linux_tier") != std::string::npos, e.message.c_str());
    QVERIFY2(e.message.find(":2:") != std::string::npos, e.message.c_str());
    std::filesystem::remove(env.project + "/.paddock/policy.yaml");
    env.user("version: 1\nsandbox: {linux_tier: landlock}\n");
    const auto chosen = eval_ok(in);
    QCOMPARE(chosen.ir.meta.linux_tier, std::string("landlock"));
    in.linux_tier = "namespaces";
    const auto overridden = eval_ok(in);
    QCOMPARE(overridden.ir.meta.linux_tier, std::string("namespaces"));
    QVERIFY(overridden.ir_hash != chosen.ir_hash);
  }
};

QTEST_GUILESS_MAIN(EvaluateTiersTest)
#include "evaluate_tiers_test.moc"
