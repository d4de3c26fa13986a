#include "tests/support/loopback_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <QtGlobal>

namespace paddock::test {

LoopbackServer::LoopbackServer(std::function<void(int fd)> serve)
    : LoopbackServer(0, [serve = std::move(serve)](int fd) {
        serve(fd);
        return std::string();
      }) {
  if (!error_.empty()) qFatal("%s", error_.c_str());
}

LoopbackServer::LoopbackServer(int port, std::function<std::string(int fd)> record) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 64) != 0) {
    error_ = "cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    return;
  }
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this, record = std::move(record)] {
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // shut down
      }
      ++accepted_;
      timeval patience{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
      std::string got = record(c);
      ::close(c);
      std::lock_guard lock(mu_);
      seen_.push_back(std::move(got));
    }
  });
}

LoopbackServer::~LoopbackServer() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);  // wakes the accept
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
}

std::vector<std::string> LoopbackServer::seen() const {
  std::lock_guard lock(mu_);
  return seen_;
}

}  // namespace paddock::test
