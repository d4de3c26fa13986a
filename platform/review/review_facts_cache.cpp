#include "platform/review/review_facts_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "platform/atomic_file.h"
#include "platform/read_file.h"

namespace paddock::platform {
namespace {

// The file: the magic (its version), the entry count, the entries (fixed size, little-endian,
// sorted by key), and an FNV-1a hash of all that, so that a torn or edited file is not read as
// entries that happen to parse.
constexpr char kMagic[8] = {'P', 'D', 'K', 'F', 'A', 'C', 'T', '1'};
constexpr std::size_t kEntryBytes = 6 * 8;

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::int64_t ns(const struct timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

}  // namespace

FileKey FileKey::of(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), static_cast<std::int64_t>(st.st_size),
          ns(st.st_mtim), ns(st.st_ctim)};
}

ReviewFactsCache ReviewFactsCache::load(const std::string& path) {
  ReadOptions o;
  o.no_follow = true;
  o.max_bytes = std::size_t{256} << 20;
  auto bytes = read_file_if_exists(path, o);
  ReviewFactsCache cache;
  if (!bytes.ok() || !*bytes) return cache;
  const std::string& b = **bytes;
  if (b.size() < 8 + 8 + 8 || std::memcmp(b.data(), kMagic, 8) != 0) return cache;
  const std::uint64_t count = get_u64(b.data() + 8);
  if (count > (b.size() - 24) / kEntryBytes || b.size() != 24 + count * kEntryBytes) return cache;
  if (get_u64(b.data() + b.size() - 8) != fnv1a(std::string_view(b.data(), b.size() - 8))) return cache;
  cache.entries_.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const char* p = b.data() + 16 + i * kEntryBytes;
    Entry e;
    e.key = {get_u64(p), get_u64(p + 8), static_cast<std::int64_t>(get_u64(p + 16)), static_cast<std::int64_t>(get_u64(p + 24)),
             static_cast<std::int64_t>(get_u64(p + 32))};
    const std::uint64_t flags = get_u64(p + 40);
    if (flags > 1) return {};
    e.binary = flags == 1;
    if (!cache.entries_.empty() && !(cache.entries_.back().key < e.key)) return {};  // not what save() writes
    cache.entries_.push_back(e);
  }
  return cache;
}

std::optional<bool> ReviewFactsCache::binary(const FileKey& key) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), key, [](const Entry& e, const FileKey& k) { return e.key < k; });
  if (it == entries_.end() || it->key != key) return std::nullopt;
  return it->binary;
}

ReviewFactsCache ReviewFactsCache::of(std::vector<std::pair<FileKey, bool>> facts, std::int64_t now_ns) {
  ReviewFactsCache cache;
  cache.entries_.reserve(facts.size());
  for (const auto& [key, binary] : facts)
    if (key.ctime_ns <= now_ns - 1000000000) cache.entries_.push_back({key, binary});
  std::sort(cache.entries_.begin(), cache.entries_.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  // One file reached twice (a hard link under two names): one entry.
  cache.entries_.erase(std::unique(cache.entries_.begin(), cache.entries_.end(),
                                   [](const Entry& a, const Entry& b) { return a.key == b.key; }),
                       cache.entries_.end());
  return cache;
}

std::string ReviewFactsCache::encode() const {
  std::string out(kMagic, sizeof kMagic);
  out.reserve(24 + entries_.size() * kEntryBytes);
  put_u64(out, entries_.size());
  for (const auto& e : entries_) {
    put_u64(out, e.key.dev);
    put_u64(out, e.key.ino);
    put_u64(out, static_cast<std::uint64_t>(e.key.size));
    put_u64(out, static_cast<std::uint64_t>(e.key.mtime_ns));
    put_u64(out, static_cast<std::uint64_t>(e.key.ctime_ns));
    put_u64(out, e.binary ? 1 : 0);
  }
  put_u64(out, fnv1a(out));
  return out;
}

bool ReviewFactsCache::save(const std::string& path) const {
  if (entries_.empty()) return ::unlink(path.c_str()) == 0 || errno == ENOENT;
  // Renamed into place whole, never synced: two fsyncs were a few ms of a session's first listing
  // on an idle disk and tens of ms behind other writers, for durability a cache does not need.
  // After a crash the file may be empty, torn or an older one: load() rejects the first two (size,
  // magic, hash) and rebuilds; an older cache is still true, each entry naming the exact stat of
  // the file it was read from.
  return write_file_atomic(path, encode(), WriteOptions{.durable = false}).ok();
}

}  // namespace paddock::platform
