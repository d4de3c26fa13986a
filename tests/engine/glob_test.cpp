#include <QtTest>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/glob.h"

using namespace paddock;

namespace {

// Runs the globs as uid 65534 in a child (the test runs as root, for whom no mode hides a
// directory), returning "path\n"... of the first job's matches, or "error: ...".
std::string matches_as_nobody(const std::string& pattern, bool fail_closed) {
  int fds[2];
  if (::pipe(fds) != 0) return "error: pipe";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) _exit(3);
    std::vector<GlobJob> jobs = {{pattern, "test", fail_closed}};
    std::string out;
    if (auto s = expand_globs(jobs); !s.ok()) out = "error: " + s.error().message;
    for (const auto& m : jobs[0].matches) out += m + "\n";
    if (::write(fds[1], out.data(), out.size()) < 0) _exit(4);
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return out;
}

}  // namespace

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

  // A literal path that becomes part of a pattern (the project's, the home's) is escaped: each
  // of [ ] * ? { } \ matches only itself, and the walk starts in the directory it names.
  void escaped_characters_match_only_themselves() {
    for (const std::string name : {"[WIP] app", "a*b", "q?", "{x,y}", "back\\slash", "]", "\\["}) {
      const std::string e = glob_escape(name);
      QVERIFY2(!has_glob(e), e.c_str());
      QCOMPARE(glob_unescape(e), name);
      QVERIFY2(match_component(e, name), e.c_str());
      QVERIFY2(match_component(e + "*", name + ".env"), e.c_str());
    }
    QVERIFY(!match_component(glob_escape("[WIP]"), "W"));
    QVERIFY(has_glob(glob_escape("[WIP]") + "/*.env"));
    QVERIFY(match_component("\\[[a-c]\\]", "[b]"));
    QCOMPARE(glob_base("/home/\\[u\\]/p*/x"), std::string("/home/[u]"));
    QCOMPARE(glob_base("/**"), std::string("/"));
    QCOMPARE(glob_unescape("C:\\Users"), std::string("C:\\Users"));  // a backslash before a plain letter stays

    QTemporaryDir tmp;
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string() + "/[WIP] p*?{x}\\q";
    std::filesystem::create_directories(root + "/sub");
    for (const char* f : {"/.env", "/sub/.env", "/keep.txt"}) std::ofstream(root + f) << "k";
    std::vector<GlobJob> jobs = {{glob_escape(root) + "/**/.env", "escaped", true}};
    QVERIFY(expand_globs(jobs).ok());
    QCOMPARE(jobs[0].matches, (std::vector<std::string>{root + "/.env", root + "/sub/.env"}));
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

  // The walk looks "**/name" patterns up by name and rejects names by the last character a
  // pattern allows before matching: every kind of pattern end gives exactly what matching gives.
  void lookups_and_last_character_shortcuts_match_exactly_what_matching_matches() {
    QTemporaryDir tmp;
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    const std::vector<std::string> names = {".npmrc", "a.pem", "b.PEM", "c.pen", "d7", "da", "eb", "f]", "id_rsa",
                                            "id_rsa.pub", "deploy_rsa", ".aws", "credentials", "x-", "y.tfstate.backup"};
    for (const auto& n : names)
      for (const std::string& dir : {std::string(""), std::string("/p/q")}) {
        std::filesystem::create_directories(root + dir);
        std::ofstream(root + dir + "/" + n) << "k";
      }
    std::filesystem::create_directories(root + "/p/.aws");
    std::ofstream(root + "/p/.aws/credentials") << "k";
    const std::vector<std::string> patterns = {".npmrc", "*.[pP][eE][mM]", "*[0-9]", "*[!a]", "*[a-b]", "*]", "id_rsa",
                                               "*_rsa", "*.tfstate.backup", ".aws/credentials", "*", "*-", "?", "[x-y]*"};
    std::vector<GlobJob> jobs;
    for (const auto& p : patterns) jobs.push_back({root + "/**/" + p, p, {}});
    QVERIFY(expand_globs(jobs).ok());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      std::vector<std::string> want;
      for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::recursive_directory_iterator(); ++it) {
        const std::string rel = it->path().string().substr(root.size() + 1);
        const std::string name = it->path().filename().string();
        const bool two = patterns[i].find('/') != std::string::npos;
        const std::string parent = it->path().parent_path().filename().string();
        const bool hit = two ? (parent + "/" + name == patterns[i]) : match_component(patterns[i], name);
        if (hit) want.push_back(it->path().string());
      }
      std::sort(want.begin(), want.end());
      QVERIFY2(jobs[i].matches == want, patterns[i].c_str());
    }
  }

  // A tree large enough that the walk takes a second thread (beyond a few thousand entries, with
  // directories still queued): the matches are exactly those a plain recursive listing finds, the
  // same on every run.
  void a_large_tree_walked_by_two_threads_matches_exactly_what_a_listing_finds() {
    // On tmpfs where there is one: 6,600 new files cost seconds on a slow disk.
    QTemporaryDir tmp(std::filesystem::is_directory("/dev/shm") ? QString("/dev/shm/paddock-glob-XXXXXX")
                                                                 : QDir::tempPath() + "/paddock-glob-XXXXXX");
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    for (int a = 0; a < 60; ++a)
      for (int b = 0; b < 10; ++b) {
        const std::string dir = root + "/d" + std::to_string(a) + "/sub" + std::to_string(b);
        std::filesystem::create_directories(dir);
        for (int c = 0; c < 10; ++c)
          std::ofstream(dir + "/f" + std::to_string(c) + ((a + b + c) % 7 == 0 ? ".pem" : ".js"));
      }
    std::vector<std::string> want_pem, want_sub1;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      const std::filesystem::path rel = e.path().lexically_relative(root);
      if (match_component("*.pem", e.path().filename().string())) want_pem.push_back(e.path().string());
      std::vector<std::string> parts(rel.begin(), rel.end());
      if (parts.size() == 3 && parts[1] == "sub1") want_sub1.push_back(e.path().string());
    }
    std::sort(want_pem.begin(), want_pem.end());
    std::sort(want_sub1.begin(), want_sub1.end());
    QVERIFY(want_pem.size() > 500 && want_sub1.size() == 600);
    for (int round = 0; round < 3; ++round) {
      std::vector<GlobJob> jobs = {{root + "/**/*.pem", "pem", {}}, {root + "/*/sub1/*", "sub1", {}}};
      QVERIFY(expand_globs(jobs).ok());
      QCOMPARE(jobs[0].matches, want_pem);
      QCOMPARE(jobs[1].matches, want_sub1);
    }
  }

  void a_deny_walk_denies_a_directory_it_cannot_read_whole_and_an_allow_walk_skips_it() {
    QTemporaryDir tmp;
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    ::chmod(root.c_str(), 0755);
    std::filesystem::create_directories(root + "/open");
    std::filesystem::create_directories(root + "/locked/deep");
    std::ofstream(root + "/open/.env") << "x";
    std::ofstream(root + "/locked/deep/.env") << "x";
    ::chmod((root + "/locked").c_str(), 0000);
    const std::string deny = matches_as_nobody(root + "/**/.env", /*fail_closed=*/true);
    QCOMPARE(deny, root + "/locked\n" + root + "/open/.env\n");
    const std::string allow = matches_as_nobody(root + "/**/.env", /*fail_closed=*/false);
    QCOMPARE(allow, root + "/open/.env\n");
    ::chmod((root + "/locked").c_str(), 0755);
  }

  void a_deny_walk_denies_whole_what_lies_deeper_than_its_limit() {
    QTemporaryDir tmp;
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    std::string dir = root;
    std::string at_limit;
    for (std::size_t i = 0; i < kGlobDepthLimit + 3; ++i) {
      dir += "/d";
      if (i + 1 == kGlobDepthLimit) at_limit = dir;
    }
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/.env") << "x";
    std::vector<GlobJob> jobs = {{root + "/**/.env", "test", true}, {root + "/**/.env", "allow", false}};
    QVERIFY(expand_globs(jobs).ok());
    QCOMPARE(jobs[0].matches, std::vector<std::string>{at_limit});
    QCOMPARE(jobs[0].widened.size(), std::size_t{1});
    QVERIFY(jobs[1].matches.empty());
  }

  void more_deny_matches_than_the_budget_deny_the_directories_that_hold_them() {
    QTemporaryDir tmp(std::filesystem::is_directory("/dev/shm") ? QString("/dev/shm/paddock-glob-XXXXXX")
                                                                 : QDir::tempPath() + "/paddock-glob-XXXXXX");
    const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string();
    std::filesystem::create_directories(root + "/many");
    std::filesystem::create_directories(root + "/few");
    for (std::size_t i = 0; i <= kGlobMatchBudget; ++i) std::ofstream(root + "/many/k" + std::to_string(i) + ".pem");
    std::ofstream(root + "/few/one.pem");
    // Deeper than "many": the walk reaches it only after the budget is passed, and must.
    std::filesystem::create_directories(root + "/later/deep");
    std::ofstream(root + "/later/deep/two.pem");
    std::vector<GlobJob> jobs = {{root + "/**/*.pem", "file:1:1: key 'filesystem.deny[0]'", true}};
    QVERIFY(expand_globs(jobs).ok());
    QCOMPARE(jobs[0].matches, (std::vector<std::string>{root + "/few", root + "/later/deep", root + "/many"}));
    QCOMPARE(jobs[0].widened.size(), std::size_t{1});
  }

  void no_match_is_an_empty_set() {
    std::vector<GlobJob> jobs = {{"/nonexistent-dir-paddock/**/*.x", "t", {}}};
    QVERIFY(expand_globs(jobs).ok());
    QVERIFY(jobs[0].matches.empty());
  }

  void more_than_the_budget_of_allow_matches_is_an_error_not_a_truncation() {
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
