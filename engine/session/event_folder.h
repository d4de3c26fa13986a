// What events.jsonl gets, decided before anything is written, so that an agent cannot grow it
// without bound (a retry loop's denials wrote megabytes in minutes):
//
// - Repeated identical events (same type, same fields; only their times differ) are folded.
//   The first is written at once; the ones that follow within the window are counted and written
//   as one line with "count" (and "ts" .. "last_ts") when the window closes, the folder makes
//   room for another kind, or the session ends.
// - The file is capped (kEventLogCap). The line that would pass the cap is replaced by one
//   notice saying so; later events are counted (dropped()) but not written, except
//   session_ended, which always is. Lines still go to live subscribers: the cap protects the
//   disk, not the view of a running session.
//
// Pure (no clock, no file): the caller gives the times and does the writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/session/event.h"

namespace paddock::session {

inline constexpr std::int64_t kEventLogCap = std::int64_t{8} << 20;  // 8 MiB, docs/cli.md
inline constexpr std::int64_t kFoldWindowMs = 10'000;

struct EventLine {
  std::string text;      // without the newline
  bool to_file = true;   // false: past the cap, for subscribers only
};

class EventFolder {
 public:
  struct Limits {
    std::int64_t cap_bytes = kEventLogCap;
    std::int64_t window_ms = kFoldWindowMs;
    std::size_t max_kinds = 256;  // distinct events folded at once; the oldest is written out first
    // Kept free below the cap for the notice and session_ended, so that the file stays under it.
    std::int64_t reserve_bytes = std::int64_t{64} << 10;
  };
  EventFolder() : EventFolder(Limits{}) {}
  explicit EventFolder(Limits limits) : limits_(limits) {}

  // The file held this many bytes before this folder's first line (a log appended to).
  void add_existing(std::int64_t bytes) { written_ += bytes; }

  // An event (ts set) at now_ms on a monotonic clock: the lines to write now, in order.
  std::vector<EventLine> add(const Event& e, std::int64_t now_ms);
  // The folded lines whose window has closed by now_ms.
  std::vector<EventLine> flush_due(std::int64_t now_ms);
  // Every folded line still pending (at the session's end).
  std::vector<EventLine> flush_all();

  std::int64_t dropped() const { return dropped_; }
  std::int64_t written() const { return written_; }
  bool capped() const { return capped_; }
  bool pending() const { return !kinds_.empty(); }

 private:
  struct Kind {
    Event sample;            // the first repeat (its ts) and, updated, the last one's
    std::int64_t opened_ms = 0;
    std::int64_t repeats = 0;  // identical events since the one written
  };
  void out(const Event& e, std::vector<EventLine>& lines);
  void close(std::map<std::string, Kind>::iterator it, std::vector<EventLine>& lines);

  Limits limits_;
  std::int64_t written_ = 0;
  std::int64_t dropped_ = 0;
  bool capped_ = false;
  std::map<std::string, Kind> kinds_;  // key: encoded event without its times
};

}  // namespace paddock::session
