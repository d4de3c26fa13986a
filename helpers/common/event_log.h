// The session's event stream (DESIGN §9): each event gets a UTC "ts", is appended as one line to
// events.jsonl and fanned out to control-socket subscribers. Thread-safe: the egress relay's
// threads report through it too. Events are advisory; nothing here feeds enforcement.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace paddock::helper {

std::string utc_timestamp();  // "2026-01-02T03:04:05.678Z"

class EventLog {
 public:
  explicit EventLog(std::string path) : path_(std::move(path)) {}
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Adds "ts" (when missing), appends, and writes the line to every subscriber. A subscriber whose
  // socket fails is dropped (closed by its owner, see drop_subscriber).
  void emit(nlohmann::json event);
  void add_subscriber(int fd);
  void drop_subscriber(int fd);

 private:
  std::mutex mu_;
  std::string path_;
  int fd_ = -1;  // events.jsonl, opened (O_APPEND) on the first event and kept for the session
  std::vector<int> subscribers_;
};

}  // namespace paddock::helper
