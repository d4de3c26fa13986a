// How long a session's records stay (docs/cli.md, "Sessions"): `paddock sessions --prune` and the
// app remove the directory of every session that ended more than keep_days ago, except a review-mode
// session whose changes are still held (neither applied nor discarded): those stay until the user
// decides. The setting is $XDG_CONFIG_HOME/paddock/sessions.json, {"version": 1, "keep_days": 30}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/session/summary.h"
#include "engine/status.h"

namespace paddock::session {

inline constexpr int kDefaultKeepDays = 30;

struct Retention {
  int keep_days = kDefaultKeepDays;  // 0: every ended session may go
  bool operator==(const Retention&) const = default;
};

std::string encode_retention(const Retention& r);
Result<Retention> decode_retention(std::string_view bytes);

// "2026-01-02T03:04:05.678Z" (or without the fraction) as seconds since the epoch.
std::optional<std::int64_t> parse_utc(std::string_view ts);

// May this session's directory go? Never while it runs or holds changes for review (a session the
// caller could not tell about is kept); otherwise when it ended (or, without a report, started)
// more than keep_days before now.
bool prunable(const SessionSummary& s, bool holds_review, std::int64_t now_secs, const Retention& r);

}  // namespace paddock::session
