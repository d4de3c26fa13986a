// The record of the placeholders a session made on the host for absent protected paths (see
// docs/architecture.md, "The mount view", step 4): one JSON file per session under
// Layout::placeholders_dir(), a list of {path, dir, dev, ino, ctime_ns[, content]}. The helper writes it and removes
// what it lists once no session relies on it; the front ends read it so that the engine sees a
// placeholder as the absent path it stands for (Inputs::placeholders), never as the user's file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::session {

struct PlaceholderRecord {
  std::string path;  // absolute, the bytes the IR names (UTF-8 or not)
  bool dir = false;  // an empty directory, else an empty regular file
  std::uint64_t dev = 0, ino = 0;  // the inode that was made: anything else there is not Paddock's
  // Its change time when made, in ns: an inode number is reused by the next file made there (the
  // user's own, after the placeholder was removed), a change time is not. 0 = not recorded.
  std::int64_t ctime_ns = 0;
  // What a file placeholder holds: nothing, but for a git pointer's (".", its own directory, which
  // git reads as no pointer; an empty one is an error to git). At most kMaxPlaceholderContent bytes.
  std::string content{};
  bool operator==(const PlaceholderRecord&) const = default;
};
inline constexpr std::size_t kMaxPlaceholderContent = 64;

std::string encode_placeholder_records(const std::vector<PlaceholderRecord>& list);
// A record file's bytes: the entries, or an error for a file that is not one (a record of a
// single object, as older helpers wrote, is read too).
Result<std::vector<PlaceholderRecord>> decode_placeholder_records(const std::string& bytes);

}  // namespace paddock::session

// Most placeholders hold nothing (content left out). The init message that carries the list out
// of the sandbox uses this record; a record file of an older helper, which wrote no ctime_ns, is
// read as "not recorded" (decode_placeholder_records), a message never.
template <>
struct paddock::schema::Schema<paddock::session::PlaceholderRecord> {
  using P = session::PlaceholderRecord;
  static constexpr auto fields =
      std::make_tuple(field("path", &P::path), field("dir", &P::dir), field("dev", &P::dev), field("ino", &P::ino),
                      field("ctime_ns", &P::ctime_ns), field("content", &P::content, kOmitEmpty));
};
