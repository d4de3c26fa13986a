// The engine's portable whole-file writer (signing keys, trusted keys, approvals). The window it
// closes for private files (a file created with the umask's mode, narrowed after someone opened
// it) is a race no unit test can hit on purpose; these cases pin the end state: owner-only mode
// whatever the umask, whole replacement, and nothing left behind on success or failure.
#include <sys/stat.h>

#include <QtTest>
#include <filesystem>
#include <fstream>

#include "engine/atomic_file.h"
#include "tests/support/test_util.h"

namespace fs = std::filesystem;

using paddock::test::slurp;

class AtomicFileTest : public QObject {
  Q_OBJECT
  fs::path dir_;

 private slots:
  void init() {
    char tmpl[] = "/tmp/paddock-atomic-XXXXXX";
    QVERIFY(::mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
  }
  void cleanup() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void a_private_file_is_owner_only_even_with_an_open_umask_and_leaves_nothing_behind() {
    const mode_t old = ::umask(0);
    auto s = paddock::write_file_atomic((dir_ / "keys" / "signing_key").string(), "SECRET\n", /*private_file=*/true);
    ::umask(old);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    struct stat st {};
    QCOMPARE(::stat((dir_ / "keys" / "signing_key").c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777u, 0600u);
    QCOMPARE(slurp((dir_ / "keys" / "signing_key").string()), std::string("SECRET\n"));
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "keys")) names.push_back(e.path().filename().string());
    QCOMPARE(names, std::vector<std::string>{"signing_key"});
  }

  void a_write_replaces_the_whole_file_and_leaves_no_temp_file() {
    const auto target = dir_ / "approvals.json";
    std::ofstream(target) << "an older, much longer content that must not survive in part\n";
    auto s = paddock::write_file_atomic(target.string(), "{}\n");
    QVERIFY(s.ok());
    QCOMPARE(slurp(target.string()), std::string("{}\n"));
    QCOMPARE(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1L);
  }

  void a_failed_write_leaves_the_target_and_the_directory_as_they_were() {
    fs::create_directory(dir_ / "taken");  // a directory where the file should go: rename fails
    auto s = paddock::write_file_atomic((dir_ / "taken").string(), "x", /*private_file=*/true);
    QVERIFY(!s.ok());
    QVERIFY(fs::is_directory(dir_ / "taken"));
    QCOMPARE(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1L);
  }
};

QTEST_APPLESS_MAIN(AtomicFileTest)
#include "atomic_file_test.moc"
