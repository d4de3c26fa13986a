// The placeholder registry's rules without a sandbox (helpers/linux/placeholders.h): what a
// session may remove, what it must leave to another session or report, and the git patterns
// that hide file placeholders inside the sandbox.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <cstdio>
#include <filesystem>

#include "helpers/linux/placeholders.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::helper;
namespace fs = std::filesystem;

namespace {

Placeholder made(const std::string& path, bool dir, const std::string& content = "") {
  if (dir) fs::create_directories(path);
  else paddock::test::put(path, content);
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return {path, dir, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, content};
}

}  // namespace

class PlaceholdersTest : public QObject {
  Q_OBJECT
 private slots:
  void a_git_pattern_matches_exactly_the_placeholders_path() {
    QCOMPARE(*git_exclude_pattern("/.npmrc"), std::string("/.npmrc"));
    QCOMPARE(*git_exclude_pattern("/sub dir/.yarnrc.yml"), std::string("/sub dir/.yarnrc.yml"));
    // Wildcards and escapes are literal; a leading # or ! cannot occur after the anchoring /.
    QCOMPARE(*git_exclude_pattern("/[WIP] a*b?/x\\y/#!"), std::string("/\\[WIP] a\\*b\\?/x\\\\y/\\#\\!"));
    // git drops unescaped trailing spaces.
    QCOMPARE(*git_exclude_pattern("/name  "), std::string("/name\\ \\ "));
    QVERIFY(!git_exclude_pattern("/two\nlines"));
    QVERIFY(!git_exclude_pattern("relative"));
  }

  void every_component_between_a_grant_and_an_absent_target_is_a_candidate() {
    linux_backend::MountStep s;
    s.op = linux_backend::MountOp::kProtectAbsentFile;
    s.within = "/p";
    s.target = "/p/.cargo/config.toml";
    linux_backend::MountStep other;
    other.op = linux_backend::MountOp::kProtectFile;
    other.within = "/p";
    other.target = "/p/.envrc";
    linux_backend::MountStep pointer = s, masked = s;
    pointer.op = linux_backend::MountOp::kProtectAbsentPointer;
    pointer.target = "/p/.git/commondir";
    masked.op = linux_backend::MountOp::kMaskAbsent;
    masked.target = "/p/.env";
    const std::vector<std::string> want = {"/p/.cargo", "/p/.cargo/config.toml", "/p/.env", "/p/.git", "/p/.git/commondir"};
    QCOMPARE(placeholder_candidates({s, other, pointer, masked}), want);
  }

  // A git pointer's placeholder holds "." (its own directory, which git reads as no pointer): it
  // goes while it holds exactly that; one rewritten to point elsewhere, even at the same size,
  // is reported and kept.
  void a_pointer_placeholder_goes_only_while_it_holds_what_was_put_there() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    auto reg = PlaceholderRegistry::open(root + "/state");
    QVERIFY(reg);
    const Placeholder kept = made(root + "/a/commondir", false, ".\n");
    const Placeholder rewritten = made(root + "/b/commondir", false, ".\n");
    QVERIFY(reg->record({kept, rewritten}));
    {
      std::FILE* f = std::fopen(rewritten.path.c_str(), "r+");
      QVERIFY(f && std::fputs("/\n", f) >= 0);  // same size, same inode
      std::fclose(f);
    }
    const auto problems = reg->sweep();
    QVERIFY(!fs::exists(kept.path));
    QCOMPARE(problems.size(), std::size_t{1});
    QVERIFY2(problems[0].find(rewritten.path) == 0, problems[0].c_str());
    QCOMPARE(paddock::test::slurp(rewritten.path), std::string("/\n"));
  }

  // A placeholder another session holds stays; the last one to use it removes it.
  void a_placeholder_another_session_holds_is_left_to_it() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString(), state = root + "/state";
    auto first = PlaceholderRegistry::open(state);
    auto second = PlaceholderRegistry::open(state);
    QVERIFY(first && second);
    const Placeholder p = made(root + "/.vscode", true);
    QVERIFY(first->record({p}));
    QVERIFY(second->hold({p.path}));
    QVERIFY(first->sweep().empty());
    QVERIFY(fs::exists(p.path));
    QVERIFY(second->sweep().empty());
    QVERIFY(!fs::exists(p.path));
    // Nothing is left of the registry's own files but its lock.
    std::vector<std::string> left;
    for (const auto& e : fs::recursive_directory_iterator(state)) left.push_back(e.path().filename().string());
    QCOMPARE(left, std::vector<std::string>({".lock", "locks"}));
  }

  // One that was written to, or replaced, is not Paddock's any more: a filled one is reported,
  // a replaced one left alone silently.
  void a_filled_placeholder_is_reported_and_kept_and_a_replaced_one_left_alone() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    auto reg = PlaceholderRegistry::open(root + "/state");
    QVERIFY(reg);
    const Placeholder git = made(root + "/.git", true);
    const Placeholder npmrc = made(root + "/.npmrc", false);
    QVERIFY(reg->record({git, npmrc}));
    paddock::test::put(root + "/.git/HEAD", "ref: refs/heads/main\n");
    fs::remove(npmrc.path);
    paddock::test::put(npmrc.path, "");  // the user's own, empty, at the same name
    const auto problems = reg->sweep();
    QCOMPARE(problems.size(), std::size_t{1});
    QVERIFY2(problems[0].find(git.path) == 0 && problems[0].find("repository") != std::string::npos, problems[0].c_str());
    QVERIFY(fs::exists(root + "/.git/HEAD"));
    QVERIFY(fs::exists(npmrc.path));
  }
};

QTEST_GUILESS_MAIN(PlaceholdersTest)
#include "placeholders_test.moc"
