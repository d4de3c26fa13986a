// paddock-connect HOST PORT: the ProxyCommand of --git-ssh. Inside the sandbox there is no
// resolver and no route out; this speaks HTTP CONNECT to the broker's port named by
// $HTTPS_PROXY (the same path every other connection takes, strict-port rules included) and then
// pumps stdin -> tunnel -> stdout.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "engine/main_guard.h"
#include "platform/unique_fd.h"

namespace {

int fail(const std::string& message) {
  std::cerr << "paddock-connect: " << message << "\n";
  return 1;
}

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// "http://127.0.0.1:3128/" -> 127.0.0.1, 3128. Numeric addresses only: there is no resolver here.
bool parse_proxy(std::string v, sockaddr_storage* ss, socklen_t* len) {
  for (const char* scheme : {"http://", "socks5://", "socks5h://"})
    if (v.rfind(scheme, 0) == 0) v = v.substr(std::strlen(scheme));
  if (size_t slash = v.find('/'); slash != std::string::npos) v = v.substr(0, slash);
  size_t colon = v.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = v.substr(0, colon), port_text = v.substr(colon + 1);
  char* end = nullptr;
  long port = std::strtol(port_text.c_str(), &end, 10);
  if (port_text.empty() || *end != '\0' || port < 1 || port > 65535) return false;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  *ss = {};
  auto* sin = reinterpret_cast<sockaddr_in*>(ss);
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(ss);
  if (inet_pton(AF_INET, host.c_str(), &sin->sin_addr) == 1) {
    sin->sin_family = AF_INET;
    sin->sin_port = htons(static_cast<uint16_t>(port));
    *len = sizeof(sockaddr_in);
    return true;
  }
  if (inet_pton(AF_INET6, host.c_str(), &sin6->sin6_addr) == 1) {
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(static_cast<uint16_t>(port));
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

}  // namespace

static int program_main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: paddock-connect HOST PORT   (the proxy comes from $HTTPS_PROXY)\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  std::string host = argv[1], port = argv[2];
  const char* proxy = nullptr;
  for (const char* name : {"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"}) {
    const char* v = std::getenv(name);
    if (v && *v) {
      proxy = v;
      break;
    }
  }
  if (!proxy) return fail("no HTTPS_PROXY in the environment (run inside a Paddock session with a net mode)");
  sockaddr_storage ss{};
  socklen_t ss_len = 0;
  if (!parse_proxy(proxy, &ss, &ss_len)) return fail(std::string("HTTPS_PROXY is not http://IP:PORT: ") + proxy);
  paddock::platform::UniqueFd sock(socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid() || connect(sock.get(), reinterpret_cast<sockaddr*>(&ss), ss_len) != 0)
    return fail(std::string("cannot reach the sandbox proxy ") + proxy + ": " + std::strerror(errno));
  std::string authority = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  std::string request = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
  if (!write_all(sock.get(), request.data(), request.size())) return fail("cannot write to the proxy");

  std::string head;
  char buf[65536];
  size_t end = std::string::npos;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    if (head.size() > 16384) return fail("oversize proxy response");
    ssize_t n = read(sock.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("the proxy closed the connection before answering");
    head.append(buf, static_cast<size_t>(n));
  }
  std::string status_line = head.substr(0, head.find("\r\n"));
  std::string rest = head.substr(end + 4);
  if (status_line.size() < 12 || status_line.compare(9, 3, "200") != 0) {
    // Show the broker's explanation (which rule refused it) to the person running git.
    std::string body = rest;
    while (body.size() < 65536) {
      ssize_t n = read(sock.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      body.append(buf, static_cast<size_t>(n));
    }
    std::cerr << "paddock-connect: the sandbox proxy refused " << authority << ": " << status_line << "\n" << body;
    return 1;
  }
  if (!rest.empty() && !write_all(1, rest.data(), rest.size())) return 1;

  pollfd fds[2] = {{0, POLLIN, 0}, {sock.get(), POLLIN, 0}};
  bool stdin_open = true;
  for (;;) {
    fds[0].fd = stdin_open ? 0 : -1;
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("poll: ") + std::strerror(errno));
    }
    if (stdin_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        stdin_open = false;
        shutdown(sock.get(), SHUT_WR);
      } else if (!write_all(sock.get(), buf, static_cast<size_t>(n))) {
        return 1;
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(sock.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      if (!write_all(1, buf, static_cast<size_t>(n))) return 1;
    }
  }
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-connect", [&] { return program_main(argc, argv); });
}
