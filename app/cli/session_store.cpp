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
#include <sstream>

namespace paddock::cli {

using nlohmann::json;

SessionStore::SessionStore(const CliContext& ctx) {
  std::string home = ctx.env("HOME", "/");
  std::string state = ctx.env("XDG_STATE_HOME");
  state_dir_ = (state.empty() || state[0] != '/' ? home + "/.local/state" : state) + "/paddock";
  std::string runtime = ctx.env("XDG_RUNTIME_DIR");
  if (!runtime.empty() && runtime[0] == '/') runtime_dir_ = runtime + "/paddock";
}

std::string SessionStore::control_socket(const std::string& id) const {
  if (!runtime_dir_.empty()) return runtime_dir_ + "/" + id + ".sock";
  return session_dir(id) + "/control.sock";
}

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
  bool ok = !id.empty() && id.size() <= 64 &&
            std::all_of(id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
  if (!ok) return bad_input("'" + id + "' is not a session id (see 'paddock sessions')");
  return Status::Ok();
}

Result<std::string> SessionStore::create(const std::string& id) const {
  std::error_code ec;
  std::filesystem::create_directories(sessions_dir(), ec);
  if (ec) return refused("cannot create " + sessions_dir() + ": " + ec.message());
  ::chmod(state_dir_.c_str(), 0700);
  std::string dir = session_dir(id);
  if (::mkdir(dir.c_str(), 0700) != 0)
    return refused("cannot create session directory " + dir + ": " + std::strerror(errno));
  return dir;
}

std::vector<std::string> SessionStore::list_ids() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(sessions_dir(), ec))
    if (e.is_directory() && validate_id(e.path().filename().string())) ids.push_back(e.path().filename().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

json SessionStore::summary(const std::string& id) const {
  json s = {{"id", id}, {"status", "unknown"}, {"exit_code", nullptr}, {"started", nullptr},
            {"command", json::array()}, {"ir_hash", nullptr}};
  std::string dir = session_dir(id);
  if (auto events = read_whole_file(dir + "/events.jsonl"); events.ok()) {
    std::istringstream in(*events);
    std::string line;
    if (std::getline(in, line)) {
      json first = json::parse(line, nullptr, false);
      if (first.is_object() && first.value("event", "") == "session_started") {
        s["started"] = first.value("ts", "");
        if (first.contains("command")) s["command"] = first["command"];
        if (first.contains("ir_hash")) s["ir_hash"] = first["ir_hash"];
      }
    }
  }
  if (auto report = read_whole_file(dir + "/report.json"); report.ok()) {
    json r = json::parse(*report, nullptr, false);
    if (r.is_object()) {
      s["status"] = r.value("status", "unknown");
      if (r.contains("exit_code")) s["exit_code"] = r["exit_code"];
    }
    return s;
  }
  // No report yet: running if its helper answers on the control socket, else it died uncleanly.
  auto reply = control_request(control_socket(id), {{"cmd", "subscribe"}});
  s["status"] = reply.ok() ? "running" : "abandoned";
  return s;
}

Status write_file_atomic(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return refused("cannot write " + tmp + ": " + std::strerror(errno));
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return refused("cannot write " + tmp + ": " + std::strerror(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // rename(2) makes the file appear whole or not at all; no fsync on the launch path.
  bool ok = true;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return refused("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::string> read_whole_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return bad_input("cannot read " + path + ": " + std::strerror(errno));
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

Result<json> control_request(const std::string& socket_path, const json& request) {
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
  std::string line = request.dump() + "\n";
  (void)::send(s, line.data(), line.size(), MSG_NOSIGNAL);
  std::string reply;
  char c;
  while (::read(s, &c, 1) == 1 && c != '\n') reply += c;
  ::close(s);
  json j = json::parse(reply, nullptr, false);
  if (!j.is_object()) return internal_error("no answer from the session's control socket " + socket_path);
  return j;
}

}  // namespace paddock::cli
