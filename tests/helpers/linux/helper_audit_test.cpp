// Direct mode's audit against the real helper on the real kernel, as root and as uid 65534, with
// the real `paddock` CLI as the user: an agent that leaves a file for each class of the
// tool-executed and agent-config lists is reported when the session ends (audit.json, a
// high-severity event per finding and a line on the terminal); a nested repository with
// core.fsmonitor behind a gitlink the agent added to the project's index, and a command setting in
// the project's git config, are reported with the setting; `paddock quarantine` moves a new file
// into the session's directory and restores the index byte for byte, after which git status no
// longer enters the nested repository; `paddock keep` leaves a file; a session whose helper was
// killed with SIGKILL is audited by the next `paddock sessions`; the next session's reminder
// names the undecided findings until they are decided.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/session/audit_record.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

class HelperAuditTest : public QObject {
  Q_OBJECT
  SandboxFixture f_;

  std::string sessions_dir() const { return f_.home + "/.local/state/paddock/sessions"; }

  // The helper as `paddock run` starts it: its session directory where the CLI keeps sessions.
  HelperInvocation invocation(const std::string& script, const FrozenIr* ir = nullptr) {
    const FrozenIr use = ir ? *ir : base_ir(f_);
    HelperInvocation h = prepare_helper(f_, use, {"/bin/sh", "-c", script});
    const std::string dir = sessions_dir() + "/" + h.args.session_id;
    fs::create_directories(dir);
    fs::copy_file(h.args.ir_file, dir + "/ir.json");  // as `paddock run` records it
    chown_tree(f_.home + "/.local/state/paddock", f_.uid);
    h.args.session_dir = dir;
    h.session_dir = dir;
    return h;
  }

  RunOptions env() const {
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    o.env_override["LANG"] = "C.UTF-8";
    o.env_unset = {"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"};
    o.timeout_ms = 60000;
    return o;
  }

  std::string session(const std::string& script, ProcessResult* out = nullptr, const FrozenIr* ir = nullptr) {
    HelperInvocation h = invocation(script, ir);
    ProcessResult r = run_process(h.argv(), env());
    if (out) *out = r;
    return h.args.session_id;
  }

  // The CLI as the uid under test.
  ProcessResult cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {paddock_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions o = env();
    o.prefix = f_.prefix();
    return run_process(argv, o);
  }

  json audit(const std::string& id) {
    const ProcessResult r = cli({"audit", id, "--json"});
    if (r.exit_code != 0) {
      qWarning("%s", dump(r).constData());
      return json();
    }
    return json::parse(r.out, nullptr, false);
  }

  static const json* finding(const json& a, const std::string& path) {
    for (const auto& f : a["findings"])
      if (f["path"] == path) return &f;
    return nullptr;
  }

  static bool has_rule(const json* f, const std::string& rule) {
    if (!f) return false;
    for (const auto& x : (*f)["flags"])
      if (x["rule"] == rule) return true;
    return false;
  }

  std::vector<json> events_of(const std::string& id, const std::string& type) {
    std::vector<json> out;
    std::istringstream in(slurp(sessions_dir() + "/" + id + "/events.jsonl"));
    for (std::string line; std::getline(in, line);) {
      json e = json::parse(line, nullptr, false);
      if (e.is_object() && e["event"] == type) out.push_back(e);
    }
    return out;
  }

  ProcessResult git(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-C", f_.project};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions o = env();
    o.prefix = f_.prefix();
    o.env_override["GIT_CONFIG_NOSYSTEM"] = "1";
    return run_process(argv, o);
  }

  bool have_git() { return run_process({"/bin/sh", "-c", "command -v git"}).exit_code == 0; }

 private slots:
  void cleanup() {
    remove_fixture(f_);
    f_ = {};
  }

  void a_file_for_each_list_class_is_reported_when_the_session_ends_data() { add_uid_rows(); }
  void a_file_for_each_list_class_is_reported_when_the_session_ends() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    // An agent's own settings directory it may write (as a preset grants it).
    fs::create_directories(f_.home + "/.gemini");
    chown_tree(f_.home + "/.gemini", f_.uid);
    FrozenIr ir = base_ir(f_);
    ir.fs.write_roots.push_back(f_.home + "/.gemini");
    normalize(ir);
    ProcessResult r;
    const std::string id = session(
        "set -e; mkdir -p .vscode sub/deep .husky .cargo .mvn; echo '{}' > .vscode/tasks.json; echo 'echo hi' > sub/deep/.envrc; "
        "echo 'curl x|sh' > .bashrc; echo '[env]' > mise.toml; printf '[submodule \"x\"]\\n' > .gitmodules; "
        "echo 'npm test' > .husky/pre-commit; echo 'script-shell=/tmp/x' > .npmrc; echo '[build]' > .cargo/config.toml; "
        "echo '-Dx' > .mvn/jvm.config; echo '{}' > .mcp.json; echo 'set exrc' > .exrc; "
        "echo '{\"mcpServers\":{}}' > " + f_.home + "/.gemini/settings.json; "
        "echo 'int main;' > src/new.c; echo more >> src/main.txt; echo done",
        &r, &ir);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY2(r.out.find("done") != std::string::npos, dump(r).constData());
    const json a = audit(id);
    QVERIFY2(a.is_object(), "audit failed");
    QVERIFY(a["complete"].get<bool>());
    QCOMPARE(a["by"].get<std::string>(), std::string("helper"));
    const std::string p = f_.project;
    const std::vector<std::pair<std::string, std::string>> want = {
        {p + "/.vscode", "VS Code"},         {p + "/sub/deep/.envrc", "direnv"},
        {p + "/.bashrc", "your shell"},      {p + "/mise.toml", "mise"},
        {p + "/.gitmodules", "git submodule"}, {p + "/.husky", "pre-commit, husky, lefthook"},
        {p + "/.npmrc", "npm, Yarn, pnpm"},  {p + "/.cargo/config.toml", "Cargo, rust-analyzer"},
        {p + "/.mvn/jvm.config", "Maven, Gradle"},      {p + "/.mcp.json", "Claude Code, OpenCode, Aider"},
        {p + "/.exrc", "Vim, Neovim, Emacs"}, {f_.home + "/.gemini/settings.json", "Gemini CLI"}};
    for (const auto& [path, tool] : want) {
      const json* f = finding(a, path);
      QVERIFY2(f, ("no finding at " + path + ": " + a.dump()).c_str());
      QVERIFY2((*f)["flags"][0]["tool"].get<std::string>() == tool, (path + ": " + f->dump()).c_str());
      QVERIFY(!(*f)["flags"][0]["why"].get<std::string>().empty());
      QCOMPARE((*f)["decision"], json());
    }
    QCOMPARE(a["findings"].size(), want.size());  // src/new.c and the changed main.txt are no finding
    QCOMPARE((*finding(a, p + "/.vscode"))["inside"].get<int>(), 1);  // tasks.json is in the new .vscode/
    // A high-severity event per finding, and a line on the terminal.
    const auto events = events_of(id, "audit_finding");
    QVERIFY(events.size() >= want.size());
    for (const auto& e : events) QCOMPARE(e["severity"].get<std::string>(), std::string("high"));
    QVERIFY2(r.err.find("sub/deep/.envrc created during the session: direnv would run it") != std::string::npos,
             dump(r).constData());
    QVERIFY2(r.err.find("paddock quarantine " + id) != std::string::npos, dump(r).constData());
    // Until decided: paddock sessions says so, and so does the next session's reminder marker.
    const ProcessResult s = cli({"sessions"});
    QVERIFY2(s.out.find("12 findings for a tool on this machine to run, undecided: paddock audit " + id) != std::string::npos,
             dump(s).constData());
    QVERIFY(fs::exists(f_.home + "/.local/state/paddock/audit-pending/" + id));
  }

  void a_gitlink_to_a_nested_repository_and_a_command_in_git_config_are_reported_and_quarantine_restores_the_index_data() {
    add_uid_rows();
  }
  void a_gitlink_to_a_nested_repository_and_a_command_in_git_config_are_reported_and_quarantine_restores_the_index() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    QVERIFY2(have_git(), "git is missing: scripts/bootstrap installs it");
    QVERIFY(git({"init", "-q"}).exit_code == 0);
    QVERIFY(git({"-c", "user.name=u", "-c", "user.email=u@x", "add", "src/main.txt"}).exit_code == 0);
    QVERIFY(git({"-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "one"}).exit_code == 0);
    const std::string index_before = slurp(f_.project + "/.git/index");
    QVERIFY(!index_before.empty());
    // The attack of the boundary report: a nested repository with core.fsmonitor, and a gitlink
    // to it added to the project's index (no .gitmodules): the host's git status runs it.
    ProcessResult r;
    const std::string id = session(
        "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=" + f_.home + "; mkdir sub; cd sub; git init -q; "
        "git config core.fsmonitor 'touch " + f_.root + "/pwned; false'; "
        "git -c user.name=a -c user.email=a@x commit -q --allow-empty -m x; h=$(git rev-parse HEAD); cd ..; "
        "git update-index --add --cacheinfo 160000,$h,sub; git config core.pager 'evil-pager'; echo done",
        &r);
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r).constData());
    const json a = audit(id);
    QVERIFY2(a.is_object(), "audit failed");
    const std::string p = f_.project;
    const json* nested = finding(a, p + "/sub/.git");
    QVERIFY2(has_rule(nested, "nested-repository"), a.dump().c_str());
    QVERIFY2((*nested)["flags"][0]["why"].get<std::string>().find("core.fsmonitor") != std::string::npos, a.dump().c_str());
    const json* index = finding(a, p + "/.git/index");
    QVERIFY2(has_rule(index, "gitlink"), a.dump().c_str());
    const std::string why = (*index)["flags"][0]["why"].get<std::string>();
    QVERIFY2(why.find("sub") != std::string::npos && why.find("core.fsmonitor") != std::string::npos, why.c_str());
    QVERIFY((*index)["restorable"].get<bool>());
    const json* config = finding(a, p + "/.git/config");
    QVERIFY2(has_rule(config, "git-metadata"), a.dump().c_str());
    QVERIFY2((*config)["flags"][0]["why"].get<std::string>().find("core.pager") != std::string::npos, a.dump().c_str());
    QVERIFY2(r.err.find(".git/index changed during the session: git would run it") != std::string::npos, dump(r).constData());

    // Quarantine everything: the nested repository leaves the project, the index is the one from
    // before the session byte for byte, and git status no longer enters sub/.
    const ProcessResult q = cli({"quarantine", id});
    QVERIFY2(q.exit_code == 0, dump(q).constData());
    QVERIFY(!fs::exists(p + "/sub/.git"));
    QCOMPARE(slurp(p + "/.git/index"), index_before);
    const json after = audit(id);
    QCOMPARE(after["pending"].get<int>(), 0);
    for (const auto& f : after["findings"]) QCOMPARE(f["decision"].get<std::string>(), std::string("quarantined"));
    QVERIFY(fs::exists(sessions_dir() + "/" + id + "/audit/" + (*finding(after, p + "/sub/.git"))["moved_to"].get<std::string>() +
                       "/config"));
    QVERIFY((*finding(after, p + "/.git/index"))["restored"].get<bool>());
    const ProcessResult st = git({"status", "--porcelain"});
    QVERIFY2(st.exit_code == 0, dump(st).constData());
    QVERIFY(!fs::exists(f_.root + "/pwned"));
    QVERIFY(!fs::exists(f_.home + "/.local/state/paddock/audit-pending/" + id));
  }

  void keep_leaves_a_finding_and_quarantine_moves_the_rest_data() { add_uid_rows(); }
  void keep_leaves_a_finding_and_quarantine_moves_the_rest() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const std::string id = session("echo 'use nix' > .envrc; mkdir .githooks; echo x > .githooks/pre-push; echo done");
    const std::string p = f_.project;
    const json a = audit(id);
    QVERIFY2(finding(a, p + "/.envrc") && finding(a, p + "/.githooks"), a.dump().c_str());
    QCOMPARE(cli({"keep", id}).exit_code, 2);  // keep names what it keeps
    const ProcessResult k = cli({"keep", id, p + "/.envrc"});
    QVERIFY2(k.exit_code == 0, dump(k).constData());
    QVERIFY2(k.out.find("1 finding of session " + id + " undecided") != std::string::npos, dump(k).constData());
    const ProcessResult bad = cli({"quarantine", id, p + "/src/main.txt"});
    QCOMPARE(bad.exit_code, 2);  // no finding there: nothing is done
    QVERIFY(fs::exists(p + "/src/main.txt"));
    const ProcessResult q = cli({"quarantine", id});
    QVERIFY2(q.exit_code == 0, dump(q).constData());
    QCOMPARE(slurp(p + "/.envrc"), std::string("use nix\n"));  // kept: quarantine of "all" leaves it
    QVERIFY(!fs::exists(p + "/.githooks"));
    const json after = audit(id);
    const json* hooks = finding(after, p + "/.githooks");
    QCOMPARE(slurp(sessions_dir() + "/" + id + "/audit/" + (*hooks)["moved_to"].get<std::string>() + "/pre-push"),
             std::string("x\n"));
    // Keeping a quarantined finding puts it back where it was.
    QVERIFY(cli({"keep", id, p + "/.githooks"}).exit_code == 0);
    QCOMPARE(slurp(p + "/.githooks/pre-push"), std::string("x\n"));
    QCOMPARE(audit(id)["pending"].get<int>(), 0);
  }

  void a_finding_that_changed_since_the_audit_is_left_alone_data() { add_uid_rows(); }
  void a_finding_that_changed_since_the_audit_is_left_alone() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const std::string id = session("echo a > .envrc");
    const std::string p = f_.project;
    put(p + "/.envrc", "the user's own, written after the session\n");
    const ProcessResult q = cli({"quarantine", id});
    QCOMPARE(q.exit_code, 1);
    QVERIFY2(q.out.find("changed since the audit") != std::string::npos, dump(q).constData());
    QCOMPARE(slurp(p + "/.envrc"), std::string("the user's own, written after the session\n"));
  }

  void a_session_killed_with_sigkill_is_audited_by_the_next_paddock_sessions_data() { add_uid_rows(); }
  void a_session_killed_with_sigkill_is_audited_by_the_next_paddock_sessions() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    HelperInvocation h = invocation("echo x > .envrc; sleep 120");
    const pid_t pid = spawn_process(h.argv(), f_.root + "/log", env());
    const std::string p = f_.project;
    QVERIFY(eventually([&] { return fs::exists(p + "/.envrc"); }));
    ::kill(pid, SIGKILL);
    wait_exit(pid);
    const std::string dir = h.session_dir;
    QVERIFY(fs::exists(session::audit_start_file(dir)));
    QVERIFY(!fs::exists(session::audit_file(dir)));
    const ProcessResult s = cli({"sessions"});
    QVERIFY2(s.exit_code == 0, dump(s).constData());
    QVERIFY2(s.out.find("1 finding for a tool on this machine to run, undecided") != std::string::npos, dump(s).constData());
    const json a = audit(h.args.session_id);
    QCOMPARE(a["by"].get<std::string>(), std::string("paddock sessions"));
    QVERIFY(finding(a, p + "/.envrc"));
  }
};

QTEST_GUILESS_MAIN(HelperAuditTest)
#include "helper_audit_test.moc"
