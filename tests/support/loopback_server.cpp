#include "tests/support/loopback_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QtGlobal>

namespace paddock::test {

LoopbackServer::LoopbackServer(std::function<void(int fd)> serve) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
    qFatal("cannot listen on 127.0.0.1");
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this, serve = std::move(serve)] {
    for (;;) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;  // shut down
      ++accepted_;
      serve(c);
      ::close(c);
    }
  });
}

LoopbackServer::~LoopbackServer() {
  ::shutdown(fd_, SHUT_RDWR);  // wakes the accept
  thread_.join();
  ::close(fd_);
}

}  // namespace paddock::test
