// What a review listing derives from each changed file's bytes (today: whether it is binary),
// kept between listings of one session in review/facts.cache (docs/review.md, "What it costs").
// The app lists a running session again and again; without the cache each listing opens and
// reads the head of every changed file, most of what a listing costs beyond its stat calls.
//
// An entry is trusted only for the exact file it was derived from: its key is the file's device,
// inode, size, mtime and ctime, which the listing has from its stat anyway. A rewrite changes the
// ctime; a file swapped in by rename changes the inode. A file whose ctime is less than a second
// old is never cached: rewritten again within the same timestamp tick, with the same size, it
// would keep its key. A missing, corrupt or foreign cache file is ignored and rebuilt. The
// binary flag is shown to the user, never used to classify or apply a change.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paddock::platform {

struct FileKey {
  std::uint64_t dev = 0, ino = 0;
  std::int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
  static FileKey of(const struct stat& st);
  auto operator<=>(const FileKey&) const = default;
};

class ReviewFactsCache {
 public:
  // The cache file's entries; an unreadable, corrupt or foreign file gives an empty cache.
  static ReviewFactsCache load(const std::string& path);

  // The binary flag derived from the file with this key, if cached.
  std::optional<bool> binary(const FileKey& key) const;
  std::size_t size() const { return entries_.size(); }

  // A cache of exactly these facts (the files of this listing), keeping only files whose ctime is
  // at least a second before now_ns (CLOCK_REALTIME; the listing passes its start, so that a file
  // rewritten while it ran is never kept under the key of what it read).
  static ReviewFactsCache of(std::vector<std::pair<FileKey, bool>> facts, std::int64_t now_ns);
  bool operator==(const ReviewFactsCache&) const = default;

  // Written atomically (platform/atomic_file.h) but not synced: a cache needs no durability (see
  // save()); an empty cache removes the file.
  bool save(const std::string& path) const;
  std::string encode() const;

 private:
  struct Entry {
    FileKey key;
    bool binary = false;
    bool operator==(const Entry&) const = default;
  };
  std::vector<Entry> entries_;  // sorted by key, keys unique
};

}  // namespace paddock::platform
