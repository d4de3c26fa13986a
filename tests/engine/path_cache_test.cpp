// PathCache must answer exactly what std::filesystem answers (the IR and its hash depend on every
// resolved path), only asking the file system once per distinct path within one evaluation.
#include <QtTest>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/path_cache.h"

using namespace paddock;
namespace fs = std::filesystem;

class PathCacheTest : public QObject {
  Q_OBJECT

  // A tree with every kind of symlink resolution has to get right: relative, absolute, through
  // "..", chained, dangling, looping, to a file, to a file with a trailing slash.
  static void make_tree(const std::string& r) {
    fs::create_directories(r + "/a/b/c");
    std::ofstream(r + "/a/f") << "x";
    std::ofstream(r + "/a/b/g") << "y";
    fs::create_directory_symlink("b", r + "/a/l");
    fs::create_directory_symlink(r + "/a/b", r + "/a/abs");
    fs::create_directory_symlink("../a/b/../b", r + "/a/up");
    fs::create_directory_symlink("l", r + "/a/chain");
    fs::create_symlink("nowhere/at/all", r + "/a/dangling");
    fs::create_symlink("loop2", r + "/a/loop1");
    fs::create_symlink("loop1", r + "/a/loop2");
    fs::create_symlink("f", r + "/a/tofile");
    fs::create_symlink("f/", r + "/a/tofileslash");
    fs::create_directory_symlink("/", r + "/a/root");
  }

 private slots:
  void weakly_canonical_gives_the_standard_library_result_and_error_for_every_path_shape() {
    QTemporaryDir tmp;
    const std::string r = fs::canonical(tmp.path().toStdString()).string();
    make_tree(r);
    const std::vector<std::string> parts = {"a", "b", "c", "f", "g", "l", "abs", "up", "chain", "dangling", "loop1",
                                            "tofile", "tofileslash", "root", "missing", ".", "..", ""};
    std::vector<std::string> paths = {r, r + "/", r + "//a//b", "/", "/nonexistent-paddock/x", "a/l/c", "a/missing/x"};
    for (const auto& p1 : parts)
      for (const auto& p2 : parts) {
        paths.push_back(r + "/a/" + p1 + "/" + p2);
        for (const auto& p3 : {"c", "g", "missing", "..", "l"}) paths.push_back(r + "/a/" + p1 + "/" + p2 + "/" + p3);
      }
    const fs::path cwd = fs::current_path();
    fs::current_path(r);  // the relative ones resolve against the working directory, as in std
    PathCache cache;  // one cache for all: later answers come partly from earlier calls' memo
    int compared = 0, errors = 0;
    for (int round = 0; round < 2; ++round)
      for (const auto& p : paths) {
        std::error_code want_ec, got_ec;
        const fs::path want = fs::weakly_canonical(p, want_ec);
        const fs::path got = cache.weakly_canonical(p, got_ec);
        QVERIFY2(got == want && got_ec == want_ec,
                 (p + ": std gives '" + want.string() + "' (" + want_ec.message() + "), cache gives '" + got.string() +
                  "' (" + got_ec.message() + ")").c_str());
        ++compared;
        if (want_ec) ++errors;
      }
    fs::current_path(cwd);
    // The tree must actually exercise the error paths (loops, not-a-directory), not only successes.
    QVERIFY2(errors > 0, "no path produced an error: the comparison misses the error paths");
    QVERIFY(compared > 1000);
  }

  void status_symlink_status_and_canonical_match_the_standard_library() {
    QTemporaryDir tmp;
    const std::string r = fs::canonical(tmp.path().toStdString()).string();
    make_tree(r);
    PathCache cache;
    for (const char* rel : {"/a", "/a/f", "/a/l", "/a/dangling", "/a/loop1", "/a/tofileslash", "/a/missing", "/a/f/x"}) {
      const std::string p = r + rel;
      std::error_code a, b;
      QCOMPARE(cache.status(p, a).type(), fs::status(p, b).type());
      QCOMPARE(a, b);
      QCOMPARE(cache.symlink_status(p, a).type(), fs::symlink_status(p, b).type());
      QCOMPARE(a, b);
      QCOMPARE(cache.canonical(p, a), fs::canonical(p, b));
      QCOMPARE(a, b);
    }
  }

  void answers_are_one_snapshot_for_the_cache_lifetime_and_a_new_cache_sees_changes() {
    QTemporaryDir tmp;
    const std::string r = fs::canonical(tmp.path().toStdString()).string();
    PathCache cache;
    std::error_code ec;
    QVERIFY(!fs::exists(cache.status(r + "/later", ec)));
    fs::create_directory(r + "/later");
    // Within one evaluation the answer stays what it was (every stage sees the same tree) ...
    QVERIFY(!fs::exists(cache.status(r + "/later", ec)));
    QCOMPARE(cache.weakly_canonical(r + "/later/x", ec).string(), r + "/later/x");
    // ... and the next evaluation, with its own cache, asks again.
    PathCache next;
    QVERIFY(fs::is_directory(next.status(r + "/later", ec)));
  }
};

QTEST_APPLESS_MAIN(PathCacheTest)
#include "path_cache_test.moc"
