#include "helpers/common/event_log.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
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
  line += "\n";
  std::lock_guard<std::mutex> lock(mu_);
  // An event that cannot be logged is lost, never fatal: events are advisory (DESIGN §9).
  // One write(2) per line on an O_APPEND descriptor: a crash loses at most the line being written.
  if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ >= 0) {
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
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

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
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
