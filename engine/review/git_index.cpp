#include "engine/review/git_index.h"

#include <algorithm>
#include <set>

namespace paddock::review {
namespace {

std::uint32_t be32(std::string_view b, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

std::uint16_t be16(std::string_view b, std::size_t at) {
  return static_cast<std::uint16_t>((static_cast<unsigned>(static_cast<unsigned char>(b[at])) << 8) |
                                    static_cast<unsigned>(static_cast<unsigned char>(b[at + 1])));
}

Error bad_at(std::size_t offset, const std::string& what) {
  return bad_input("git index: " + what + " at byte " + std::to_string(offset));
}

constexpr std::size_t kHeader = 12;
constexpr std::size_t kStatFields = 40;  // ctime, mtime, dev, ino, mode, uid, gid, size: 10 x 4 bytes
constexpr std::uint16_t kExtendedFlag = 0x4000;

// One pass over the entries with object names of hash_len bytes. The count and the bytes must
// agree to the last entry; the caller tries SHA-1 first, then SHA-256.
Result<std::vector<IndexEntry>> parse_with(std::string_view b, std::uint32_t version, std::uint32_t count,
                                           std::size_t hash_len) {
  std::vector<IndexEntry> out;
  out.reserve(std::min<std::uint32_t>(count, 1u << 20));
  std::size_t at = kHeader;
  std::string previous;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t start = at;
    if (b.size() < at + kStatFields + hash_len + 2) return bad_at(at, "entry " + std::to_string(i) + " is cut short");
    IndexEntry e;
    e.mode = be32(b, at + 24);
    at += kStatFields + hash_len;
    const std::uint16_t flags = be16(b, at);
    at += 2;
    e.stage = (flags >> 12) & 3;
    if (flags & kExtendedFlag) {
      if (version < 3) return bad_at(at, "an extended entry in a version 2 index");
      if (b.size() < at + 2) return bad_at(at, "entry " + std::to_string(i) + " is cut short");
      at += 2;
    }
    if (version == 4) {
      // The path is the previous one less N trailing bytes (N a git varint), then a NUL-ended suffix.
      std::uint64_t strip = 0;
      if (at >= b.size()) return bad_at(at, "entry " + std::to_string(i) + " is cut short");
      unsigned char c = static_cast<unsigned char>(b[at++]);
      strip = c & 127;
      while (c & 128) {
        if (at >= b.size() || strip > (1ull << 40)) return bad_at(at, "a malformed path prefix length");
        c = static_cast<unsigned char>(b[at++]);
        strip = ((strip + 1) << 7) | (c & 127);
      }
      if (strip > previous.size()) return bad_at(at, "a path prefix longer than the previous path");
      const std::size_t nul = b.find('\0', at);
      if (nul == std::string_view::npos) return bad_at(at, "a path without its end");
      e.path = previous.substr(0, previous.size() - strip) + std::string(b.substr(at, nul - at));
      at = nul + 1;
    } else {
      const std::size_t nul = b.find('\0', at);
      if (nul == std::string_view::npos) return bad_at(at, "a path without its end");
      e.path = std::string(b.substr(at, nul - at));
      // 1 to 8 NULs pad the entry to a multiple of 8 bytes.
      const std::size_t len = nul + 1 - start;
      at = start + ((len + 7) / 8) * 8;
      if (at > b.size()) return bad_at(start, "entry " + std::to_string(i) + " is cut short");
      for (std::size_t k = nul; k < at; ++k)
        if (b[k] != '\0') return bad_at(k, "entry padding that is not NUL");
    }
    if (e.path.empty()) return bad_at(start, "an entry without a path");
    previous = e.path;
    out.push_back(std::move(e));
  }
  // What follows are extensions (4-byte signature, 4-byte length) and the checksum.
  while (b.size() - at > hash_len) {
    if (b.size() - at < 8 + hash_len) return bad_at(at, "an extension that is cut short");
    const std::uint32_t len = be32(b, at + 4);
    if (len > b.size() - at - 8 - hash_len) return bad_at(at, "an extension longer than the file");
    at += 8 + len;
  }
  if (b.size() - at != hash_len) return bad_at(at, "a checksum of the wrong length");
  return out;
}

}  // namespace

Result<std::vector<IndexEntry>> parse_git_index(std::string_view b) {
  if (b.size() < kHeader || b.substr(0, 4) != "DIRC") return bad_input("git index: not an index (no DIRC signature)");
  const std::uint32_t version = be32(b, 4), count = be32(b, 8);
  if (version < 2 || version > 4) return bad_input("git index: version " + std::to_string(version) + " is not one git writes");
  auto sha1 = parse_with(b, version, count, 20);
  if (sha1) return sha1;
  auto sha256 = parse_with(b, version, count, 32);
  if (sha256) return sha256;
  return sha1.error();
}

std::vector<std::string> added_gitlinks(const std::vector<IndexEntry>& before, const std::vector<IndexEntry>& after) {
  std::set<std::string> had;
  for (const auto& e : before)
    if (e.mode == kGitlinkMode) had.insert(e.path);
  std::vector<std::string> out;
  for (const auto& e : after)
    if (e.mode == kGitlinkMode && !had.count(e.path)) out.push_back(e.path);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace paddock::review
