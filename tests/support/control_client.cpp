#include "tests/support/control_client.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>

namespace paddock::test {

std::string control_line(const std::string& socket_path, const std::string& request) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval patience{20, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", socket_path.c_str());
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(s);
    return "connect failed";
  }
  const std::string line = request + "\n";
  (void)::write(s, line.data(), line.size());
  std::string answer;
  char c;
  while (::read(s, &c, 1) == 1 && c != '\n') answer += c;
  ::close(s);
  return answer;
}

}  // namespace paddock::test
