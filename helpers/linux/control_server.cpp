#include "helpers/linux/control_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "engine/session/record_json.h"
#include "helpers/linux/sys_error.h"
#include "platform/atomic_file.h"

namespace paddock::helper {

ControlServer::~ControlServer() { close_all(); }

Status ControlServer::listen(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return refused("control socket path must be absolute: " + path);
  if (auto s = platform::make_dirs(path.substr(0, slash), 0700); !s) return s;
  // Bound and listening under a temporary name, then renamed into place: a client that sees
  // the path (the GUI, `paddock stop`) can always connect, never racing bind() and listen().
  const std::string staging = path + ".new";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (staging.size() >= sizeof addr.sun_path) return refused("control socket path too long: " + path);
  std::memcpy(addr.sun_path, staging.c_str(), staging.size() + 1);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) return sys_error("control socket");
  ::unlink(staging.c_str());
  mode_t old = ::umask(0177);
  int rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::umask(old);
  if (rc != 0 || ::listen(listen_fd_, 16) != 0) return sys_error("control socket bind", staging);
  if (::rename(staging.c_str(), path.c_str()) != 0) {
    ::unlink(staging.c_str());
    return sys_error("control socket rename", path);
  }
  path_ = path;
  return Status::Ok();
}

void ControlServer::add_poll_fds(std::vector<pollfd>& fds) const {
  if (listen_fd_ >= 0) fds.push_back({listen_fd_, POLLIN, 0});
  for (const auto& [fd, buf] : clients_) fds.push_back({fd, POLLIN, 0});
}

void ControlServer::handle(const std::vector<pollfd>& fds) {
  for (const auto& p : fds) {
    if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    if (p.fd == listen_fd_) {
      int c;
      while ((c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) clients_[c];
      continue;
    }
    auto it = clients_.find(p.fd);
    if (it == clients_.end()) continue;
    char buf[4096];
    ssize_t n = ::read(p.fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      drop(p.fd);
      continue;
    }
    it->second.append(buf, static_cast<std::size_t>(n));
    if (it->second.size() > 65536) {  // no line is that long: a misbehaving client
      drop(p.fd);
      continue;
    }
    std::size_t nl;
    while (clients_.count(p.fd) && (nl = clients_[p.fd].find('\n')) != std::string::npos) {
      std::string line = clients_[p.fd].substr(0, nl);
      clients_[p.fd].erase(0, nl + 1);
      on_line(p.fd, line);
    }
  }
}

void ControlServer::on_line(int fd, const std::string& line) {
  session::ControlReply reply;
  auto request = session::decode_control_request(line);
  bool subscribe = false;
  std::string answer;  // an answer encoded by its own owner, else reply's
  if (!request.ok()) {
    reply.ok = false;
    reply.error = request.error().message;
  } else {
    switch (request->cmd) {
      case session::ControlCommand::kStop:
        handlers_.stop();
        break;
      case session::ControlCommand::kSubscribe:
        subscribe = true;
        break;
      case session::ControlCommand::kAsks:
        if (handlers_.pending) reply.asks = handlers_.pending();
        break;
      case session::ControlCommand::kUsage:
        // Its answer has its own encoder (engine/session/usage_message.h).
        if (handlers_.usage) answer = handlers_.usage();
        else reply = {false, "this session does not report its usage", {}};
        break;
      case session::ControlCommand::kAskReply: {
        Status s = handlers_.ask_reply ? handlers_.ask_reply(request->ask_id, request->answer)
                                       : Status(bad_input("this session asks nothing: its network mode is not ask"));
        if (!s.ok()) {
          reply.ok = false;
          reply.error = s.error().message;
        }
        break;
      }
    }
  }
  std::string out = (answer.empty() ? session::encode_control_reply(reply) : answer) + "\n";
  (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (subscribe) {
    // Subscribe first, then replay: an ask raised in between may arrive twice (same id), but
    // never not at all.
    events_.add_subscriber(fd);
    if (handlers_.pending)
      for (const auto& a : handlers_.pending()) {
        std::string l = session::dump_record(session::ask_event(a)) + "\n";
        (void)::send(fd, l.data(), l.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      }
  }
}

void ControlServer::drop(int fd) {
  events_.drop_subscriber(fd);
  clients_.erase(fd);
  ::close(fd);
}

void ControlServer::close_all() {
  while (!clients_.empty()) drop(clients_.begin()->first);
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
  if (!path_.empty()) {
    ::unlink(path_.c_str());
    path_.clear();
  }
}

}  // namespace paddock::helper
