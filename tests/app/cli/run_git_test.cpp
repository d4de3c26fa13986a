// `paddock run` and the git metadata an agent could use to make the host's git run its code:
// the files that tell git where to read its config, hooks or common directory, in every git dir
// Paddock protects; a FIFO where the engine or git reads; a symlink planted where git reads its
// hooks; a `gitdir:` pointer that only a physical resolution follows right; and a project that is
// a linked worktree, or holds a submodule, where git must still work. The real CLI, engine,
// helper and kernel, as root and as uid 65534.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;

namespace {

const char* kGitId = "git -c user.email=a@b -c user.name=a -c init.defaultBranch=main";

bool exists_at_all(const std::string& p) { return fs::exists(fs::symlink_status(p)); }

}  // namespace

class RunGitTest : public QObject {
  Q_OBJECT

  CliHome h_;

  std::string tier_;  // the row's: "namespaces", or "landlock"

  void setup_row() {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    tier_ = tier.toStdString();
    QVERIFY(h_.create(uid, "git", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
  }

  std::vector<std::string> run_argv(const std::string& script) const {
    std::vector<std::string> argv = tier_run_argv(tier_);
    argv.insert(argv.end(), {"--", "sh", "-c", script});
    return argv;
  }

  // git on the host, as the test (root) over files a row may have handed to uid 65534.
  ProcessResult git(const std::string& dir, const std::string& args) {
    return run_process({"sh", "-c", std::string(kGitId) + " -c safe.directory='*' -C '" + dir + "' " + args});
  }

  ProcessResult run_sh(const std::string& script, RunOptions opts) {
    return run_process(run_argv(script), opts);
  }
  ProcessResult run_sh(const std::string& script) { return run_sh(script, h_.opts); }

  // A repository with one commit at `dir`.
  void make_repo(const std::string& dir) {
    fs::create_directories(dir);
    auto r = git(dir, "init -q . && echo one > " + dir + "/one.txt && " + kGitId + " -C '" + dir +
                          "' add one.txt && " + kGitId + " -C '" + dir + "' commit -qm one");
    QVERIFY2(r.exit_code == 0, dump(r));
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  // commondir, config.worktree, gitdir and info/ cannot be created (or rewritten) in the
  // project's .git, in a nested repository's or in a submodule's git dir, and git still works.
  void files_that_redirect_git_cannot_be_created_in_any_git_dir_data() { add_uid_and_tier_rows(false); }
  void files_that_redirect_git_cannot_be_created_in_any_git_dir() {
    setup_row();
    make_repo(h_.project);
    make_repo(h_.project + "/vendor/lib");
    h_.chown_all();
    std::string script;
    for (const std::string& g : {std::string(".git"), std::string("vendor/lib/.git")})
      for (const char* name : {"commondir", "config.worktree", "gitdir"})
        script += "echo /tmp/evil > " + g + "/" + name + " && echo made " + g + "/" + name + "; ";
    script += "mkdir -p .git/info && echo '*' > .git/info/exclude && echo made info; ";
    script += "echo x > new.txt && " + std::string(kGitId) + " add new.txt && " + kGitId + " commit -qm two && echo committed";
    auto r = run_sh(script);
    QVERIFY2(r.out.find("committed") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("made") == std::string::npos, dump(r));
    for (const std::string& g : {h_.project + "/.git", h_.project + "/vendor/lib/.git"})
      for (const char* name : {"/commondir", "/config.worktree", "/gitdir"})
        QVERIFY2(!exists_at_all(g + name), (g + name).c_str());
    auto log = git(h_.project, "log --oneline");
    QVERIFY2(log.out.find("two") != std::string::npos, dump(log));
  }

  // A FIFO where the engine or git reads a pointer (a nested ".git" file, a commondir) never holds
  // up a launch.
  void a_fifo_where_git_reads_never_hangs_a_launch_data() { add_uid_and_tier_rows(); }
  void a_fifo_where_git_reads_never_hangs_a_launch() {
    setup_row();
    make_repo(h_.project);
    fs::create_directories(h_.project + "/a");
    QCOMPARE(::mkfifo((h_.project + "/a/.git").c_str(), 0644), 0);
    make_repo(h_.project + "/b");
    QCOMPARE(::mkfifo((h_.project + "/b/.git/commondir").c_str(), 0644), 0);
    h_.chown_all();
    RunOptions opts = h_.opts;
    opts.timeout_ms = 30000;
    auto r = run_sh("echo ran", opts);
    QVERIFY2(r.exit_code == 0 && r.out.find("ran") != std::string::npos, dump(r));
    auto e = run_process({paddock_bin(), "explain"}, opts);
    QVERIFY2(e.exit_code == 0, dump(e));
  }

  // A nested repository's hooks made a symlink to the checkout (or into a loop) by an earlier
  // session: the next session runs, says what it found and how to fix it, and keeps that
  // repository's git metadata read-only.
  void a_symlink_where_git_reads_never_locks_the_project_out_data() { add_uid_and_tier_rows(false); }
  void a_symlink_where_git_reads_never_locks_the_project_out() {
    setup_row();
    make_repo(h_.project + "/n");
    make_repo(h_.project + "/m");
    fs::remove_all(h_.project + "/n/.git/hooks");
    fs::create_symlink("../..", h_.project + "/n/.git/hooks");
    fs::remove_all(h_.project + "/m/.git/hooks");
    fs::create_symlink("hooks", h_.project + "/m/.git/hooks");  // a loop
    h_.chown_all();
    auto r = run_sh("echo evil > n/.git/config && echo config; rm n/.git/hooks && echo unlinked; "
                    "rm m/.git/hooks && echo unlinked-loop; echo ok > file.txt && echo wrote");
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("config") == std::string::npos && r.out.find("unlinked") == std::string::npos, dump(r));
    QVERIFY2(r.err.find("n/.git/hooks") != std::string::npos && r.err.find("rm -- ") != std::string::npos, dump(r));
    QVERIFY(fs::is_symlink(h_.project + "/n/.git/hooks"));
    // The next session runs too.
    auto again = run_sh("echo again");
    QVERIFY2(again.exit_code == 0 && again.out.find("again") != std::string::npos, dump(again));
  }

  // `gitdir: hop/../gd` with hop a symlink: git resolves hop first, then "..", and so must the
  // protection, or the git dir git uses is writable.
  void a_gitdir_pointer_is_followed_as_git_follows_it_data() { add_uid_and_tier_rows(); }
  void a_gitdir_pointer_is_followed_as_git_follows_it() {
    setup_row();
    make_repo(h_.project + "/x/gd-repo");
    fs::rename(h_.project + "/x/gd-repo/.git", h_.project + "/x/gd");
    fs::create_directories(h_.project + "/x/y");
    fs::create_directories(h_.project + "/sub");
    fs::create_symlink("../x/y", h_.project + "/sub/hop");
    put(h_.project + "/sub/.git", "gitdir: hop/../gd\n");
    const std::string config = slurp(h_.project + "/x/gd/config");
    h_.chown_all();
    auto r = run_sh("git -C sub config core.fsmonitor 'touch /tmp/x' && echo configured; "
                    "echo x > x/gd/hooks/post-checkout && echo hooked; ln -sfn /tmp sub/hop && echo relinked; "
                    "git -C sub status --short >/dev/null && echo status");
    QVERIFY2(r.out.find("status") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("configured") == std::string::npos && r.out.find("hooked") == std::string::npos &&
                 r.out.find("relinked") == std::string::npos,
             dump(r));
    QCOMPARE(slurp(h_.project + "/x/gd/config"), config);
  }

  // A project that is a linked worktree: git works in it (status, add, commit, branch, log), its
  // objects and its branch land in the common repository, whose hooks, config, info/ and other
  // worktrees stay as they were.
  void a_linked_worktree_is_a_working_repository_inside_data() { add_uid_and_tier_rows(false); }
  void a_linked_worktree_is_a_working_repository_inside() {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    tier_ = tier.toStdString();
    QVERIFY(h_.create(uid, "wt", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}, "home", "wt"));
    const std::string main = h_.home + "/main";
    make_repo(main);
    fs::remove_all(h_.project);
    auto add = git(main, "worktree add -q '" + h_.project + "' -b work");
    QVERIFY2(add.exit_code == 0, dump(add));
    auto other = git(main, "worktree add -q '" + h_.home + "/other' -b other");
    QVERIFY2(other.exit_code == 0, dump(other));
    const std::string config = slurp(main + "/.git/config");
    const std::string other_head = slurp(main + "/.git/worktrees/other/HEAD");
    h_.chown_all();
    const std::string g = kGitId;
    auto r = run_sh(g + " status --short && echo status-ok; echo two > two.txt && " + g + " add two.txt && " + g +
                    " commit -qm two && echo commit-ok; " + g + " branch side && echo branch-ok; " + g +
                    " log --oneline | grep -q two && echo log-ok; "
                    "echo evil > " + main + "/.git/hooks/post-commit && echo hooked; " + g +
                    " config core.fsmonitor x && echo configured; echo '*' > " + main +
                    "/.git/info/exclude && echo excluded; echo ref > " + main + "/.git/worktrees/other/HEAD && echo other; "
                    "echo x > " + main + "/.git/worktrees/wt/config.worktree && echo worktree-config; true");
    for (const char* ok : {"status-ok", "commit-ok", "branch-ok", "log-ok"})
      QVERIFY2(r.out.find(ok) != std::string::npos, (std::string(ok) + "\n" + dump(r).toStdString()).c_str());
    for (const char* bad : {"hooked", "configured", "excluded", "other\n", "worktree-config"})
      QVERIFY2(r.out.find(bad) == std::string::npos, (std::string(bad) + "\n" + dump(r).toStdString()).c_str());
    QCOMPARE(slurp(main + "/.git/config"), config);
    QCOMPARE(slurp(main + "/.git/worktrees/other/HEAD"), other_head);
    auto log = git(main, "log --oneline work");
    QVERIFY2(log.out.find("two") != std::string::npos, dump(log));
    auto side = git(main, "rev-parse --verify side");
    QVERIFY2(side.exit_code == 0, dump(side));
    QVERIFY(!exists_at_all(main + "/.git/worktrees/wt/config.worktree"));
  }

  // The landlock tier's loss for git, exactly: .git is a directory above protected paths
  // (config, hooks, the absent commondir), so nothing new can be made directly in it, and git
  // cannot take its index lock: it reads (status, log, diff) but cannot add or commit. Its
  // metadata holds all the same.
  void in_the_landlock_tier_git_reads_but_cannot_commit_data() { add_uid_rows(); }
  void in_the_landlock_tier_git_reads_but_cannot_commit() {
    QFETCH(uint, uid);
    tier_ = "landlock";
    QVERIFY(h_.create(uid, "git", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
    make_repo(h_.project);
    fs::create_directories(h_.project + "/src");
    const std::string config = slurp(h_.project + "/.git/config");
    h_.chown_all();
    const std::string g = kGitId;
    auto r = run_sh(g + " status --short && echo status-ok; " + g + " log --oneline | grep -q . && echo log-ok; "
                    "echo x > src/new.txt && echo wrote; " + g + " add src/new.txt && echo added; " + g +
                    " config core.fsmonitor x && echo configured; echo evil > .git/hooks/pre-commit && echo hooked; true");
    for (const char* ok : {"status-ok", "log-ok", "wrote"})
      QVERIFY2(r.out.find(ok) != std::string::npos, (std::string(ok) + "\n" + dump(r).toStdString()).c_str());
    for (const char* bad : {"added", "configured", "hooked"})
      QVERIFY2(r.out.find(bad) == std::string::npos, (std::string(bad) + "\n" + dump(r).toStdString()).c_str());
    QVERIFY2(r.err.find("index.lock") != std::string::npos, dump(r));
    QCOMPARE(slurp(h_.project + "/.git/config"), config);
    QVERIFY(!exists_at_all(h_.project + "/.git/hooks/pre-commit"));
  }

  // A submodule's git dir lies under the project's .git/modules: git works in the submodule and
  // its config stays read-only.
  void a_submodule_keeps_working_and_its_config_stays_read_only_data() { add_uid_and_tier_rows(false); }
  void a_submodule_keeps_working_and_its_config_stays_read_only() {
    setup_row();
    make_repo(h_.root + "/upstream");
    make_repo(h_.project);
    auto sub = git(h_.project, "-c protocol.file.allow=always submodule add -q '" + h_.root + "/upstream' sub && " +
                                   kGitId + " -C '" + h_.project + "' commit -qm sub");
    QVERIFY2(sub.exit_code == 0, dump(sub));
    const std::string config = slurp(h_.project + "/.git/modules/sub/config");
    h_.chown_all();
    const std::string g = kGitId;
    auto r = run_sh("cd sub && echo s > s.txt && " + g + " add s.txt && " + g + " commit -qm s && echo sub-commit; " + g +
                    " config core.fsmonitor x && echo configured; true");
    QVERIFY2(r.out.find("sub-commit") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("configured") == std::string::npos, dump(r));
    QCOMPARE(slurp(h_.project + "/.git/modules/sub/config"), config);
  }
};

QTEST_GUILESS_MAIN(RunGitTest)
#include "run_git_test.moc"
