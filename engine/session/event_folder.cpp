#include "engine/session/event_folder.h"

#include <algorithm>

#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

// Singletons of a session: never folded (and session_ended never capped).
bool foldable(EventType t) {
  return t != EventType::kSessionStarted && t != EventType::kAttestation && t != EventType::kSessionEnded;
}

std::string mib(std::int64_t bytes) {
  return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

void EventFolder::out(const Event& e, std::vector<EventLine>& lines) {
  std::string text = encode_event(e);
  const auto size = static_cast<std::int64_t>(text.size()) + 1;
  if (e.type == EventType::kSessionEnded) {
    written_ += size;
    lines.push_back({std::move(text), true});
    return;
  }
  if (!capped_ && written_ + size > limits_.cap_bytes - limits_.reserve_bytes) {
    capped_ = true;
    Notice capped;
    capped.level = "warning";
    capped.kind = "event_log_capped";
    capped.message = "events.jsonl reached its cap of " + mib(limits_.cap_bytes) +
                     ": later events are counted, not written (events_dropped in report.json); session_ended still is";
    capped.cap_bytes = limits_.cap_bytes;
    Event notice = make_event(capped);
    notice.ts = e.ts;
    std::string n = encode_event(notice);
    written_ += static_cast<std::int64_t>(n.size()) + 1;
    lines.push_back({std::move(n), true});
  }
  if (capped_) {
    dropped_ += e.count;
    lines.push_back({std::move(text), false});
    return;
  }
  written_ += size;
  lines.push_back({std::move(text), true});
}

void EventFolder::close(std::map<std::string, Kind>::iterator it, std::vector<EventLine>& lines) {
  if (it->second.repeats > 0) {
    Event folded = it->second.sample;
    folded.count = it->second.repeats;
    out(folded, lines);
  }
  kinds_.erase(it);
}

std::vector<EventLine> EventFolder::add(const Event& e, std::int64_t now_ms) {
  std::vector<EventLine> lines = flush_due(now_ms);
  if (!foldable(e.type) || e.count != 1) {
    out(e, lines);
    return lines;
  }
  std::string key = std::string(event_name(e.type)) + "\n" + dump_record(e.fields);
  if (auto it = kinds_.find(key); it != kinds_.end()) {
    Kind& k = it->second;
    if (k.repeats++ == 0) k.sample.ts = e.ts;
    k.sample.last_ts = e.ts;
    return lines;
  }
  if (kinds_.size() >= limits_.max_kinds) {
    auto oldest = std::min_element(kinds_.begin(), kinds_.end(),
                                   [](const auto& a, const auto& b) { return a.second.opened_ms < b.second.opened_ms; });
    close(oldest, lines);
  }
  kinds_.emplace(std::move(key), Kind{e, now_ms, 0});
  out(e, lines);
  return lines;
}

std::vector<EventLine> EventFolder::flush_due(std::int64_t now_ms) {
  std::vector<EventLine> lines;
  for (auto it = kinds_.begin(); it != kinds_.end();) {
    auto next = std::next(it);
    if (now_ms - it->second.opened_ms >= limits_.window_ms) close(it, lines);
    it = next;
  }
  return lines;
}

std::vector<EventLine> EventFolder::flush_all() {
  std::vector<EventLine> lines;
  // In the order they were opened, so the file's folded lines keep the events' order.
  std::vector<std::map<std::string, Kind>::iterator> open;
  for (auto it = kinds_.begin(); it != kinds_.end(); ++it) open.push_back(it);
  std::stable_sort(open.begin(), open.end(), [](auto a, auto b) { return a->second.opened_ms < b->second.opened_ms; });
  for (auto it : open) close(it, lines);
  return lines;
}

}  // namespace paddock::session
