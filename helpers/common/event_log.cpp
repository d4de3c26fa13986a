#include "helpers/common/event_log.h"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "helpers/common/atomic_file.h"

namespace paddock::helper {

std::string utc_timestamp() {
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm {};
  gmtime_r(&ts.tv_sec, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
  return buf;
}

void EventLog::emit(nlohmann::json event) {
  if (!event.contains("ts")) event["ts"] = utc_timestamp();
  std::string line = event.dump();
  std::lock_guard<std::mutex> lock(mu_);
  // An event that cannot be logged is lost, never fatal: events are advisory (DESIGN §9).
  (void)append_line(path_, line);
  line += "\n";
  for (auto it = subscribers_.begin(); it != subscribers_.end();) {
    // MSG_DONTWAIT: a stalled subscriber must never block the session; it is dropped instead.
    ssize_t n = ::send(*it, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n != static_cast<ssize_t>(line.size())) {
      ::shutdown(*it, SHUT_RDWR);
      it = subscribers_.erase(it);
    } else {
      ++it;
    }
  }
}

void EventLog::add_subscriber(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  subscribers_.push_back(fd);
}

void EventLog::drop_subscriber(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  subscribers_.erase(std::remove(subscribers_.begin(), subscribers_.end(), fd), subscribers_.end());
}

}  // namespace paddock::helper
