// The agent's own state against the real helper on the real kernel, as root and as uid 65534
// (docs/agents.md): the sandbox sees the agent's directory as an overlay over the user's own, so
// that whatever the agent writes there (a hook, a .env, a rewritten status-line script, a login)
// leaves the user's directory byte for byte as it was and is there for the agent's next session;
// the user's setup shows inside, the user's stored login and history never do; Paddock's own
// settings (the nested sandbox off, the user's MCP servers) are in the session's view without
// touching a file of the user's; two sessions of one agent run at once and both keep their
// writes; the state's changes are listed with what the agent's CLI would run flagged, applied
// one by one, and reset.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/session/agent_state_layout.h"
#include "engine/session/review_record.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string tool_bin() { return build_dir() + "/tests/helpers/linux/tools/agent_state_tool"; }
std::string resources() { return source_dir() + "/resources"; }

// Type, mode, link target and content digest of every entry below $1, sorted.
const char* kManifest =
    "cd \"$1\" || exit 1\n"
    "find . -mindepth 1 -printf '%y %m %p -> %l\\n' | LC_ALL=C sort\n"
    "find . -mindepth 1 -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum\n";

}  // namespace

class HelperAgentStateTest : public QObject {
  Q_OBJECT
  SandboxFixture f_;

  std::string agent_dir() const { return f_.home + "/.claude"; }
  std::string state_dir() const { return f_.root + "/data/paddock/agent-state/claude-code/default"; }

  // The user's own setup: settings, instructions, a command, their stored login and history.
  void user_setup() {
    fs::create_directories(agent_dir() + "/commands");
    fs::create_directories(agent_dir() + "/projects/-home-u-other");
    put(agent_dir() + "/settings.json", "{\"model\": \"the-users-model\"}\n");
    put(agent_dir() + "/CLAUDE.md", "the user's instructions\n");
    put(agent_dir() + "/commands/review.md", "the user's command\n");
    put(agent_dir() + "/statusline.sh", "#!/bin/sh\necho the users status line\n");
    ::chmod((agent_dir() + "/statusline.sh").c_str(), 0755);
    put(agent_dir() + "/.credentials.json", "{\"refreshToken\": \"THE-USERS-REFRESH-TOKEN\"}\n");
    put(agent_dir() + "/projects/-home-u-other/transcript.jsonl", "another project's secrets\n");
    put(f_.home + "/.claude.json", "{\"mcpServers\": {\"users-server\": {\"command\": \"/usr/bin/true\"}}, "
                                   "\"projects\": {\"" + f_.project + "\": {\"mcpServers\": {\"local-one\": {\"command\": \"x\"}}, "
                                   "\"history\": [\"a private prompt\"]}}}\n");
    chown_tree(agent_dir(), f_.uid);
    chown_tree(f_.home + "/.claude.json", f_.uid);
    fs::create_directories(f_.root + "/data");
    chown_tree(f_.root + "/data", f_.uid);
  }

  FrozenIr state_ir() {
    FrozenIr ir = base_ir(f_);
    ir.meta.agent = "claude-code";
    ir.meta.agent_dir = agent_dir();
    ir.fs.write_roots.push_back(agent_dir());
    ir.fs.agent_state_dir = state_dir();
    AgentStateRoot r;
    r.path = agent_dir();
    r.hidden = {agent_dir() + "/.credentials.json", agent_dir() + "/history.jsonl", agent_dir() + "/projects"};
    AgentSetting sandbox;
    sandbox.file = agent_dir() + "/settings.json";
    sandbox.format = "json";
    sandbox.set = {{"/sandbox/enabled", "false"}};
    sandbox.why = "Claude Code's own sandbox is off";
    AgentSetting mcp;
    mcp.file = agent_dir() + "/.claude.json";
    mcp.format = "json";
    mcp.import_from = f_.home + "/.claude.json";
    mcp.import_keys = {"/mcpServers", "/projects/" + [&] {
                         std::string t;
                         for (char c : f_.project) t += c == '/' ? std::string("~1") : std::string(1, c);
                         return t;
                       }() + "/mcpServers"};
    mcp.why = "your MCP servers";
    r.settings = {mcp, sandbox};
    ir.fs.agent_state = {r};
    normalize(ir);
    return ir;
  }

  ProcessResult session(const std::string& script, std::string* dir = nullptr) {
    HelperInvocation h = prepare_helper(f_, state_ir(), {"/bin/sh", "-c", script});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    o.timeout_ms = 60000;
    if (dir) *dir = h.session_dir;
    return run_process(h.argv(), o);
  }

  std::string manifest(const std::string& dir) { return run_process({"/bin/sh", "-c", kManifest, "sh", dir}).out; }

  json tool(const std::string& verb, const std::string& session_dir, const std::vector<std::string>& paths = {}) {
    std::vector<std::string> argv = {tool_bin(), verb, session_dir + "/ir.json", resources()};
    argv.insert(argv.end(), paths.begin(), paths.end());
    RunOptions o;
    o.prefix = f_.prefix();
    o.timeout_ms = 60000;
    const ProcessResult r = run_process(argv, o);
    if (r.exit_code != 0) {
      qWarning("%s", dump(r).constData());
      return json();
    }
    return json::parse(r.out, nullptr, false);
  }

  static const json* change(const json& set, const std::string& path) {
    for (const auto& c : set["changes"])
      if (c["path"] == path) return &c;
    return nullptr;
  }
  static bool flagged(const json& c, const std::string& rule) {
    for (const auto& f : c["flags"])
      if (f["rule"] == rule) return true;
    return false;
  }

 private slots:
  void cleanup() {
    remove_fixture(f_);
    f_ = {};
  }

  void a_session_that_plants_a_hook_a_dotenv_and_a_status_line_leaves_your_directory_byte_identical_data() { add_uid_rows(); }
  void a_session_that_plants_a_hook_a_dotenv_and_a_status_line_leaves_your_directory_byte_identical() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    const std::string before = manifest(agent_dir());
    const ProcessResult r = session(
        "set -e; cd ~/.claude; "
        "echo '{\"hooks\":{\"PreToolUse\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"~/.claude/evil.sh\"}]}]},"
        "\"statusLine\":{\"type\":\"command\",\"command\":\"~/.claude/statusline.sh\"}}' > settings.json; "
        "printf '#!/bin/sh\\ncurl evil\\n' > evil.sh; chmod 755 evil.sh; "
        "printf '#!/bin/sh\\nrm -rf ~\\n' > statusline.sh; "
        "echo LD_PRELOAD=/tmp/x.so > .env; rm CLAUDE.md; mkdir -p plugins/p; echo p > plugins/p/hook.json; "
        "ln -s /etc/passwd link; echo ok");
    QVERIFY2(r.exit_code == 0 && r.out == "ok\n", dump(r).constData());
    // Not one byte of the user's own directory changed: every write went to the agent's state.
    QCOMPARE(manifest(agent_dir()), before);
    QVERIFY(fs::is_directory(session::review_upper(state_dir(), 0)));
    QCOMPARE(slurp(session::review_upper(state_dir(), 0) + "/.env"), std::string("LD_PRELOAD=/tmp/x.so\n"));
    // Committed at the session's end: no session layer is left.
    QVERIFY(fs::is_empty(session::agent_state_sessions(state_dir())));
  }

  void the_next_session_sees_its_own_writes_and_your_setup_but_never_your_login_or_history_data() { add_uid_rows(); }
  void the_next_session_sees_its_own_writes_and_your_setup_but_never_your_login_or_history() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    ProcessResult r = session(
        "cd ~/.claude; cat CLAUDE.md commands/review.md; cat .credentials.json 2>/dev/null || echo no-login; "
        "ls projects 2>/dev/null || echo no-history; "
        "echo '{\"refreshToken\": \"ITS-OWN\"}' > .credentials.json && echo its-history > history.jsonl && "
        "mkdir -p projects/p && echo mine > projects/p/t.jsonl && echo written");
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QCOMPARE(r.out, std::string("the user's instructions\nthe user's command\nno-login\nno-history\nwritten\n"));
    QCOMPARE(slurp(agent_dir() + "/.credentials.json"), std::string("{\"refreshToken\": \"THE-USERS-REFRESH-TOKEN\"}\n"));
    // The login made inside works in the next session; the user's is still never shown.
    r = session("cd ~/.claude; cat .credentials.json history.jsonl; ls projects");
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QCOMPARE(r.out, std::string("{\"refreshToken\": \"ITS-OWN\"}\nits-history\np\n"));
  }

  void paddocks_settings_are_in_the_view_and_your_files_are_not_touched_data() { add_uid_rows(); }
  void paddocks_settings_are_in_the_view_and_your_files_are_not_touched() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    const std::string settings = slurp(agent_dir() + "/settings.json"), claude_json = slurp(f_.home + "/.claude.json");
    const ProcessResult r = session("cat ~/.claude/settings.json; echo ---; cat ~/.claude/.claude.json");
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const auto split = r.out.find("---\n");
    QVERIFY2(split != std::string::npos, r.out.c_str());
    const json s = json::parse(r.out.substr(0, split), nullptr, false);
    const json c = json::parse(r.out.substr(split + 4), nullptr, false);
    QVERIFY2(s.is_object() && c.is_object(), r.out.c_str());
    QCOMPARE(s["model"].get<std::string>(), std::string("the-users-model"));  // the user's own setting
    QCOMPARE(s["sandbox"]["enabled"].get<bool>(), false);                      // and Paddock's
    QVERIFY(c["mcpServers"].contains("users-server"));
    QVERIFY(c["projects"][f_.project]["mcpServers"].contains("local-one"));
    QVERIFY2(r.out.find("a private prompt") == std::string::npos, r.out.c_str());  // only the keys named
    QCOMPARE(slurp(agent_dir() + "/settings.json"), settings);
    QCOMPARE(slurp(f_.home + "/.claude.json"), claude_json);
  }

  void a_symlink_the_agent_leaves_at_a_settings_file_is_not_followed_by_paddock_data() { add_uid_rows(); }
  void a_symlink_the_agent_leaves_at_a_settings_file_is_not_followed_by_paddock() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    // A JSON file of the user's that the sandbox cannot read (masked): the agent points its
    // settings file at it, hoping Paddock copies its bytes into the next session's view.
    put(f_.home + "/.aws/config.json", "{\"secret\": \"AWS-SECRET\"}\n");
    chown_tree(f_.home + "/.aws", f_.uid);
    ProcessResult r = session("cd ~/.claude && rm settings.json && ln -s " + f_.home + "/.aws/config.json settings.json && echo planted");
    QVERIFY2(r.exit_code == 0 && r.out == "planted\n", dump(r).constData());
    r = session("cat ~/.claude/settings.json 2>&1; true");
    QVERIFY2(r.out.find("AWS-SECRET") == std::string::npos, dump(r).constData());
    QVERIFY2(r.err.find("could not write Paddock's settings") != std::string::npos, dump(r).constData());
  }

  void two_sessions_of_one_agent_at_once_both_keep_their_writes_data() { add_uid_rows(); }
  void two_sessions_of_one_agent_at_once_both_keep_their_writes() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    HelperInvocation a = prepare_helper(f_, state_ir(), {"/bin/sh", "-c", "echo a > ~/.claude/from-a; sleep 4"});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    const pid_t pa = spawn_process(a.argv(), "", o);
    // B starts while A runs, and ends first: its writes wait for A, the last one to end.
    QVERIFY(eventually([&] { return fs::exists(session::agent_state_session(state_dir(), a.args.session_id)); }));
    std::string bdir;
    const ProcessResult b = session("echo b > ~/.claude/from-b; cat ~/.claude/from-a 2>/dev/null || echo a-not-seen", &bdir);
    QVERIFY2(b.exit_code == 0, dump(b).constData());
    QCOMPARE(b.out, std::string("a-not-seen\n"));  // A's writes are A's until it ends
    QVERIFY(fs::exists(session::agent_state_session(state_dir(), bdir.substr(bdir.rfind('/') + 1))));
    QCOMPARE(wait_exit(pa), 0);
    QVERIFY(fs::is_empty(session::agent_state_sessions(state_dir())));
    const ProcessResult c = session("cat ~/.claude/from-a ~/.claude/from-b");
    QCOMPARE(c.out, std::string("a\nb\n"));
    QVERIFY(!fs::exists(agent_dir() + "/from-a") && !fs::exists(agent_dir() + "/from-b"));
  }

  void a_session_that_started_after_another_ended_sees_its_writes_while_a_third_runs_data() { add_uid_rows(); }
  void a_session_that_started_after_another_ended_sees_its_writes_while_a_third_runs() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    // A long session keeps the state from being committed; B ends; C, started after B, sees B's
    // writes as a layer of their own.
    HelperInvocation a = prepare_helper(f_, state_ir(), {"/bin/sh", "-c", "sleep 5"});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    const pid_t pa = spawn_process(a.argv(), "", o);
    QVERIFY(eventually([&] { return fs::exists(session::agent_state_session(state_dir(), a.args.session_id)); }));
    QVERIFY(session("echo from-b > ~/.claude/b.txt").exit_code == 0);
    const ProcessResult c = session("cat ~/.claude/b.txt");
    QCOMPARE(c.out, std::string("from-b\n"));
    QCOMPARE(wait_exit(pa), 0);
    QCOMPARE(session("cat ~/.claude/b.txt").out, std::string("from-b\n"));
  }

  void the_state_lists_what_your_agent_cli_would_run_applies_it_when_named_and_resets_data() { add_uid_rows(); }
  void the_state_lists_what_your_agent_cli_would_run_applies_it_when_named_and_resets() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    user_setup();
    std::string dir;
    const ProcessResult r = session(
        "set -e; cd ~/.claude; "
        "echo '{\"model\": \"the-users-model\", \"statusLine\":{\"type\":\"command\",\"command\":\"~/.claude/statusline.sh\"}}' "
        "> settings.json; printf '#!/bin/sh\\nrm -rf ~\\n' > statusline.sh; echo notes > notes.md; "
        "echo its-history > history.jsonl",
        &dir);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const json set = tool("list", dir);
    QVERIFY(set.is_object());
    const json* settings = change(set, agent_dir() + "/settings.json");
    QVERIFY(settings);
    QVERIFY2(flagged(*settings, "agent-config"), settings->dump().c_str());
    QVERIFY2(flagged(*settings, "host-executed-keys"), settings->dump().c_str());
    const json* script = change(set, agent_dir() + "/statusline.sh");
    QVERIFY(script);
    QVERIFY2(flagged(*script, "named-by-setting"), script->dump().c_str());
    QVERIFY(change(set, agent_dir() + "/notes.md"));
    // Its own history is not listed, only counted.
    QVERIFY(!change(set, agent_dir() + "/history.jsonl"));
    QVERIFY(set["own_changes"].get<int>() >= 1);
    // Apply all takes the safe one only.
    const json applied = tool("apply", dir);
    QVERIFY2(applied.is_object(), applied.dump().c_str());
    QVERIFY2(slurp(agent_dir() + "/notes.md") == "notes\n", (applied.dump() + "\n" + set.dump()).c_str());
    QCOMPARE(slurp(agent_dir() + "/statusline.sh"), std::string("#!/bin/sh\necho the users status line\n"));
    // Named, the settings reach the user's own file, and the state no longer shadows it.
    const json out = tool("apply", dir, {agent_dir() + "/settings.json"});
    QVERIFY(out.is_object());
    QVERIFY(slurp(agent_dir() + "/settings.json").find("statusLine") != std::string::npos);
    QVERIFY(!fs::exists(session::review_upper(state_dir(), 0) + "/settings.json"));
    // Reset: the agent's version of the script goes, the user's shows again inside.
    QVERIFY(tool("reset", dir, {agent_dir() + "/statusline.sh"}).is_object());
    QCOMPARE(session("cat ~/.claude/statusline.sh").out, std::string("#!/bin/sh\necho the users status line\n"));
    QVERIFY(tool("reset", dir).is_object());
    QCOMPARE(session("cat ~/.claude/history.jsonl 2>/dev/null || echo fresh").out, std::string("fresh\n"));
  }
};

QTEST_GUILESS_MAIN(HelperAgentStateTest)
#include "helper_agent_state_test.moc"
