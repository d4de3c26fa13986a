// `paddock run` with the shipped default profile against an agent that fights the view: what the
// policy walk cannot read, hard links into denied directories, git metadata with and without a
// repository. The real CLI, engine, helper and kernel, as root and as uid 65534.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;

class RunViewTest : public QObject {
  Q_OBJECT

  CliHome h_;

  std::string tier_;  // the row's: "namespaces", or "landlock"

  void setup_row() {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    tier_ = tier.toStdString();
    QVERIFY(h_.create(uid, "view", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
  }

  std::vector<std::string> run_argv(const std::string& script) const {
    std::vector<std::string> argv = tier_run_argv(tier_);
    argv.insert(argv.end(), {"--", "sh", "-c", script});
    return argv;
  }

  ProcessResult run_sh(const std::string& script) {
    return run_process(run_argv(script), h_.opts);
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  // An agent can chmod its own directory to 000 so that the next session's walk cannot see the
  // secret inside; that directory is then denied whole, and cannot be opened back up.
  void a_directory_the_policy_walk_cannot_read_stays_closed_to_the_agent_data() { add_uid_and_tier_rows(); }
  void a_directory_the_policy_walk_cannot_read_stays_closed_to_the_agent() {
    setup_row();
    fs::create_directories(h_.project + "/stash/deeper");
    put(h_.project + "/stash/deeper/.env", "SECRET-STASHED\n");
    h_.chown_all();
    ::chmod((h_.project + "/stash").c_str(), 0000);
    auto r = run_sh("chmod 755 stash 2>/dev/null; cat stash/deeper/.env 2>/dev/null; echo done");
    ::chmod((h_.project + "/stash").c_str(), 0755);
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
  }

  void a_hard_link_into_a_denied_directory_is_masked_data() { add_uid_and_tier_rows(); }
  void a_hard_link_into_a_denied_directory_is_masked() {
    setup_row();
    put(h_.home + "/.ssh/id_ed25519", "SECRET-KEY\n");
    fs::create_hard_link(h_.home + "/.ssh/id_ed25519", h_.project + "/readme.txt");
    put(h_.project + "/other.txt", "visible\n");
    h_.chown_all();
    auto r = run_sh("cat readme.txt other.txt");
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("visible") != std::string::npos, dump(r));
  }

  // Not in the landlock tier, where git cannot add (run_git_test shows that loss).
  void the_projects_git_metadata_cannot_be_rewritten_or_replaced_data() { add_uid_and_tier_rows(false); }
  void the_projects_git_metadata_cannot_be_rewritten_or_replaced() {
    setup_row();
    auto init = run_process({"git", "init", "-q", h_.project});
    QVERIFY2(init.exit_code == 0, dump(init));
    const std::string config = slurp(h_.project + "/.git/config");
    h_.chown_all();
    auto r = run_sh("git config core.fsmonitor 'touch /tmp/x' && echo configured; "
                    "echo evil > .git/hooks/pre-commit && echo hooked; "
                    "mv .git .git-old && echo moved; echo ok > tracked.txt && echo wrote");
    QVERIFY2(r.out.find("configured") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("hooked") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("moved") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("wrote") != std::string::npos, dump(r));  // the project stays writable
    QCOMPARE(slurp(h_.project + "/.git/config"), config);
    QVERIFY(!fs::exists(h_.project + "/.git/hooks/pre-commit"));
    // What git writes in the course of work still lands.
    auto add = run_sh("git -c user.email=a@b -c user.name=a add tracked.txt && echo added");
    QVERIFY2(add.out.find("added") != std::string::npos, dump(add));
  }

  void a_project_without_a_repository_cannot_be_given_one_by_the_agent_data() { add_uid_and_tier_rows(); }
  void a_project_without_a_repository_cannot_be_given_one_by_the_agent() {
    setup_row();
    h_.chown_all();
    auto r = run_sh("git init -q . && echo initialised; mkdir -p .git/hooks && echo made; true");
    QVERIFY2(r.out.find("initialised") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("made") == std::string::npos, dump(r));
    // The placeholder is gone with the session.
    QVERIFY(!fs::exists(h_.project + "/.git"));
  }
};

QTEST_GUILESS_MAIN(RunViewTest)
#include "run_view_test.moc"
