// The one whole-file writer (session records, caches, keys, approvals, the app's saves). The
// window it closes for private files (a file created with the umask's mode, narrowed after
// someone opened it) and the durability of fsync (or its absence, for a cache) are not something
// a unit test can hit on purpose; these cases pin the end state: the exact mode whatever the umask, whole replacement,
// symlinks neither followed nor replaced, and nothing left behind on success or failure.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <fstream>

#include "platform/atomic_file.h"
#include "tests/support/test_util.h"

namespace fs = std::filesystem;

using paddock::platform::AtomicFile;
using paddock::platform::WriteOptions;
using paddock::platform::write_file_atomic;
using paddock::test::slurp;

class AtomicFileTest : public QObject {
  Q_OBJECT
  fs::path dir_;

  std::vector<std::string> names(const fs::path& d) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(d)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  unsigned mode_of(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777u : 0u;
  }

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
    auto s = write_file_atomic((dir_ / "keys" / "signing_key").string(), "SECRET\n",
                               WriteOptions{.mode = 0600, .create_dirs = true});
    ::umask(old);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    QCOMPARE(mode_of(dir_ / "keys" / "signing_key"), 0600u);
    QCOMPARE(mode_of(dir_ / "keys"), 0700u);
    QCOMPARE(slurp((dir_ / "keys" / "signing_key").string()), std::string("SECRET\n"));
    QCOMPARE(names(dir_ / "keys"), std::vector<std::string>{"signing_key"});
  }

  void the_mode_asked_for_is_the_mode_whatever_the_umask() {
    const mode_t old = ::umask(077);
    auto s = write_file_atomic((dir_ / "sig").string(), "x", WriteOptions{.mode = 0644});
    ::umask(old);
    QVERIFY(s.ok());
    QCOMPARE(mode_of(dir_ / "sig"), 0644u);
  }

  void an_edited_file_keeps_its_own_mode() {
    const auto target = dir_ / "policy.yaml";
    std::ofstream(target) << "version: 1\n";
    ::chmod(target.c_str(), 0640);
    auto s = write_file_atomic(target.string(), "version: 1\n# edited\n", WriteOptions{.mode = 0600, .keep_mode = true});
    QVERIFY(s.ok());
    QCOMPARE(mode_of(target), 0640u);
    QCOMPARE(slurp(target.string()), std::string("version: 1\n# edited\n"));
  }

  void a_write_replaces_the_whole_file_and_leaves_no_temp_file() {
    const auto target = dir_ / "approvals.json";
    std::ofstream(target) << "an older, much longer content that must not survive in part\n";
    auto s = write_file_atomic(target.string(), "{}\n");
    QVERIFY(s.ok());
    QCOMPARE(slurp(target.string()), std::string("{}\n"));
    QCOMPARE(names(dir_), std::vector<std::string>{"approvals.json"});
  }

  void a_cache_written_without_syncs_still_replaces_the_whole_file_with_its_mode_and_leaves_no_temp_file() {
    const auto target = dir_ / "facts.cache";
    std::ofstream(target) << "an older, much longer cache that must not survive in part\n";
    auto s = write_file_atomic(target.string(), "fresh\n", WriteOptions{.mode = 0640, .durable = false});
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    QCOMPARE(slurp(target.string()), std::string("fresh\n"));
    QCOMPARE(mode_of(target), 0640u);
    QCOMPARE(names(dir_), std::vector<std::string>{"facts.cache"});
    fs::remove(target);
    fs::create_symlink(dir_ / "elsewhere", target);
    QVERIFY(!write_file_atomic(target.string(), "x", WriteOptions{.durable = false}).ok());
    QVERIFY(fs::is_symlink(target));
  }

  void a_symlink_at_the_target_is_neither_followed_nor_replaced() {
    const auto victim = dir_ / "victim";
    std::ofstream(victim) << "untouched\n";
    fs::create_symlink(victim, dir_ / "report.json");
    auto s = write_file_atomic((dir_ / "report.json").string(), "planted\n");
    QVERIFY(!s.ok());
    QVERIFY2(s.error().message.find("symlink") != std::string::npos, s.error().message.c_str());
    QCOMPARE(slurp(victim.string()), std::string("untouched\n"));
    QVERIFY(fs::is_symlink(dir_ / "report.json"));
    QCOMPARE(names(dir_), (std::vector<std::string>{"report.json", "victim"}));
  }

  void a_failed_write_leaves_the_target_and_the_directory_as_they_were() {
    fs::create_directory(dir_ / "taken");  // a directory where the file should go
    auto s = write_file_atomic((dir_ / "taken").string(), "x");
    QVERIFY(!s.ok());
    QVERIFY(fs::is_directory(dir_ / "taken"));
    QCOMPARE(names(dir_), std::vector<std::string>{"taken"});
  }

  void a_staged_file_appears_only_when_committed_and_a_discarded_one_never() {
    const auto target = dir_ / "attestation.json";
    {
      AtomicFile f;
      QVERIFY(f.open(target.string()).ok());
      QVERIFY(f.write("{\"a\":").ok());
      QVERIFY(f.sync().ok());
      QVERIFY(!fs::exists(target));  // staged, not published
      QVERIFY(f.write("1}\n").ok());
      QVERIFY(f.commit().ok());
    }
    QCOMPARE(slurp(target.string()), std::string("{\"a\":1}\n"));
    {
      AtomicFile f;
      QVERIFY(f.open((dir_ / "report.json").string()).ok());
      QVERIFY(f.write("never\n").ok());
    }  // destroyed uncommitted
    QCOMPARE(names(dir_), std::vector<std::string>{"attestation.json"});
  }

  void files_synced_together_and_renamed_with_one_directory_sync_all_appear_whole() {
    AtomicFile a, b, c;
    for (auto [f, name] : {std::pair{&a, "ir.json"}, std::pair{&b, "plan.json"}, std::pair{&c, "attestation.json"}}) {
      QVERIFY(f->open((dir_ / name).string()).ok());
      QVERIFY(f->write(std::string(name) + "\n").ok());
    }
    QVERIFY(paddock::platform::sync_all({&a, &b, &c, nullptr}).ok());
    QVERIFY(a.commit(paddock::platform::DirSync::kByCaller).ok());
    QVERIFY(b.commit(paddock::platform::DirSync::kByCaller).ok());
    QVERIFY(c.commit().ok());  // its directory sync covers the two renames before it
    QCOMPARE(names(dir_), (std::vector<std::string>{"attestation.json", "ir.json", "plan.json"}));
    QCOMPARE(slurp((dir_ / "plan.json").string()), std::string("plan.json\n"));
    QVERIFY(paddock::platform::sync_directory(dir_.string()).ok());
    QVERIFY(!paddock::platform::sync_directory((dir_ / "nope").string()).ok());
  }
};

QTEST_APPLESS_MAIN(AtomicFileTest)
#include "atomic_file_test.moc"
