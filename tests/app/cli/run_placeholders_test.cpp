// Paddock's placeholders (docs/architecture.md, "The mount view", step 4) seen as git and as the
// next session see them, through `paddock run` with the shipped default profile: the real CLI,
// engine, helper, git and kernel, as root and as uid 65534. The default profile keeps absent
// tool-executed names (.npmrc, .yarnrc.yml, .vscode/, .idea/, .claude/, .devcontainer/) absent
// with placeholders, so every project without them gets some.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;

class RunPlaceholdersTest : public QObject {
  Q_OBJECT

  CliHome h_;

  void setup_row() {
    QFETCH(uint, uid);
    QVERIFY(h_.create(uid, "ph", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}));
  }

  ProcessResult run_sh(const std::string& script) {
    return run_process({paddock_bin(), "run", "--", "sh", "-c", script}, h_.opts);
  }

  // git on the host, as the row's uid (a root-owned repository is "dubious" to another uid).
  ProcessResult host_git(const std::vector<std::string>& args) {
    std::vector<std::string> argv = as_uid(h_.uid);
    for (const char* a : {"git", "-c", "user.email=u@example.invalid", "-c", "user.name=user", "-C"}) argv.push_back(a);
    argv.push_back(h_.project);
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }

  // A repository with one committed file, as the user leaves it.
  void make_repository() {
    put(h_.project + "/README", "hello\n");
    h_.chown_all();
    QVERIFY(host_git({"init", "-q"}).exit_code == 0);
    QVERIFY(host_git({"add", "README"}).exit_code == 0);
    auto c = host_git({"commit", "-qm", "start"});
    QVERIFY2(c.exit_code == 0, dump(c));
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  // The agent's `git add -A && git commit` holds only its own changes, and after the session the
  // user's tree holds exactly the agent's writes: no placeholder reaches git, inside or after.
  void an_agents_commit_holds_only_its_own_changes_and_the_host_tree_only_its_writes_data() { add_uid_rows(); }
  void an_agents_commit_holds_only_its_own_changes_and_the_host_tree_only_its_writes() {
    setup_row();
    make_repository();
    const std::string exclude_before = slurp(h_.project + "/.git/info/exclude");
    auto r = run_sh("ls -a; echo status:; git status --porcelain; echo end-status; "
                    "echo more >> README && echo mine > agent.txt && git add -A && "
                    "git -c user.email=a@example.invalid -c user.name=agent commit -qm agent && echo committed; "
                    "echo files:; git show --name-only --format= HEAD; echo end-files; "
                    "echo later > uncommitted.txt");
    QVERIFY2(r.exit_code == 0, dump(r));
    // The placeholders were there (the names were kept), and git inside did not see them.
    QVERIFY2(r.out.find(".npmrc") != std::string::npos, dump(r));
    const auto between = [&](const std::string& a, const std::string& b) {
      const auto i = r.out.find(a), j = r.out.find(b);
      return i == std::string::npos || j == std::string::npos ? std::string("<missing>") : r.out.substr(i + a.size(), j - i - a.size());
    };
    QCOMPARE(between("status:\n", "end-status"), std::string(""));
    QVERIFY2(r.out.find("committed") != std::string::npos, dump(r));
    QCOMPARE(between("files:\n", "end-files"), std::string("README\nagent.txt\n"));
    // After the session: the commit is the agent's, the tree shows its one uncommitted write, and
    // nothing of Paddock's is left (not even in .git).
    auto status = host_git({"status", "--porcelain", "--untracked-files=all"});
    QCOMPARE(QString::fromStdString(status.out), QString("?? uncommitted.txt\n"));
    for (const char* name : {".npmrc", ".yarnrc.yml", ".vscode", ".idea", ".claude", ".devcontainer"})
      QVERIFY2(!fs::exists(h_.project + "/" + name), name);
    QCOMPARE(slurp(h_.project + "/.git/info/exclude"), exclude_before);
  }

  // A repository made without info/exclude (an empty template): the sandbox gives git one to
  // read, made inside .git for the session and removed with it.
  void a_repository_without_an_exclude_file_is_left_without_one_data() { add_uid_rows(); }
  void a_repository_without_an_exclude_file_is_left_without_one() {
    setup_row();
    make_repository();
    fs::remove_all(h_.project + "/.git/info");
    auto r = run_sh("echo status:; git status --porcelain; echo end-status");
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("status:\nend-status") != std::string::npos, dump(r));
    QVERIFY(!fs::exists(h_.project + "/.git/info"));
    QCOMPARE(QString::fromStdString(host_git({"status", "--porcelain"}).out), QString());
  }

  // While one session runs, its placeholders are Paddock's, not the user's: a second session's
  // policy is the one the user's tree alone gives (the same IR hash), so the empty `.git` kept
  // for the first cannot be filled by the second's agent, and both leave nothing behind.
  void a_second_session_treats_the_first_ones_placeholders_as_absent_data() { add_uid_rows(); }
  void a_second_session_treats_the_first_ones_placeholders_as_absent() {
    setup_row();
    h_.chown_all();
    auto hash_before = run_process({paddock_bin(), "hash"}, h_.opts);
    QVERIFY2(hash_before.exit_code == 0, dump(hash_before));
    const std::string log = h_.root + "/first.log";
    const pid_t first = spawn_process({paddock_bin(), "run", "--", "sh", "-c", "sleep 6"}, log, h_.opts);
    // Once the first session has recorded what it made (while its agent starts).
    const std::string records = h_.root + "/state/paddock/placeholders";
    QVERIFY(eventually(
        [&] {
          std::error_code ec;
          for (const auto& e : fs::directory_iterator(records, ec))
            if (e.path().extension() == ".json") return true;
          return false;
        },
        20));
    QVERIFY(fs::exists(h_.project + "/.git") && fs::exists(h_.project + "/.npmrc"));
    auto hash_during = run_process({paddock_bin(), "hash"}, h_.opts);
    QCOMPARE(QString::fromStdString(hash_during.out), QString::fromStdString(hash_before.out));
    auto second = run_sh("git init -q . && echo initialised; mkdir .git/objects && echo filled; "
                         "echo x > .npmrc && echo wrote-npmrc; true");
    QVERIFY2(second.exit_code == 0, dump(second));
    for (const char* word : {"initialised", "filled", "wrote-npmrc"}) QVERIFY2(second.out.find(word) == std::string::npos, dump(second));
    QCOMPARE(wait_exit(first), 0);
    for (const char* name : {".git", ".npmrc", ".vscode"}) QVERIFY2(!fs::exists(h_.project + "/" + name), name);
  }
};

QTEST_GUILESS_MAIN(RunPlaceholdersTest)
#include "run_placeholders_test.moc"
