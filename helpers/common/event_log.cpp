#include "helpers/common/event_log.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "platform/utc_time.h"

namespace paddock::helper {
namespace {

std::int64_t now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

std::string utc_timestamp() { return platform::utc_timestamp(); }

void EventLog::emit(session::Event event) {
  if (event.ts.empty()) event.ts = utc_timestamp();
  std::lock_guard<std::mutex> lock(mu_);
  write_locked(folder_.add(event, now_ms()));
}

void EventLog::emit(nlohmann::json event) {
  auto e = session::event_from_json(std::move(event));
  if (!e.ok()) {
    session::Event n = session::notice_event("warning", "an event that is not one was not logged: " + e.error().message);
    n.fields["kind"] = "bad_event";
    return emit(std::move(n));
  }
  emit(std::move(*e));
}

void EventLog::flush_due() {
  std::lock_guard<std::mutex> lock(mu_);
  if (folder_.pending()) write_locked(folder_.flush_due(now_ms()));
}

void EventLog::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  write_locked(folder_.flush_all());
}

bool EventLog::pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return folder_.pending();
}

std::int64_t EventLog::dropped() {
  std::lock_guard<std::mutex> lock(mu_);
  return folder_.dropped();
}

void EventLog::write_locked(const std::vector<session::EventLine>& lines) {
  for (const auto& l : lines) {
    std::string line = l.text + "\n";
    if (l.to_file) {
      if (!opened_) {
        opened_ = true;
        fd_.reset(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
        // A log appended to (a session that failed after its start) counts what it holds already.
        struct stat st {};
        if (fd_.valid() && ::fstat(fd_.get(), &st) == 0) folder_.add_existing(st.st_size);
      }
      // One write(2) per line on an O_APPEND descriptor: a crash loses at most the line being written.
      const char* p = line.data();
      std::size_t left = line.size();
      while (fd_.valid() && left > 0) {
        const ssize_t n = ::write(fd_.get(), p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        p += n;
        left -= static_cast<std::size_t>(n);
      }
    }
    for (auto it = subscribers_.begin(); it != subscribers_.end();) {
      // MSG_DONTWAIT: a stalled subscriber must never block the session; it is dropped instead.
      const ssize_t n = ::send(*it, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n != static_cast<ssize_t>(line.size())) {
        ::shutdown(*it, SHUT_RDWR);
        it = subscribers_.erase(it);
      } else {
        ++it;
      }
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
