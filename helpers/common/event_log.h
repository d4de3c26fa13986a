// The session's event stream (engine/session/event.h): each event gets a UTC "ts", goes through
// the folder (repeats folded, the file capped: engine/session/event_folder.h), and each line it
// yields is appended to events.jsonl and sent to the control socket's subscribers. Thread-safe:
// the egress relay's threads report through it too. Events are advisory; nothing here feeds
// enforcement, and an event that cannot be logged is lost, never fatal.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/event.h"
#include "engine/session/event_folder.h"
#include "platform/unique_fd.h"

namespace paddock::helper {

std::string utc_timestamp();  // "2026-01-02T03:04:05.678Z"

class EventLog {
 public:
  explicit EventLog(std::string path, session::EventFolder::Limits limits = {})
      : path_(std::move(path)), folder_(limits) {}
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  void emit(session::Event event);
  // An event as the broker's sink carries it ({"event": name, ...}); one that is not a known
  // event is logged as a notice that says so.
  void emit(nlohmann::json event);
  // Writes the folded lines whose window has closed (the supervisor calls it now and then).
  void flush_due();
  // Writes every folded line still pending: before session_ended.
  void flush();
  // Events counted but not written since the file reached its cap.
  std::int64_t dropped();
  // Folded events wait to be written (flush_due has work when their window closes).
  bool pending();

  // A subscriber whose socket fails is dropped (closed by its owner, see drop_subscriber).
  void add_subscriber(int fd);
  void drop_subscriber(int fd);

 private:
  void write_locked(const std::vector<session::EventLine>& lines);

  std::mutex mu_;
  std::string path_;
  session::EventFolder folder_;
  platform::UniqueFd fd_;  // events.jsonl, opened (O_APPEND) on the first line and kept
  bool opened_ = false;
  std::vector<int> subscribers_;
};

}  // namespace paddock::helper
