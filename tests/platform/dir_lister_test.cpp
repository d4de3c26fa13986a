// The fast lister the front ends hand to the engine must see exactly what the portable one sees:
// the glob walks' denials depend on every entry and its kind.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "engine/dir_lister.h"
#include "platform/dir_lister.h"

namespace fs = std::filesystem;
using paddock::DirectoryLister;
using paddock::EntryKind;

namespace {

struct Collect final : DirectoryLister::Visitor {
  std::set<std::pair<std::string, EntryKind>> seen;
  std::size_t stop_after = SIZE_MAX;
  bool entry(std::string_view name, EntryKind kind) override {
    seen.emplace(std::string(name), kind);
    return seen.size() < stop_after;
  }
};

}  // namespace

class DirListerTest : public QObject {
  Q_OBJECT
  fs::path dir_;

 private slots:
  void init() {
    char tmpl[] = "/tmp/paddock-lister-XXXXXX";
    QVERIFY(::mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
  }
  void cleanup() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void both_listers_report_the_same_entries_and_kinds() {
    std::ofstream(dir_ / "file") << "x";
    fs::create_directory(dir_ / "sub");
    fs::create_directory_symlink(dir_ / "sub", dir_ / "link-to-dir");
    fs::create_symlink(dir_ / "missing", dir_ / "dangling");
    QCOMPARE(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
    std::ofstream(dir_ / "not-utf8-\xff\xfe") << "x";
    const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock = (dir_ / "sock").string();
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    QCOMPARE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(s);
    for (int i = 0; i < 3000; ++i) std::ofstream(dir_ / "sub" / ("f" + std::to_string(i)));

    for (const fs::path& d : {dir_, dir_ / "sub"}) {
      Collect portable, fast;
      QVERIFY(!paddock::portable_lister().list(d.string(), portable));
      QVERIFY(!paddock::platform::fast_lister().list(d.string(), fast));
      QCOMPARE(fast.seen.size(), portable.seen.size());
      QVERIFY(fast.seen == portable.seen);
    }
    Collect fast;
    QVERIFY(!paddock::platform::fast_lister().list(dir_.string(), fast));
    QCOMPARE(fast.seen.size(), std::size_t{7});
    QVERIFY(fast.seen.count({"sub", EntryKind::kDirectory}));
    QVERIFY(fast.seen.count({"link-to-dir", EntryKind::kSymlink}));
    QVERIFY(fast.seen.count({"sock", EntryKind::kSocket}));
    QVERIFY(fast.seen.count({"fifo", EntryKind::kOther}));
    QVERIFY(fast.seen.count({"not-utf8-\xff\xfe", EntryKind::kOther}));
  }

  void a_symlink_or_a_missing_directory_is_an_error_for_both() {
    fs::create_directory(dir_ / "sub");
    fs::create_directory_symlink(dir_ / "sub", dir_ / "link");
    for (const DirectoryLister* l : {&paddock::portable_lister(), &paddock::platform::fast_lister()}) {
      Collect c;
      QCOMPARE(l->list((dir_ / "link").string(), c), std::make_error_code(std::errc::not_a_directory));
      QVERIFY(c.seen.empty());
      QCOMPARE(l->list((dir_ / "gone").string(), c), std::make_error_code(std::errc::no_such_file_or_directory));
    }
  }

  void a_visitor_that_returns_false_stops_the_listing() {
    for (int i = 0; i < 100; ++i) std::ofstream(dir_ / ("f" + std::to_string(i)));
    for (const DirectoryLister* l : {&paddock::portable_lister(), &paddock::platform::fast_lister()}) {
      Collect c;
      c.stop_after = 5;
      QVERIFY(!l->list(dir_.string(), c));
      QCOMPARE(c.seen.size(), std::size_t{5});
    }
  }
};

QTEST_APPLESS_MAIN(DirListerTest)
#include "dir_lister_test.moc"
