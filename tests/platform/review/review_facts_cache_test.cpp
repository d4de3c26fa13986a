// The review listing's facts cache (platform/review/review_facts_cache.h), through the listing
// itself (compute_change_set): what one listing read, the next one takes from the cache; a file
// rewritten in place with the same size, or replaced by rename, is read again; a corrupt cache is
// ignored and rebuilt; a file changed less than a second ago is not cached; reading a file's head
// does not touch its access time.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>
#include <fstream>

#include "engine/session/review_record.h"
#include "platform/review/review_facts_cache.h"
#include "platform/review/review_session.h"

using namespace paddock;
using namespace paddock::platform;
namespace fs = std::filesystem;

namespace {

std::int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st;
}

// Every file's ctime is a second old: what the cache keeps.
void age() { ::usleep(1'100'000); }

}  // namespace

class ReviewFactsCacheTest : public QObject {
  Q_OBJECT

  std::string base_, host_, upper_, cache_;
  ReviewSession session_;

  bool binary_of(const std::string& name) {
    review::Classifier classifier({host_, "/nonexistent-home", nullptr, nullptr});
    auto set = compute_change_set(session_, classifier, /*running=*/true);
    if (!set.ok()) return false;
    for (const auto& c : set->changes)
      if (c.path == host_ + "/" + name) return c.binary;
    qFatal("no change at %s", name.c_str());
    return false;
  }

  // A cache that says the opposite of the truth for name, for the file as it is now: a listing
  // that shows the lie took it from the cache instead of reading the file.
  bool plant_lie(const std::string& name, bool binary) {
    return ReviewFactsCache::of({{FileKey::of(stat_of(upper_ + "/" + name)), binary}}, now_ns()).save(cache_);
  }

 private slots:
  void init() {
    char tmpl[] = "/var/tmp/paddock-facts-cache-XXXXXX";
    QVERIFY(::mkdtemp(tmpl));
    base_ = tmpl;
    host_ = base_ + "/host";
    session_ = ReviewSession{};
    session_.id = "s";
    session_.dir = base_ + "/session";
    session_.roots.roots = {{0, host_}};
    session_.roots.started_ns = now_ns();
    upper_ = session::review_upper(session_.dir, 0);
    cache_ = session::review_facts_cache_file(session_.dir);
    fs::create_directories(host_);
    fs::create_directories(upper_);
    write(host_ + "/text.txt", "old\n");
    write(upper_ + "/text.txt", "new text\n");                 // modified, text
    write(upper_ + "/blob.bin", std::string("\0\1\2\3", 4));  // added, binary
  }
  void cleanup() { fs::remove_all(base_); }

  void a_listing_keeps_what_it_read_and_the_next_listing_takes_it_from_the_cache() {
    age();
    QVERIFY(!binary_of("text.txt"));
    QVERIFY(binary_of("blob.bin"));
    const auto kept = ReviewFactsCache::load(cache_);
    QCOMPARE(kept.size(), std::size_t{2});
    QCOMPARE(kept.binary(FileKey::of(stat_of(upper_ + "/blob.bin"))), std::optional<bool>(true));
    QVERIFY(plant_lie("text.txt", true));
    QVERIFY(binary_of("text.txt"));  // not read: the cache's word for this exact file
    QVERIFY(binary_of("blob.bin"));  // not in the planted cache: read again
  }

  void a_file_rewritten_with_the_same_size_after_caching_is_read_again() {
    age();
    QVERIFY(plant_lie("text.txt", true));
    QVERIFY(binary_of("text.txt"));
    const struct stat before = stat_of(upper_ + "/text.txt");
    write(upper_ + "/text.txt", "NEW TEXT\n");  // same size, in place
    // Same inode and size; even the mtime put back: only the ctime tells.
    const timespec times[2] = {before.st_atim, before.st_mtim};
    QCOMPARE(::utimensat(AT_FDCWD, (upper_ + "/text.txt").c_str(), times, 0), 0);
    QCOMPARE(stat_of(upper_ + "/text.txt").st_ino, before.st_ino);
    QVERIFY(!binary_of("text.txt"));
  }

  void a_file_replaced_by_rename_after_caching_is_read_again() {
    age();
    QVERIFY(plant_lie("blob.bin", false));
    QVERIFY(!binary_of("blob.bin"));
    const struct stat before = stat_of(upper_ + "/blob.bin");
    write(upper_ + "/swap", std::string("\0\5\6\7", 4));  // same size, binary
    const timespec times[2] = {before.st_atim, before.st_mtim};
    QCOMPARE(::utimensat(AT_FDCWD, (upper_ + "/swap").c_str(), times, 0), 0);
    QCOMPARE(::rename((upper_ + "/swap").c_str(), (upper_ + "/blob.bin").c_str()), 0);
    QVERIFY(stat_of(upper_ + "/blob.bin").st_ino != before.st_ino);
    QVERIFY(binary_of("blob.bin"));
  }

  void a_corrupt_cache_file_is_ignored_and_rebuilt() {
    age();
    QVERIFY(plant_lie("text.txt", true));
    std::string bytes;
    {
      std::ifstream in(cache_, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    QVERIFY(bytes.size() > 40);
    bytes[30] ^= 0x40;  // inside the entry's key
    write(cache_, bytes);
    QCOMPARE(ReviewFactsCache::load(cache_).size(), std::size_t{0});
    QVERIFY(!binary_of("text.txt"));
    QCOMPARE(ReviewFactsCache::load(cache_).size(), std::size_t{2});
    write(cache_, "not a cache at all");
    QVERIFY(!binary_of("text.txt"));
    QVERIFY(binary_of("blob.bin"));
  }

  void a_file_changed_less_than_a_second_ago_is_not_cached() {
    QVERIFY(binary_of("blob.bin"));  // written just now by init()
    QCOMPARE(ReviewFactsCache::load(cache_).size(), std::size_t{0});
    QVERIFY(!fs::exists(cache_));
  }

  void reading_a_files_head_leaves_its_access_time_as_it_was() {
    // An access time before the modification time: a plain read would stamp it (relatime).
    const timespec times[2] = {{1000000, 0}, {0, UTIME_OMIT}};
    QCOMPARE(::utimensat(AT_FDCWD, (upper_ + "/blob.bin").c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
    QVERIFY(binary_of("blob.bin"));  // the first listing: read in the walk
    QCOMPARE(stat_of(upper_ + "/blob.bin").st_atim.tv_sec, time_t{1000000});
    write(cache_, "not a cache at all");  // a listing with a cache it cannot use reads after the walk
    QCOMPARE(::utimensat(AT_FDCWD, (upper_ + "/text.txt").c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
    QVERIFY(!binary_of("text.txt"));
    QCOMPARE(stat_of(upper_ + "/text.txt").st_atim.tv_sec, time_t{1000000});
  }
};

QTEST_APPLESS_MAIN(ReviewFactsCacheTest)
#include "review_facts_cache_test.moc"
