#include "engine/session/retention.h"

#include <nlohmann/json.hpp>

#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {

std::string encode_retention(const Retention& r) {
  return dump_record({{"version", 1}, {"keep_days", r.keep_days}}, 2) + "\n";
}

Result<Retention> decode_retention(std::string_view bytes) {
  auto j = parse_record(bytes, "sessions.json");
  if (!j) return j.error();
  StrictJsonReader r("sessions.json field ");
  std::int64_t version = 0, days = 0;
  if (!r.object(*j, "", {"version", "keep_days"}) || !r.integer((*j)["version"], "version", version) ||
      !r.integer((*j)["keep_days"], "keep_days", days))
    return bad_input(r.error());
  if (version != 1) return bad_input("sessions.json: version " + std::to_string(version) + " is not one this Paddock reads");
  if (days < 0 || days > 36500) return bad_input("sessions.json field keep_days: expected 0 to 36500 days");
  return Retention{static_cast<int>(days)};
}

std::optional<std::int64_t> parse_utc(std::string_view ts) {
  // YYYY-MM-DDTHH:MM:SS, then an optional fraction, then Z.
  if (ts.size() < 20) return std::nullopt;
  const auto num = [&](std::size_t at, std::size_t len) -> std::optional<int> {
    int v = 0;
    for (std::size_t i = at; i < at + len; ++i) {
      if (ts[i] < '0' || ts[i] > '9') return std::nullopt;
      v = v * 10 + (ts[i] - '0');
    }
    return v;
  };
  if (ts[4] != '-' || ts[7] != '-' || ts[10] != 'T' || ts[13] != ':' || ts[16] != ':' || ts.back() != 'Z')
    return std::nullopt;
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *s > 60)
    return std::nullopt;
  // Days from the civil date (Howard Hinnant's algorithm).
  const int yy = *y - (*mo <= 2 ? 1 : 0);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(yy - era * 400);
  const unsigned doy = static_cast<unsigned>((153 * (*mo + (*mo > 2 ? -3 : 9)) + 2) / 5 + *d - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(doe) - 719468;
  return days * 86400 + *h * 3600 + *mi * 60 + *s;
}

bool prunable(const SessionSummary& s, bool holds_review, std::int64_t now_secs, const Retention& r) {
  // Running, or a record that does not read: kept (the user looks at it first).
  if (holds_review || s.state == SessionState::kRunning || s.state == SessionState::kUnreadable) return false;
  std::optional<std::int64_t> when;
  if (s.report) when = parse_utc(s.report->ended);
  if (!when) when = parse_utc(s.started);
  // The session's id starts with its start time (20261129T230501Z-...): the last resort.
  if (!when && s.id.size() >= 16) {
    const std::string t = s.id.substr(0, 4) + "-" + s.id.substr(4, 2) + "-" + s.id.substr(6, 2) + "T" + s.id.substr(9, 2) +
                          ":" + s.id.substr(11, 2) + ":" + s.id.substr(13, 2) + "Z";
    when = parse_utc(t);
  }
  if (!when) return false;
  return now_secs - *when > static_cast<std::int64_t>(r.keep_days) * 86400;
}

}  // namespace paddock::session
