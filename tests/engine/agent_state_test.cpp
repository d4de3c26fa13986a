// The agent's own state as the engine resolves it (docs/agents.md): each agent preset's state
// directories are shown as overlays over the user's own (fs.agent_state) and kept per agent and
// profile; the user's stored logins, history and caches there are hidden, not masked; what
// Paddock sets in the agent's settings is in the IR; the old shared directory is the user's
// choice alone, and a stricter tier can always insist on own state; the agents' own state is
// never reachable through another grant; settings are written without touching the user's text
// (JSON merged, TOML edited line by line, checked by parsing the result).
#include <QtTest>

#include <filesystem>
#include <map>

#include "engine/agent_settings.h"
#include "engine/engine.h"
#include "engine/session/config_watch.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::contains;
using paddock::test::EngineEnv;
using paddock::test::eval_err;
using paddock::test::eval_ok;
using paddock::test::has_deny;
namespace fs = std::filesystem;

namespace {

const AgentStateRoot* root_of(const FrozenIr& ir, const std::string& path) {
  for (const auto& r : ir.fs.agent_state)
    if (r.path == path) return &r;
  return nullptr;
}

AgentSetting toml_setting(std::map<std::string, std::string> set) {
  AgentSetting s;
  s.file = "/h/.codex/config.toml";
  s.format = "toml";
  s.set = std::move(set);
  return s;
}

}  // namespace

class AgentStateTest : public QObject {
  Q_OBJECT
 private slots:
  void every_presets_directories_are_its_own_state_kept_per_agent_and_profile() {
    for (const char* agent : {"claude-code", "codex", "gemini-cli", "opencode", "copilot"}) {
      EngineEnv env;
      auto in = env.inputs();
      in.agent = agent;
      auto dirs = agent_state_dirs(in);
      QVERIFY(dirs.ok());
      for (const auto& d : *dirs) fs::create_directories(d);
      for (const char* profile : {"default", "strict"}) {
        in.profile = profile;
        const auto e = eval_ok(in);
        QCOMPARE(e.ir.fs.agent_state_dir,
                 env.home + "/.local/share/paddock/agent-state/" + agent + "/" + profile);
        for (const auto& d : *dirs) {
          QVERIFY2(root_of(e.ir, d), d.c_str());
          QVERIFY2(contains(e.ir.fs.write_roots, d), d.c_str());
          QVERIFY2(!contains(e.ir.fs.review_roots, d), d.c_str());  // held already: never reviewed twice
        }
        QVERIFY(e.ir.fs.shared_agent_dirs.empty());
        // Its settings are not watched: nothing written there reaches the file the CLI reads.
        for (const auto& w : e.ir.fs.watched_configs)
          for (const auto& d : *dirs) QVERIFY2(w.path.rfind(d + "/", 0) != 0, w.path.c_str());
      }
    }
  }

  void xdg_data_home_places_the_state_and_the_state_is_masked_from_every_grant() {
    EngineEnv env;
    fs::create_directories(env.home + "/.claude");
    auto in = env.inputs();
    in.agent = "claude-code";
    in.environment["XDG_DATA_HOME"] = env.root + "/data";
    in.allow_writes = {env.root + "/data"};
    fs::create_directories(env.root + "/data");
    const auto e = eval_ok(in);
    QCOMPARE(e.ir.fs.agent_state_dir, env.root + "/data/paddock/agent-state/claude-code/default");
    QVERIFY(has_deny(e.ir, env.root + "/data/paddock/agent-state"));
  }

  void the_users_history_and_logins_are_hidden_and_paddocks_settings_named() {
    EngineEnv env;
    fs::create_directories(env.home + "/.codex");
    env.write(env.home + "/.codex/state_5.sqlite", "db");
    env.write(env.home + "/.codex/logs_2.sqlite-wal", "db");
    env.write(env.home + "/.codex/auth.json", "{}");
    auto in = env.inputs();
    in.agent = "codex";
    const auto e = eval_ok(in);
    const AgentStateRoot* r = root_of(e.ir, env.home + "/.codex");
    QVERIFY(r);
    for (const char* h : {"/sessions", "/history.jsonl", "/state_5.sqlite", "/logs_2.sqlite-wal", "/auth.json"})
      QVERIFY2(contains(r->hidden, env.home + "/.codex" + h), h);
    QVERIFY(!has_deny(e.ir, env.home + "/.codex/auth.json"));
    QCOMPARE(r->settings.size(), std::size_t{1});
    QCOMPARE(r->settings[0].file, env.home + "/.codex/config.toml");
    QCOMPARE(r->settings[0].set.at("/sandbox_mode"), std::string("\"danger-full-access\""));
    QVERIFY(r->settings[0].why.find("Paddock") != std::string::npos);
  }

  void claude_codes_mcp_servers_are_imported_with_the_project_as_one_pointer_token() {
    EngineEnv env;
    fs::create_directories(env.home + "/.claude");
    auto in = env.inputs();
    in.agent = "claude-code";
    const auto e = eval_ok(in);
    const AgentStateRoot* r = root_of(e.ir, env.home + "/.claude");
    QVERIFY(r);
    const AgentSetting* mcp = nullptr;
    for (const auto& s : r->settings)
      if (!s.import_from.empty()) mcp = &s;
    QVERIFY(mcp);
    QCOMPARE(mcp->import_from, env.home + "/.claude.json");
    std::string token;
    for (char c : env.project) token += c == '/' ? std::string("~1") : std::string(1, c);
    QVERIFY(contains(mcp->import_keys, "/projects/" + token + "/mcpServers"));
    QVERIFY(contains(mcp->import_keys, std::string("/mcpServers")));
  }

  void the_shared_state_is_the_users_choice_and_any_tier_can_insist_on_own() {
    EngineEnv env;
    fs::create_directories(env.home + "/.claude");
    auto in = env.inputs();
    in.agent = "claude-code";
    env.repo("version: 1\nfilesystem: {agent_state: shared}\n");
    const Error e = eval_err(in);
    QCOMPARE(e.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(e.message.find("agent_state: shared") != std::string::npos, e.message.c_str());
    env.repo("version: 1\nfilesystem: {agent_state: own}\n");
    env.user("version: 1\nfilesystem: {agent_state: shared}\n");
    QVERIFY(!eval_ok(in).ir.fs.agent_state.empty());  // the repository narrows: own wins
    fs::remove(env.project + "/.paddock/policy.yaml");
    const auto shared = eval_ok(in);
    QVERIFY(shared.ir.fs.agent_state.empty());
    QVERIFY(contains(shared.ir.fs.shared_agent_dirs, env.home + "/.claude"));
    // Shared: its settings are watched again, the old way.
    bool watched = false;
    for (const auto& w : shared.ir.fs.watched_configs) watched = watched || w.path == env.home + "/.claude/settings.json";
    QVERIFY(watched);
  }

  // The shared state closes what a key list alone missed: every file the CLIs load at start is
  // watched where the session can write it (Codex's .env and hooks, Gemini's .env and trusted
  // folders, the trees of commands, plugins and extensions), and Codex's trusted projects and hooks
  // are keys of its config.
  void in_the_shared_state_every_file_the_agent_clis_load_at_start_is_watched() {
    EngineEnv env;
    env.user("version: 1\nfilesystem: {agent_state: shared}\n");
    for (const char* d : {"/.codex", "/.gemini", "/.claude"}) fs::create_directories(env.home + d);
    const auto watched = [&](const std::string& agent) {
      auto in = env.inputs();
      in.agent = agent;
      std::map<std::string, WatchedConfig> out;
      for (const auto& w : eval_ok(in).ir.fs.watched_configs) out[w.path] = w;
      return out;
    };
    const auto codex = watched("codex");
    for (const char* f : {"/.codex/.env", "/.codex/hooks.json", "/.codex/AGENTS.md", "/.codex/rules"})
      QVERIFY2(codex.count(env.home + f), f);
    QCOMPARE(codex.at(env.home + "/.codex/.env").format, std::string("text"));
    QCOMPARE(codex.at(env.home + "/.codex/rules").format, std::string("tree"));
    const auto& keys = codex.at(env.home + "/.codex/config.toml").keys;
    for (const char* k : {"hooks", "projects", "notify", "mcp_servers"}) QVERIFY2(contains(keys, k), k);
    const auto gemini = watched("gemini-cli");
    // (~/.gemini/.env and ~/.env hold keys too: masked, so never written and not watched,
    // unless agent_credentials lets Gemini CLI's own .env through: then it is watched.)
    for (const char* f : {"/.gemini/trustedFolders.json", "/.gemini/extensions", "/.gemini/GEMINI.md"})
      QVERIFY2(gemini.count(env.home + f), f);
    const auto claude = watched("claude-code");
    for (const char* f : {"/.claude/plugins", "/.claude/commands", "/.claude/CLAUDE.md"})
      QVERIFY2(claude.count(env.home + f), f);
  }

  // Project-level agent configuration is kept from the agent the same way whichever agent runs:
  // each agent's directory also where the project has none yet, except OpenCode's .opencode, which
  // an empty placeholder would stop OpenCode from starting with (it writes a .gitignore into every
  // .opencode it finds): a new one is reported when the session ends, as a new .mcp.json is.
  void every_agents_project_configuration_is_protected_the_same_way() {
    EngineEnv env;
    for (const char* agent : {"claude-code", "codex", "gemini-cli", "opencode"}) {
      auto in = env.inputs();
      in.agent = agent;
      const auto e = eval_ok(in);
      for (const char* d : {"/.claude", "/.codex", "/.gemini", "/.opencode"}) {
        bool held = false;
        for (const auto& w : e.ir.fs.deny_write) held = held || (w.path == env.project + d && w.kind == PathKind::kAbsentDir);
        QVERIFY2(held == (std::string(d) != "/.opencode"), (std::string(agent) + ": " + d).c_str());
      }
    }
    env.write(env.project + "/sub/.codex/config.toml", "sandbox_mode = \"danger-full-access\"\n");
    env.write(env.project + "/.mcp.json", "{}");
    env.write(env.project + "/.opencode/plugin/p.js", "");
    const auto e = eval_ok(env.inputs());
    bool sub = false, mcp = false, opencode = false;
    for (const auto& w : e.ir.fs.deny_write) {
      sub = sub || w.path == env.project + "/sub/.codex";
      mcp = mcp || w.path == env.project + "/.mcp.json";
      opencode = opencode || w.path == env.project + "/.opencode";
    }
    QVERIFY(sub && mcp && opencode);
  }

  // A project that holds the agent's directory (a project at the home: the project's lists match
  // ~/.codex as a project's .codex) leaves it the agent's own: its writes are kept in Paddock's
  // state anyway, so no write protection inside it demotes it to read-only.
  void a_project_that_holds_the_agents_directory_leaves_it_the_agents_own() {
    EngineEnv env;
    env.write(env.home + "/.codex/config.toml", "");
    auto in = env.inputs();
    in.project = env.root;
    in.agent = "codex";
    const auto e = eval_ok(in);
    QVERIFY(contains(e.ir.fs.write_roots, env.home + "/.codex"));
    QCOMPARE(e.ir.fs.agent_state.size(), std::size_t(1));
    QCOMPARE(e.ir.fs.agent_state[0].path, env.home + "/.codex");
    for (const auto& w : e.ir.fs.deny_write) QVERIFY2(w.path.rfind(env.home + "/.codex", 0) != 0, w.path.c_str());
  }

  void an_unknown_agent_state_value_is_an_error_with_its_position() {
    EngineEnv env;
    env.user("version: 1\nfilesystem: {agent_state: mine}\n");
    auto in = env.inputs();
    const Error e = eval_err(in);
    QCOMPARE(e.code, ErrorCode::kBadInput);
    QVERIFY2(e.message.find(":2:") != std::string::npos && e.message.find("expected one of own, shared") != std::string::npos,
             e.message.c_str());
  }

  void json_settings_keep_the_users_keys_and_set_paddocks() {
    AgentSetting s;
    s.file = "/h/.claude/settings.json";
    s.format = "json";
    s.set = {{"/sandbox/enabled", "false"}};
    auto out = apply_agent_setting(s, std::string("{\"model\": \"m\", \"sandbox\": {\"enabled\": true, \"x\": 1}}"), std::nullopt);
    QVERIFY(out.ok());
    const auto j = nlohmann::json::parse(*out);
    QCOMPARE(j["model"].get<std::string>(), std::string("m"));
    QCOMPARE(j["sandbox"]["enabled"].get<bool>(), false);
    QCOMPARE(j["sandbox"]["x"].get<int>(), 1);
    QVERIFY(apply_agent_setting(s, std::nullopt, std::nullopt).ok());  // no file: made
    QVERIFY(!apply_agent_setting(s, std::string("[1]"), std::nullopt).ok());
    QVERIFY(!apply_agent_setting(s, std::string("{\"sandbox\": 3}"), std::nullopt).ok());
  }

  void imported_keys_merge_entry_by_entry_and_the_agents_own_entries_win() {
    AgentSetting s;
    s.file = "/h/.claude/.claude.json";
    s.format = "json";
    s.import_from = "/h/.claude.json";
    s.import_keys = {"/mcpServers", "/projects/~1p/mcpServers"};
    const std::string theirs = R"({"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}},
                                   "projects": {"/p": {"mcpServers": {"l": {}}, "history": ["secret"]}}})";
    auto out = apply_agent_setting(s, std::string(R"({"mcpServers": {"a": {"command": "agent-a"}}, "numStartups": 3})"), theirs);
    QVERIFY(out.ok());
    const auto j = nlohmann::json::parse(*out);
    QCOMPARE(j["mcpServers"]["a"]["command"].get<std::string>(), std::string("agent-a"));
    QCOMPARE(j["mcpServers"]["b"]["command"].get<std::string>(), std::string("user-b"));
    QVERIFY(j["projects"]["/p"]["mcpServers"].contains("l"));
    QVERIFY(!j["projects"]["/p"].contains("history"));
    QCOMPARE(j["numStartups"].get<int>(), 3);
  }

  void toml_settings_are_edited_in_the_text_and_checked_by_parsing() {
    const auto s = toml_setting({{"/sandbox_mode", "\"danger-full-access\""},
                                 {"/profiles/*/sandbox_mode", "\"danger-full-access\""}});
    const std::string user =
        "# my codex config\nmodel = \"gpt-5\"\nsandbox_mode = \"workspace-write\"  # mine\n\n[mcp_servers.x]\n"
        "command = \"npx\"\n\n[profiles.fast]\nsandbox_mode = \"read-only\"\nmodel = \"o4\"\n\n[profiles.plain]\n"
        "model = \"o3\"\n";
    auto out = apply_agent_setting(s, user, std::nullopt);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    QVERIFY2(out->find("# my codex config") != std::string::npos, out->c_str());
    auto doc = session::parse_config_document("toml", *out);
    QVERIFY(doc);
    QCOMPARE((*doc)["sandbox_mode"].get<std::string>(), std::string("danger-full-access"));
    QCOMPARE((*doc)["profiles"]["fast"]["sandbox_mode"].get<std::string>(), std::string("danger-full-access"));
    QVERIFY(!(*doc)["profiles"]["plain"].contains("sandbox_mode"));
    QCOMPARE((*doc)["mcp_servers"]["x"]["command"].get<std::string>(), std::string("npx"));
    // No file: just the key.
    auto fresh = apply_agent_setting(s, std::nullopt, std::nullopt);
    QVERIFY(fresh.ok());
    QCOMPARE(*fresh, std::string("sandbox_mode = \"danger-full-access\"\n"));
  }

  void a_toml_key_the_text_edit_cannot_reach_is_an_error_not_a_silent_miss() {
    const auto s = toml_setting({{"/sandbox_mode", "\"danger-full-access\""}});
    QVERIFY(!apply_agent_setting(s, std::string("this is = = not toml\n"), std::nullopt).ok());
    // A profile set through an inline table: the text edit cannot reach inside it.
    const auto p = toml_setting({{"/profiles/*/sandbox_mode", "\"danger-full-access\""}});
    QVERIFY(!apply_agent_setting(p, std::string("profiles = { x = { sandbox_mode = \"read-only\" } }\n"), std::nullopt).ok());
    // A dotted key at the top is a key like any other: edited where it is.
    auto dotted = apply_agent_setting(p, std::string("profiles.x.sandbox_mode = \"read-only\"\n"), std::nullopt);
    QVERIFY(dotted.ok());
    QCOMPARE(*dotted, std::string("profiles.x.sandbox_mode = \"danger-full-access\"\n"));
  }

  void the_files_a_setting_names_are_found_in_every_form_a_user_writes() {
    WatchedConfig w{"/h/.claude/settings.json", "json", {"hooks", "statusLine"}};
    const std::string bytes = R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
        "command": "FOO=1 bash ~/.claude/hooks/a.sh --x && $CLAUDE_CONFIG_DIR/b.sh | '/opt/c d.sh'"}]}]},
        "statusLine": {"type": "command", "command": "node ${HOME}/.claude/../tools/line.js"},
        "env": {"X": "/not/watched"}})";
    const auto named = session::named_files(w, bytes, "/h", 64);
    QVERIFY(contains(named, std::string("/h/.claude/hooks/a.sh")));
    QVERIFY(contains(named, std::string("/h/.claude/b.sh")));
    QVERIFY(contains(named, std::string("/h/tools/line.js")));
    QVERIFY(contains(named, std::string("/opt/c")));  // a quoted name with a space: its first word
    QVERIFY(!contains(named, std::string("/not/watched")));
    QVERIFY(session::named_files(w, bytes, "/h", 1).size() == 1);
    WatchedConfig codex{"/h/.codex/config.toml", "toml", {"notify"}};
    QVERIFY(contains(session::named_files(codex, "notify = [\"python3\", \"/h/.codex/notify.py\"]\n", "/h", 64),
                     std::string("/h/.codex/notify.py")));
  }
};

QTEST_GUILESS_MAIN(AgentStateTest)
#include "agent_state_test.moc"
