#include "platform/unix_socket.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "platform/unique_fd.h"

namespace paddock::platform {

bool unix_socket_accepts(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  return s.valid() && ::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

}  // namespace paddock::platform
