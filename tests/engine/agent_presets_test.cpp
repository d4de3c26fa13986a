// The agent presets (resources/agents) as the engine resolves them: their state directories are
// named for `run` to create and granted once they exist, their settings variables are set, their
// own credentials reach only their own session and only under the user's opt-in, and loopback
// binds are the sandbox's own unless a layer forbids them.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/engine.h"
#include "engine/layer.h"
#include "engine/tiers.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::contains;
using paddock::test::EngineEnv;
using paddock::test::has_deny;
using paddock::test::eval_ok;
namespace fs = std::filesystem;

namespace {
const std::vector<std::string>& kAgents = agent_preset_names();
}  // namespace

class AgentPresetsTest : public QObject {
  Q_OBJECT
 private slots:
  // The presets are the files of resources/agents, each named for its file, each but custom with
  // the program it starts (what the app's agent list looks for on PATH).
  void the_presets_are_the_files_of_resources_agents_and_each_names_its_program() {
    EngineEnv env;
    const std::string dir = env.inputs().resources_dir + "/agents";
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) files.insert(e.path().stem().string());
    QCOMPARE(files, std::set<std::string>(kAgents.begin(), kAgents.end()));
    const auto presets = agent_presets(env.inputs().resources_dir);
    QVERIFY2(presets.ok(), presets.ok() ? "" : presets.error().message.c_str());
    QCOMPARE(presets->size(), kAgents.size());
    std::map<std::string, std::string> program;
    for (std::size_t i = 0; i < presets->size(); ++i) {
      const auto& p = (*presets)[i];
      QCOMPARE(p.name, kAgents[i]);
      QVERIFY2(!p.description.empty(), p.name.c_str());
      QVERIFY2(p.name == "custom" ? p.command.empty() : !p.command.empty(), p.name.c_str());
      program[p.name] = p.command;
    }
    QCOMPARE(program["claude-code"], std::string("claude"));
    QCOMPARE(program["gemini-cli"], std::string("gemini"));
    // A preset file that does not parse is an error naming it, not a list without that agent.
    EngineEnv broken;
    const std::string copy = broken.root + "/resources";
    fs::copy(env.inputs().resources_dir, copy, fs::copy_options::recursive);
    {
      std::ifstream in(copy + "/agents/codex.yaml");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      text.replace(text.find("command: codex"), 7, "comand");
      fs::remove(copy + "/agents/codex.yaml");
      std::ofstream(copy + "/agents/codex.yaml") << text;
    }
    const auto bad = agent_presets(copy);
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message.find("codex.yaml") != std::string::npos, bad.error().message.c_str());
  }

  // --profile and --preset (and the app's choice of profile) name exactly the built-in files.
  void the_profile_and_preset_names_are_the_files_of_resources() {
    EngineEnv env;
    auto stems = [&](const std::string& dir) {
      std::set<std::string> out;
      for (const auto& e : fs::directory_iterator(env.inputs().resources_dir + "/" + dir)) out.insert(e.path().stem().string());
      return out;
    };
    QCOMPARE(stems("profiles"), std::set<std::string>(profile_names().begin(), profile_names().end()));
    QCOMPARE(stems("presets"), std::set<std::string>(preset_names().begin(), preset_names().end()));
  }

  void every_preset_names_its_state_dirs_and_grants_them_once_they_exist() {
    for (const auto& agent : kAgents) {
      EngineEnv env;
      auto in = env.inputs();
      in.agent = agent;
      auto dirs = agent_state_dirs(in);
      QVERIFY2(dirs.ok(), agent.c_str());
      QVERIFY2(!dirs->empty(), agent.c_str());
      // Absent: not granted (a missing path never is), and explain says run creates it.
      const auto before = eval_ok(in);
      for (const auto& d : *dirs) QVERIFY2(!contains(before.ir.fs.write_roots, d), d.c_str());
      for (const auto& d : *dirs) fs::create_directories(d);
      const auto after = eval_ok(in);
      for (const auto& d : *dirs) {
        QVERIFY2(d.rfind(env.home + "/", 0) == 0, d.c_str());
        QVERIFY2(contains(after.ir.fs.write_roots, d), (agent + ": " + d).c_str());
      }
    }
  }

  void the_presets_name_the_directories_each_agent_writes() {
    EngineEnv env;
    auto in = env.inputs();
    auto names = [&](const std::string& agent) {
      in.agent = agent;
      auto d = agent_state_dirs(in);
      return d.ok() ? *d : std::vector<std::string>{};
    };
    for (const char* d : {"/.local/share/opencode", "/.config/opencode", "/.cache/opencode", "/.local/state/opencode"})
      QVERIFY2(contains(names("opencode"), env.home + d), d);
    QVERIFY(contains(names("copilot"), env.home + "/.cache/copilot"));
    QVERIFY(contains(names("copilot"), env.home + "/.copilot"));
    QVERIFY(contains(names("codex"), env.home + "/.codex"));
    QVERIFY(contains(names("gemini-cli"), env.home + "/.gemini"));
    QVERIFY(contains(names("claude-code"), env.home + "/.claude"));
  }

  void claude_code_keeps_its_whole_state_in_its_config_dir() {
    EngineEnv env;
    auto in = env.inputs();
    in.agent = "claude-code";
    fs::create_directories(env.home + "/.claude");
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.env.set.at("CLAUDE_CONFIG_DIR"), env.home + "/.claude");
    // Nothing beside it in the home directory is granted: its .claude.json lives inside.
    for (const auto& w : e.ir.fs.write_roots) QVERIFY2(w.find("/.claude.json") == std::string::npos, w.c_str());
  }

  void a_gateway_url_passes_when_a_tier_lists_it_while_keys_stay_denied() {
    EngineEnv env;
    env.user("version: 1\nenvironment: {pass_through: [ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_API_KEY, "
             "OPENAI_ORG_KEY, GH_TOKEN, MY_DB_PASSWORD]}\n");
    auto in = env.inputs();
    for (const char* k : {"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_ORG_KEY", "GH_TOKEN", "MY_DB_PASSWORD"})
      in.environment[k] = "v";
    const auto e = eval_ok(in);
    QVERIFY(contains(e.ir.env.passed_names, "ANTHROPIC_BASE_URL"));
    QVERIFY(contains(e.ir.env.passed_names, "OPENAI_BASE_URL"));
    for (const char* k : {"ANTHROPIC_API_KEY", "OPENAI_ORG_KEY", "GH_TOKEN", "MY_DB_PASSWORD"})
      QVERIFY2(!contains(e.ir.env.passed_names, k), k);
    QCOMPARE(why(e, "OPENAI_ORG_KEY").rule, std::string("hard-deny *_KEY"));
  }

  void a_withheld_key_is_reported_and_why_names_the_opt_in() {
    EngineEnv env;
    auto in = env.inputs();
    in.agent = "claude-code";
    in.environment["ANTHROPIC_API_KEY"] = "k";
    in.environment["OPENAI_API_KEY"] = "k";  // another agent's: not this session's business
    const auto e = eval_ok(in);
    QCOMPARE(e.withheld_credentials, std::vector<std::string>{"ANTHROPIC_API_KEY"});
    const auto w = why(e, "ANTHROPIC_API_KEY");
    QVERIFY(!w.allowed);
    QVERIFY2(w.reason.find("environment.agent_credentials: true") != std::string::npos, w.reason.c_str());
    env.user("version: 1\nenvironment: {agent_credentials: true}\n");
    const auto opted = eval_ok(in);
    QVERIFY(opted.withheld_credentials.empty());
    QVERIFY(why(opted, "ANTHROPIC_API_KEY").allowed);
  }

  // The user's stored login is never the sandbox's: in the agent's own state (the default) the
  // user's copy is hidden and the agent keeps a login of its own; every other agent's stays
  // masked. In the shared agent state (the user's choice) the old rule holds: masked unless the
  // user opts in to the agent's own credentials.
  void the_users_own_login_is_hidden_in_own_state_and_masked_for_other_agents() {
    EngineEnv env;
    const std::string claude_login = env.home + "/.claude/.credentials.json";
    const std::string codex_login = env.home + "/.codex/auth.json";
    env.write(claude_login, "{}");
    env.write(codex_login, "{}");
    auto in = env.inputs();
    in.agent = "claude-code";
    for (bool opted : {false, true}) {
      if (opted) {
        env.write(env.root + "/creds.yaml", "version: 1\nenvironment: {agent_credentials: true}\n");
        in.policy_files = {env.root + "/creds.yaml"};
      }
      const auto e = eval_ok(in);
      QVERIFY(!has_deny(e.ir, claude_login));  // a mask would keep the agent from its own login
      QCOMPARE(e.ir.fs.agent_state.size(), std::size_t{1});
      QVERIFY(contains(e.ir.fs.agent_state[0].hidden, claude_login));
      QVERIFY(has_deny(e.ir, codex_login));
      QVERIFY(!contains(e.withheld_credentials, claude_login));
    }
  }

  void in_the_shared_agent_state_the_own_login_is_readable_only_under_the_opt_in() {
    EngineEnv env;
    const std::string claude_login = env.home + "/.claude/.credentials.json";
    const std::string codex_login = env.home + "/.codex/auth.json";
    env.write(claude_login, "{}");
    env.write(codex_login, "{}");
    env.user("version: 1\nfilesystem: {agent_state: shared}\n");
    auto in = env.inputs();
    in.agent = "claude-code";
    const auto e = eval_ok(in);
    QVERIFY(e.ir.fs.agent_state.empty());
    QVERIFY(contains(e.ir.fs.shared_agent_dirs, env.home + "/.claude"));
    QVERIFY(has_deny(e.ir, claude_login));
    QVERIFY(has_deny(e.ir, codex_login));
    QVERIFY(contains(e.withheld_credentials, claude_login));
    env.write(env.root + "/creds.yaml", "version: 1\nenvironment: {agent_credentials: true}\n");
    in.policy_files = {env.root + "/creds.yaml"};
    const auto opted = eval_ok(in);
    QVERIFY(!has_deny(opted.ir, claude_login));
    QVERIFY(has_deny(opted.ir, codex_login));
    QVERIFY(why(opted, claude_login).access == "write");
    in.agent = "codex";
    const auto codex = eval_ok(in);
    QVERIFY(!has_deny(codex.ir, codex_login));
    QVERIFY(has_deny(codex.ir, claude_login));
  }

  void loopback_binds_are_allowed_unless_a_layer_forbids_them() {
    EngineEnv env;
    QVERIFY(eval_ok(env.inputs()).ir.egress.loopback_bind);
    env.repo("version: 1\nnetwork: {loopback_bind: false}\n");
    env.user("version: 1\nnetwork: {loopback_bind: true}\n");
    const auto e = eval_ok(env.inputs());
    QVERIFY(!e.ir.egress.loopback_bind);  // false from any tier wins
  }

  // network.publish and --publish add up across tiers into one sorted set, each port with the
  // rule that asked for it; a repository's layer publishes like it adds domains (approval
  // decides), and a port nobody may listen on is a contradiction, not a quiet no-op.
  void published_ports_add_up_from_every_tier_and_need_loopback_binds() {
    EngineEnv env;
    QVERIFY(eval_ok(env.inputs()).ir.egress.publish.empty());
    env.user("version: 1\nnetwork: {publish: [3000]}\n");
    env.repo("version: 1\nnetwork: {publish: [5173, 3000]}\n");
    auto in = env.inputs();
    in.publish = {1455};
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.egress.publish, (std::vector<int>{1455, 3000, 5173}));
    const std::string prov = e.provenance.dump();
    QVERIFY2(prov.find("--publish[0]") != std::string::npos && prov.find("network.publish[0]") != std::string::npos,
             prov.c_str());
    for (const auto& l : e.layers)
      if (l.tier == kTierRepo) QCOMPARE(l.adds["network.publish"].dump(), std::string("[5173,3000]"));
    in.require_approvals = true;
    auto unapproved = evaluate(in);
    QVERIFY(!unapproved.ok());
    QCOMPARE(unapproved.error().code, ErrorCode::kPolicyBlocked);
    in.require_approvals = false;
    env.user("version: 1\nnetwork: {publish: [3000], loopback_bind: false}\n");
    auto clash = evaluate(in);
    QVERIFY(!clash.ok());
    QVERIFY2(clash.error().message.find("network.loopback_bind: false at ") != std::string::npos &&
                 clash.error().message.find("is published") != std::string::npos,
             clash.error().message.c_str());
    in.publish = {0};
    env.user("version: 1\n");
    auto zero = evaluate(in);
    QVERIFY(!zero.ok());
    QVERIFY2(zero.error().message.find("--publish 0: port must be 1..65535") != std::string::npos, zero.error().message.c_str());
  }

  // network.host_ports and --host-port add up the same way (a repository's layer needs approval),
  // and one port cannot be both published and a host port.
  void host_ports_add_up_from_every_tier_and_never_go_both_ways() {
    EngineEnv env;
    QVERIFY(eval_ok(env.inputs()).ir.egress.host_ports.empty());
    env.user("version: 1\nnetwork: {host_ports: [11434]}\n");
    env.repo("version: 1\nnetwork: {host_ports: [1234]}\n");
    auto in = env.inputs();
    in.host_ports = {8080, 11434};
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.egress.host_ports, (std::vector<int>{1234, 8080, 11434}));
    const std::string prov = e.provenance.dump();
    QVERIFY2(prov.find("--host-port[0]") != std::string::npos && prov.find("network.host_ports[0]") != std::string::npos,
             prov.c_str());
    for (const auto& l : e.layers)
      if (l.tier == kTierRepo) QCOMPARE(l.adds["network.host_ports"].dump(), std::string("[1234]"));
    in.require_approvals = true;
    auto unapproved = evaluate(in);
    QVERIFY(!unapproved.ok());
    QCOMPARE(unapproved.error().code, ErrorCode::kPolicyBlocked);
    in.require_approvals = false;
    in.publish = {8080};
    auto both = evaluate(in);
    QVERIFY(!both.ok());
    QVERIFY2(both.error().message.find("one port cannot go both ways") != std::string::npos, both.error().message.c_str());
    in.publish = {};
    in.host_ports = {70000};
    auto big = evaluate(in);
    QVERIFY(!big.ok() && big.error().message.find("--host-port 70000: port must be 1..65535") != std::string::npos);
  }

  void the_launch_commands_installation_is_granted_with_its_own_provenance() {
    EngineEnv env;
    const std::string install = env.home + "/.npm-global/lib/node_modules";
    fs::create_directories(install + "/agent");
    auto in = env.inputs();
    in.launch_reads = {install};
    const auto e = eval_ok(in);
    QVERIFY(contains(e.ir.fs.read_roots, install));
    QVERIFY2(e.provenance.dump().find("launch-command") != std::string::npos, e.provenance.dump().c_str());
    // Under the system's lockdown nothing is added (run then refuses, naming the flag).
    env.system("version: 1\nsecurity: {immutable: true}\n");
    QVERIFY(!contains(eval_ok(in).ir.fs.read_roots, install));
  }

  void an_agent_env_key_may_not_set_what_paddock_sets_itself() {
    auto r = parse_layer("version: 1\nagent: {data_dir: ~/.x, env: {HOME: /tmp}}\n", "agent-preset", "a.yaml");
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("a.yaml:2:") == 0, r.error().message.c_str());
    QVERIFY(!parse_layer("version: 1\nagent: {data_dir: ~/.x, state_dirs: [\"~/.c*\"]}\n", "agent-preset", "a.yaml").ok());
    QVERIFY(!parse_layer("version: 1\nnetwork: {loopback_bind: maybe}\n", "repository", "b.yaml").ok());
  }
};

QTEST_APPLESS_MAIN(AgentPresetsTest)
#include "agent_presets_test.moc"
