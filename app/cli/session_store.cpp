#include "app/cli/session_store.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "platform/sessions.h"
#include "platform/unix_socket.h"

namespace paddock::cli {

Result<std::string> SessionStore::new_id() {
  unsigned char rnd[6];
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::read(fd, rnd, sizeof rnd) != static_cast<ssize_t>(sizeof rnd)) {
    if (fd >= 0) ::close(fd);
    return internal_error(std::string("cannot read /dev/urandom: ") + std::strerror(errno));
  }
  ::close(fd);
  time_t now = ::time(nullptr);
  struct tm tm {};
  ::gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::string id = std::string(stamp) + "-";
  static const char* hex = "0123456789abcdef";
  for (unsigned char b : rnd) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

Status SessionStore::validate_id(const std::string& id) {
  if (!session::valid_session_id(id)) return bad_input("'" + id + "' is not a session id (see 'paddock sessions')");
  return Status::Ok();
}

Result<std::string> SessionStore::create(const std::string& id) const {
  std::error_code ec;
  std::filesystem::create_directories(layout_.sessions_dir(), ec);
  if (ec) return refused("cannot create " + layout_.sessions_dir() + ": " + ec.message());
  ::chmod(layout_.state_dir.c_str(), 0700);
  std::string dir = session_dir(id);
  if (::mkdir(dir.c_str(), 0700) != 0)
    return refused("cannot create session directory " + dir + ": " + std::strerror(errno));
  return dir;
}

std::vector<std::string> SessionStore::list_ids() const { return platform::list_session_ids(layout_); }

session::SessionSummary SessionStore::summary(const std::string& id) const {
  return platform::read_session_summary(layout_, id);
}

Result<session::ControlReply> control_request(const std::string& socket_path, const session::ControlRequest& request) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) return bad_input("control socket path too long: " + socket_path);
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return internal_error(std::string("socket: ") + std::strerror(errno));
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(s);
    return bad_input("no live session at " + socket_path);
  }
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string line = session::encode_control_request(request) + "\n";
  (void)::send(s, line.data(), line.size(), MSG_NOSIGNAL);
  std::string reply;
  char buf[4096];
  // One reply line; a helper never sends one longer than a MiB.
  while (reply.find('\n') == std::string::npos && reply.size() < (std::size_t{1} << 20)) {
    ssize_t n = ::read(s, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(s);
  const auto nl = reply.find('\n');
  if (nl == std::string::npos) return internal_error("no answer from the session's control socket " + socket_path);
  reply.resize(nl);
  return session::decode_control_reply(reply, "the control socket " + socket_path);
}

}  // namespace paddock::cli
