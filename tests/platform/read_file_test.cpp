// The one whole-file reader: bounded, regular files only, never blocking on a planted FIFO, and
// with the owner checks the probe cache relies on.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <fstream>

#include "platform/read_file.h"

namespace fs = std::filesystem;

using paddock::platform::read_file;
using paddock::platform::read_file_if_exists;
using paddock::platform::ReadOptions;

class ReadFileTest : public QObject {
  Q_OBJECT
  fs::path dir_;

 private slots:
  void init() {
    char tmpl[] = "/tmp/paddock-read-XXXXXX";
    QVERIFY(::mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
  }
  void cleanup() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void a_file_is_read_whole_and_a_missing_one_is_told_apart_from_an_error() {
    std::ofstream(dir_ / "a") << std::string(200000, 'x');
    auto a = read_file((dir_ / "a").string());
    QVERIFY(a.ok());
    QCOMPARE(a->size(), std::size_t{200000});
    auto missing = read_file_if_exists((dir_ / "nope").string());
    QVERIFY(missing.ok());
    QVERIFY(!missing->has_value());
    auto under_a_file = read_file_if_exists((dir_ / "a" / "x").string());
    QVERIFY(under_a_file.ok() && !under_a_file->has_value());
    auto err = read_file((dir_ / "nope").string());
    QVERIFY(!err.ok());
    QVERIFY(err.error().message.find((dir_ / "nope").string()) != std::string::npos);
  }

  void kernel_files_of_size_zero_are_read_to_their_end() {
    auto r = read_file("/proc/self/status");
    QVERIFY(r.ok());
    QVERIFY(r->find("Name:") != std::string::npos);
  }

  void a_file_over_the_limit_is_an_error_not_a_truncated_read_unless_a_prefix_is_asked() {
    std::ofstream(dir_ / "big") << std::string(5000, 'y') << "\n";
    ReadOptions o;
    o.max_bytes = 4096;
    QVERIFY(!read_file((dir_ / "big").string(), o).ok());
    o.prefix = true;
    auto head = read_file((dir_ / "big").string(), o);
    QVERIFY(head.ok());
    QCOMPARE(head->size(), std::size_t{4096});
  }

  void a_fifo_is_refused_at_once_instead_of_blocking_the_reader() {
    QCOMPARE(::mkfifo((dir_ / "report.json").c_str(), 0600), 0);
    auto r = read_file_if_exists((dir_ / "report.json").string());
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("not a regular file") != std::string::npos, r.error().message.c_str());
    fs::create_directory(dir_ / "dir");
    QVERIFY(!read_file((dir_ / "dir").string()).ok());
  }

  void no_follow_refuses_a_symlink_and_private_only_a_file_others_may_write() {
    std::ofstream(dir_ / "cache") << "{}";
    ::chmod((dir_ / "cache").c_str(), 0600);
    fs::create_symlink(dir_ / "cache", dir_ / "link");
    ReadOptions o;
    o.no_follow = true;
    o.private_only = true;
    QVERIFY(read_file((dir_ / "cache").string(), o).ok());
    QVERIFY(!read_file((dir_ / "link").string(), o).ok());
    ::chmod((dir_ / "cache").c_str(), 0620);
    QVERIFY(!read_file((dir_ / "cache").string(), o).ok());
  }
};

QTEST_APPLESS_MAIN(ReadFileTest)
#include "read_file_test.moc"
