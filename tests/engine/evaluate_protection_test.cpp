// What the engine protects that no layer names one by one: git metadata wherever a repository
// lives in the project (worktrees, submodules, nested clones, none at all), hard links into
// denied directories, and what a deny walk cannot see into.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "engine/engine.h"
#include "tests/engine/engine_test_env.h"
#include "tests/support/skip.h"

using namespace paddock;
using paddock::test::EngineEnv;
using paddock::test::contains;
using paddock::test::has_deny;
using paddock::test::eval_ok;

namespace {


const DenyEntry* protected_entry(const FrozenIr& ir, const std::string& path) {
  for (const auto& d : ir.fs.deny_write)
    if (d.path == path) return &d;
  return nullptr;
}

const WatchedConfig* watched(const FrozenIr& ir, const std::string& path) {
  for (const auto& w : ir.fs.watched_configs)
    if (w.path == path) return &w;
  return nullptr;
}

// The evaluation's outcome as uid 65534 ("ok" or "error: <message>"), from a forked child: for
// root no mode hides a directory.
std::string evaluate_as_nobody(const Inputs& in) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
    auto r = evaluate(in);
    const std::string out = r.ok() ? "ok" : "error: " + r.error().message;
    if (::write(fds[1], out.data(), out.size()) < 0) _exit(4);
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return out;
}

const DenyEntry* denied_entry(const FrozenIr& ir, const std::string& path) {
  for (const auto& d : ir.fs.deny)
    if (d.path == path) return &d;
  return nullptr;
}

void make_git_dir(const EngineEnv& env, const std::string& g) {
  env.write(g + "/HEAD", "ref: refs/heads/main\n");
  env.write(g + "/config", "[core]\n");
  std::filesystem::create_directories(g + "/hooks");
  std::filesystem::create_directories(g + "/objects");
}

}  // namespace

class EvaluateProtectionTest : public QObject {
  Q_OBJECT
 private slots:
  // Paddock's own placeholders (Inputs::placeholders, which the front ends read from the
  // helper's records) are the absent paths they stand for: the IR is byte for byte the one the
  // user's tree alone gives, so an empty `.git` kept for a running session is protected as an
  // absent repository (never treated as the user's, whose inside the agent could fill) and an
  // empty `.npmrc` is no secret-shaped file of the project.
  void paddocks_placeholders_are_seen_as_the_absent_paths_they_stand_for() {
    EngineEnv env;
    env.write(env.project + "/src/main.c", "int main;\n");
    Inputs in = env.inputs();
    const std::string before = canonical_bytes(eval_ok(in).ir);
    const auto* absent_git = protected_entry(eval_ok(in).ir, env.project + "/.git");
    QVERIFY(absent_git && absent_git->kind == PathKind::kAbsentDir);
    std::filesystem::create_directories(env.project + "/.git");
    std::filesystem::create_directories(env.project + "/.vscode");
    env.write(env.project + "/.npmrc", "");
    env.write(env.project + "/.yarnrc.yml", "");
    // As the user's own they change the IR (the .npmrc is masked as a secret-shaped file).
    const auto seen = eval_ok(in).ir;
    QVERIFY(canonical_bytes(seen) != before);
    QVERIFY(denied_entry(seen, env.project + "/.npmrc"));
    in.placeholders = {env.project + "/.git", env.project + "/.npmrc", env.project + "/.vscode",
                       env.project + "/.yarnrc.yml"};
    const auto hidden = eval_ok(in).ir;
    QCOMPARE(QString::fromStdString(canonical_bytes(hidden)), QString::fromStdString(before));
    QVERIFY(!denied_entry(hidden, env.project + "/.npmrc"));
  }

  void protect_agent_config_keeps_the_agents_settings_read_only_but_not_their_state_files() {
    EngineEnv env;
    env.write(env.home + "/.claude/settings.json", "{}");
    env.write(env.home + "/.claude.json", "{}");
    Inputs in = env.inputs();
    in.agent = "claude-code";
    auto plain = eval_ok(in);
    QVERIFY(!protected_entry(plain.ir, env.home + "/.claude/settings.json"));
    // A repository layer may turn it on: it only narrows what the agent may write.
    env.repo("version: 1\nfilesystem:\n  protect_agent_config: true\n");
    in = env.inputs();
    in.agent = "claude-code";
    auto e = eval_ok(in);
    const auto* settings = protected_entry(e.ir, env.home + "/.claude/settings.json");
    QVERIFY(settings && settings->kind == PathKind::kFile);
    QVERIFY(!protected_entry(e.ir, env.home + "/.claude.json"));  // Claude Code's state: watched only
    QVERIFY(contains(e.ir.fs.write_roots, env.home + "/.claude"));
  }

  // The helper compares the agents' settings that name host commands before and after a session,
  // wherever the session can write them (whichever agent runs), and nowhere else: not outside the
  // write roots, not once protect_agent_config keeps them read-only.
  void the_agents_settings_the_session_can_write_are_watched_and_no_others() {
    EngineEnv env;
    env.write(env.home + "/.claude/settings.json", "{}");
    env.write(env.home + "/.claude.json", "{}");
    env.write(env.home + "/.codex/config.toml", "");
    env.write(env.home + "/dotfiles/claude-settings.json", "{}");
    Inputs in = env.inputs();
    in.agent = "claude-code";
    auto e = eval_ok(in);
    const auto* settings = watched(e.ir, env.home + "/.claude/settings.json");
    QVERIFY(settings && settings->format == "json");
    QVERIFY(contains(settings->keys, "hooks") && contains(settings->keys, "statusLine"));
    QVERIFY(e.provenance.contains("fs.watched_configs:" + env.home + "/.claude/settings.json"));
    const auto* state = watched(e.ir, env.home + "/.claude/.claude.json");  // absent now, creatable
    QVERIFY(state && contains(state->keys, "projects.*.mcpServers"));
    QVERIFY(!watched(e.ir, env.home + "/.claude.json"));         // read-only to the session
    QVERIFY(!watched(e.ir, env.home + "/.codex/config.toml"));   // not in the view at all
    QCOMPARE(e.ir.fs.watched_configs.size(), std::size_t(2));

    // Another agent's settings under a grant: watched too. A settings file that is a symlink is
    // watched at its name and, where the session can write it, at its target.
    std::filesystem::remove(env.home + "/.claude/settings.json");
    std::filesystem::create_symlink(env.home + "/dotfiles/claude-settings.json", env.home + "/.claude/settings.json");
    in.allow_writes = {env.home + "/.codex", env.home + "/dotfiles"};
    e = eval_ok(in);
    QVERIFY(watched(e.ir, env.home + "/.codex/config.toml"));
    QVERIFY(watched(e.ir, env.home + "/.claude/settings.json"));
    QVERIFY(watched(e.ir, env.home + "/dotfiles/claude-settings.json"));

    std::filesystem::remove(env.home + "/.claude/settings.json");
    env.write(env.home + "/.claude/settings.json", "{}");
    env.repo("version: 1\nfilesystem:\n  protect_agent_config: true\n");
    in = env.inputs();
    in.agent = "claude-code";
    e = eval_ok(in);
    QVERIFY(!watched(e.ir, env.home + "/.claude/settings.json"));  // read-only: it cannot change
    QVERIFY(watched(e.ir, env.home + "/.claude/.claude.json"));    // the state file stays writable
  }

  void a_repositorys_config_and_hooks_are_protected_and_its_objects_stay_writable() {
    EngineEnv env;
    make_git_dir(env, env.project + "/.git");
    const auto e = eval_ok(env.inputs());
    const auto* config = protected_entry(e.ir, env.project + "/.git/config");
    QVERIFY(config && config->kind == PathKind::kFile);
    const auto* hooks = protected_entry(e.ir, env.project + "/.git/hooks");
    QVERIFY(hooks && hooks->kind == PathKind::kDir);
    QVERIFY(!protected_entry(e.ir, env.project + "/.git"));
    QVERIFY(!protected_entry(e.ir, env.project + "/.git/objects"));
    QVERIFY(e.provenance.contains("fs.deny_write:" + env.project + "/.git/config"));
  }

  void absent_hooks_and_an_absent_repository_are_kept_absent() {
    EngineEnv env;
    env.write(env.project + "/.git/HEAD", "ref: refs/heads/main\n");
    const auto e = eval_ok(env.inputs());
    const auto* hooks = protected_entry(e.ir, env.project + "/.git/hooks");
    QVERIFY(hooks && hooks->kind == PathKind::kAbsentDir);
    const auto* config = protected_entry(e.ir, env.project + "/.git/config");
    QVERIFY(config && config->kind == PathKind::kAbsent);

    EngineEnv bare;
    const auto b = eval_ok(bare.inputs());
    const auto* git = protected_entry(b.ir, bare.project + "/.git");
    QVERIFY(git && git->kind == PathKind::kAbsentDir);
  }

  void submodules_worktrees_and_nested_clones_are_protected_the_same_way() {
    EngineEnv env;
    const std::string g = env.project + "/.git";
    make_git_dir(env, g);
    make_git_dir(env, g + "/modules/libs/inner");  // a submodule named "libs/inner"
    make_git_dir(env, g + "/modules/libs/inner/modules/deeper");
    env.write(env.project + "/libs/inner/.git", "gitdir: ../../.git/modules/libs/inner\n");
    make_git_dir(env, env.project + "/vendor/clone/.git");
    // A linked worktree inside the project: its .git file, its git dir and the common dir's.
    make_git_dir(env, g + "/worktrees/wt");
    env.write(g + "/worktrees/wt/commondir", "../..\n");
    env.write(env.project + "/wt/.git", "gitdir: " + g + "/worktrees/wt\n");
    const auto e = eval_ok(env.inputs());
    for (const std::string& p :
         {g + "/modules/libs/inner/config", g + "/modules/libs/inner/hooks",
          g + "/modules/libs/inner/modules/deeper/config", env.project + "/libs/inner/.git",
          env.project + "/vendor/clone/.git/config", env.project + "/vendor/clone/.git/hooks",
          env.project + "/wt/.git", g + "/worktrees/wt/config", g + "/worktrees/wt/commondir"})
      QVERIFY2(protected_entry(e.ir, p), p.c_str());
  }

  void a_hard_link_from_the_project_into_a_denied_directory_is_masked() {
    EngineEnv env;
    env.write(env.home + "/.ssh/id_ed25519", "SECRET");
    std::filesystem::create_hard_link(env.home + "/.ssh/id_ed25519", env.project + "/notes.txt");
    env.write(env.project + "/plain.txt", "x");
    const auto e = eval_ok(env.inputs());
    const auto* d = denied_entry(e.ir, env.project + "/notes.txt");
    QVERIFY(d && d->kind == PathKind::kFile);
    QVERIFY(!has_deny(e.ir, env.project + "/plain.txt"));
    QVERIFY(e.provenance.contains("fs.deny:" + env.project + "/notes.txt"));
  }

  void a_directory_the_deny_walk_cannot_read_is_denied_whole() {
    // Run as uid 65534 (for root no mode hides a directory): the project belongs to it.
    if (::geteuid() != 0)
      PADDOCK_SKIP_USER("only root can hand the tree to uid 65534; the suite runs as uid " + std::to_string(::geteuid()));
    EngineEnv env;
    ::chmod(env.root.c_str(), 0755);
    env.write(env.project + "/hidden/.env", "SECRET");
    for (const auto& p : {env.root, env.home, env.project, env.project + "/hidden", env.project + "/hidden/.env"})
      QVERIFY2(::chown(p.c_str(), 65534, 65534) == 0, p.c_str());
    ::chmod((env.project + "/hidden").c_str(), 0000);
    int fds[2];
    QVERIFY(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
      auto r = evaluate(env.inputs());
      std::string out = r.ok() ? "ok\n" : "error: " + r.error().message + "\n";
      if (r.ok())
        for (const auto& d : r->ir.fs.deny) out += d.path + " " + to_string(d.kind) + "\n";
      if (r.ok())
        for (const auto& w : r->ir.warnings) out += "warning: " + w + "\n";
      if (::write(fds[1], out.data(), out.size()) < 0) _exit(4);
      _exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    ::chmod((env.project + "/hidden").c_str(), 0755);
    QVERIFY2(out.rfind("ok\n", 0) == 0, out.c_str());
    QVERIFY2(out.find(env.project + "/hidden dir\n") != std::string::npos, out.c_str());
    QVERIFY2(out.find("warning: ") != std::string::npos && out.find("denied whole") != std::string::npos, out.c_str());
  }

  void a_project_folder_its_user_cannot_read_is_reported_as_such_before_any_walk() {
    if (::geteuid() != 0)
      PADDOCK_SKIP_USER("only root can hand the tree to uid 65534; the suite runs as uid " + std::to_string(::geteuid()));
    EngineEnv env;
    ::chmod(env.root.c_str(), 0755);
    env.write(env.project + "/.env", "SECRET");
    for (const auto& p : {env.root, env.home, env.project})
      QVERIFY2(::chown(p.c_str(), 65534, 65534) == 0, p.c_str());
    auto in = env.inputs();
    in.environment["USER"] = "nobody";
    // Neither listed nor entered (mode 000), and listed but not entered (mode 0600).
    for (const mode_t mode : {mode_t{0000}, mode_t{0600}}) {
      ::chmod(env.project.c_str(), mode);
      const std::string out = evaluate_as_nobody(in);
      ::chmod(env.project.c_str(), 0755);
      QVERIFY2(out == "error: the project folder " + env.project + " cannot be read by nobody (Permission denied); give "
                          "nobody read access to it, or choose a folder it can read",
               out.c_str());
    }
    // A grant it cannot read is named as unreadable, not as a tree too large to scan.
    const std::string locked = env.root + "/locked";
    std::filesystem::create_directories(locked);
    ::chmod(locked.c_str(), 0700);  // root's, not uid 65534's
    in.allow_reads = {locked};
    const std::string out = evaluate_as_nobody(in);
    QVERIFY2(out.rfind("error: " + locked + " cannot be read by nobody (Permission denied)", 0) == 0, out.c_str());
    QVERIFY2(out.find("walks more than") == std::string::npos, out.c_str());
  }
};

QTEST_GUILESS_MAIN(EvaluateProtectionTest)
#include "evaluate_protection_test.moc"
