#include <QtTest>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>

#include "engine/glob.h"

using namespace paddock;

class GlobTest : public QObject {
  Q_OBJECT
 private slots:
  void components_match_star_question_and_classes() {
    QVERIFY(match_component("*.pem", "a.pem"));
    QVERIFY(match_component("*.pem", ".hidden.pem"));
    QVERIFY(!match_component("*.pem", "a.pem.bak"));
    QVERIFY(match_component("?.c", "x.c"));
    QVERIFY(match_component("[a-c]x", "bx"));
    QVERIFY(!match_component("[!a-c]x", "bx"));
    QVERIFY(match_component(".[eE][nN][vV].*", ".ENV.local"));
    QVERIFY(match_component("*.pem", "A.PEM", /*case_insensitive=*/true));
    QVERIFY(!match_component("*.pem", "A.PEM"));
  }

  void globstar_matches_at_any_depth_and_never_follows_symlinks() {
    QTemporaryDir tmp;
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    for (const char* f : {"a.pem", "x/b.pem", "x/y/z/c.pem", "x/note.txt"}) {
      std::filesystem::create_directories(std::filesystem::path(root + "/" + f).parent_path());
      std::ofstream(root + "/" + f) << "k";
    }
    std::filesystem::create_directory_symlink("/usr", root + "/link");
    std::vector<GlobJob> jobs = {{root + "/**/*.pem", "test", {}}, {root + "/x/*", "test2", {}}};
    QVERIFY(expand_globs(jobs).ok());
    QCOMPARE(jobs[0].matches, (std::vector<std::string>{root + "/a.pem", root + "/x/b.pem", root + "/x/y/z/c.pem"}));
    QCOMPARE(jobs[1].matches, (std::vector<std::string>{root + "/x/b.pem", root + "/x/note.txt", root + "/x/y"}));
  }

  void no_match_is_an_empty_set() {
    std::vector<GlobJob> jobs = {{"/nonexistent-dir-paddock/**/*.x", "t", {}}};
    QVERIFY(expand_globs(jobs).ok());
    QVERIFY(jobs[0].matches.empty());
  }

  void more_than_the_budget_of_matches_is_an_error_not_a_truncation() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    for (std::size_t i = 0; i <= kGlobMatchBudget; ++i) std::ofstream(root + "/f" + std::to_string(i));
    std::vector<GlobJob> jobs = {{root + "/*", "file:1:1: key 'filesystem.deny[0]'", {}}};
    auto s = expand_globs(jobs);
    QVERIFY(!s.ok());
    QCOMPARE(s.error().code, ErrorCode::kRefused);
    QVERIFY2(s.error().message.find("file:1:1: key 'filesystem.deny[0]'") != std::string::npos, s.error().message.c_str());
  }
};

QTEST_APPLESS_MAIN(GlobTest)
#include "glob_test.moc"
