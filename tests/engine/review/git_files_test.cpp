// Git's index and loose objects read from their bytes (engine/review/git_index.h, git_object.h),
// checked against files real git wrote in a scratch repository of the test's own: every index
// version, a gitlink among the entries, commits and their parents; and bytes that are not what
// git writes are errors, never guesses.
#include <QtTest>

#include <filesystem>

#include "engine/review/git_index.h"
#include "engine/review/git_object.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::review;
using paddock::test::put;
using paddock::test::slurp;

class GitFilesTest : public QObject {
  Q_OBJECT
  std::string repo_;

  std::string git(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"git", "-C", repo_, "-c", "user.email=t@example.invalid", "-c", "user.name=t"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = paddock::test::run_process(argv);
    if (r.exit_code != 0) qFatal("git failed: %s", r.err.c_str());
    std::string out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

 private slots:
  void init() {
    char tmpl[] = "/tmp/paddock-git-XXXXXX";
    QVERIFY(::mkdtemp(tmpl));
    repo_ = tmpl;
    git({"init", "-q", "."});
    put(repo_ + "/a.txt", "a\n");
    std::filesystem::create_directories(repo_ + "/dir/deeper");
    put(repo_ + "/dir/deeper/b.txt", "b\n");
    git({"add", "-A"});
    git({"commit", "-qm", "first"});
  }
  void cleanup() { std::filesystem::remove_all(repo_); }

  void every_index_version_git_writes_parses_with_its_paths_and_modes() {
    const std::string head = git({"rev-parse", "HEAD"});
    git({"update-index", "--add", "--cacheinfo", "160000," + head + ",vendor/evil"});
    for (const char* version : {"2", "3", "4"}) {
      git({"update-index", "--index-version", version});
      auto entries = parse_git_index(slurp(repo_ + "/.git/index"));
      QVERIFY2(entries.ok(), entries.ok() ? version : entries.error().message.c_str());
      QCOMPARE(entries->size(), std::size_t{3});
      QCOMPARE((*entries)[0].path, std::string("a.txt"));
      QCOMPARE((*entries)[1].path, std::string("dir/deeper/b.txt"));
      QCOMPARE((*entries)[2].path, std::string("vendor/evil"));
      QCOMPARE((*entries)[2].mode, kGitlinkMode);
      QCOMPARE((*entries)[0].mode, std::uint32_t{0100644});
    }
  }

  void an_added_gitlink_is_found_by_comparing_two_indexes() {
    auto before = parse_git_index(slurp(repo_ + "/.git/index"));
    QVERIFY(before.ok());
    git({"update-index", "--add", "--cacheinfo", "160000," + git({"rev-parse", "HEAD"}) + ",sub"});
    auto after = parse_git_index(slurp(repo_ + "/.git/index"));
    QVERIFY(after.ok());
    QCOMPARE(added_gitlinks(*before, *after), std::vector<std::string>{"sub"});
    QVERIFY(added_gitlinks(*after, *after).empty());
  }

  void an_index_that_is_not_what_git_writes_is_an_error() {
    std::string bytes = slurp(repo_ + "/.git/index");
    QVERIFY(!parse_git_index("").ok());
    QVERIFY(!parse_git_index("DIRC").ok());
    QVERIFY(!parse_git_index(std::string("XIRC") + bytes.substr(4)).ok());
    QVERIFY(!parse_git_index(bytes.substr(0, bytes.size() / 2)).ok());
    std::string big = bytes;
    big[11] = 100;  // 100 entries claimed
    QVERIFY(!parse_git_index(big).ok());
    std::string v9 = bytes;
    v9[7] = 9;
    QVERIFY(!parse_git_index(v9).ok());
  }

  void a_loose_commit_inflates_and_parses_with_its_parents_and_subject() {
    put(repo_ + "/a.txt", "a2\n");
    git({"commit", "-qam", "second change\n\nwith a body"});
    const std::string id = git({"rev-parse", "HEAD"}), parent = git({"rev-parse", "HEAD~1"});
    QVERIFY(is_object_id(id));
    auto obj = inflate_loose_object(slurp(repo_ + "/.git/objects/" + id.substr(0, 2) + "/" + id.substr(2)));
    QVERIFY2(obj.ok(), obj.ok() ? "" : obj.error().message.c_str());
    QCOMPARE(obj->type, std::string("commit"));
    auto c = parse_commit(obj->body);
    QVERIFY(c.ok());
    QCOMPARE(c->parents, std::vector<std::string>{parent});
    QCOMPARE(c->subject, std::string("second change"));
    QCOMPARE(ref_file_id(slurp(repo_ + "/.git/refs/heads/" + git({"branch", "--show-current"}))), id);
    QCOMPARE(ref_file_id("ref: refs/heads/main\n"), std::string());
  }

  void truncated_or_lying_objects_are_errors() {
    const std::string id = git({"rev-parse", "HEAD"});
    const std::string bytes = slurp(repo_ + "/.git/objects/" + id.substr(0, 2) + "/" + id.substr(2));
    QVERIFY(!inflate_loose_object(bytes.substr(0, bytes.size() - 4)).ok());
    QVERIFY(!inflate_loose_object("not zlib").ok());
    QVERIFY(!inflate_loose_object(bytes, 10).ok());  // larger than the bound
    QVERIFY(!parse_commit("no tree here\n\nmsg").ok());
  }
};

QTEST_APPLESS_MAIN(GitFilesTest)
#include "git_files_test.moc"
