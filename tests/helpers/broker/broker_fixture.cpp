#include "tests/helpers/broker/broker_fixture.h"

#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstring>

namespace paddock::broker::test {

EchoServer::EchoServer() : acceptor_(io_, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
  port_ = acceptor_.local_endpoint().port();
  accept_next();
  thread_ = std::thread([this] { io_.run(); });
}

EchoServer::~EchoServer() {
  io_.stop();
  thread_.join();
}

namespace {
struct EchoSession : std::enable_shared_from_this<EchoSession> {
  explicit EchoSession(asio::ip::tcp::socket s) : socket(std::move(s)) {}
  void read() {
    socket.async_read_some(asio::buffer(buf), [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
      if (ec) {
        asio::error_code ignored;
        self->socket.close(ignored);
        return;
      }
      asio::async_write(self->socket, asio::buffer(self->buf, n), [self](const asio::error_code& ec2, std::size_t) {
        if (!ec2) self->read();
      });
    });
  }
  asio::ip::tcp::socket socket;
  std::array<char, 65536> buf{};
};
}  // namespace

void EchoServer::accept_next() {
  acceptor_.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket s) {
    if (ec) return;
    ++accepted_;
    std::make_shared<EchoSession>(std::move(s))->read();
    accept_next();
  });
}

void ScriptedResolver::script(const std::string& host, std::vector<std::vector<std::string>> answers) {
  std::lock_guard lock(mu_);
  auto& q = answers_[host];
  q.clear();
  for (const auto& set : answers) {
    std::vector<IpAddress> ips;
    for (const auto& text : set) ips.push_back(*IpAddress::parse(text));
    q.push_back(std::move(ips));
  }
}

Result<std::vector<IpAddress>> ScriptedResolver::resolve(const std::string& host) {
  std::lock_guard lock(mu_);
  ++calls_[host];
  auto it = answers_.find(host);
  if (it == answers_.end() || it->second.empty()) return internal_error("scripted resolver: no answer for " + host);
  std::vector<IpAddress> r = it->second.front();
  if (it->second.size() > 1) it->second.pop_front();
  return r;
}

int ScriptedResolver::calls(const std::string& host) {
  std::lock_guard lock(mu_);
  return calls_[host];
}

EventSink EventLog::sink() {
  return [this](nlohmann::json e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
    cv_.notify_all();
  };
}

std::vector<nlohmann::json> EventLog::all() {
  std::lock_guard lock(mu_);
  return events_;
}

std::vector<nlohmann::json> EventLog::of(const std::string& type) {
  std::lock_guard lock(mu_);
  std::vector<nlohmann::json> out;
  for (const auto& e : events_)
    if (e.value("event", "") == type) out.push_back(e);
  return out;
}

bool EventLog::wait_for(const std::string& type, std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    std::size_t k = 0;
    for (const auto& e : events_)
      if (e.value("event", "") == type) ++k;
    return k >= n;
  });
}

platform::UniqueFd loopback_listener(int* port) {
  platform::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 || listen(fd.get(), 4096) != 0) return {};
  socklen_t len = sizeof sin;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sin), &len);
  *port = ntohs(sin.sin_port);
  return fd;
}

bool Client::connect(int port) {
  fd_.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sin.sin_port = htons(static_cast<uint16_t>(port));
  return fd_.valid() && ::connect(fd_.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0;
}

bool Client::send(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

bool Client::read_some(std::string* out, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  if (left <= 0) return false;
  pollfd p{fd_.get(), POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
  char buf[65536];
  ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  out->append(buf, static_cast<size_t>(n));
  return true;
}

std::string Client::read_until(const std::string& marker, std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.find(marker) == std::string::npos && read_some(&out, deadline)) {}
  return out;
}

std::string Client::read_exactly(std::size_t n, std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < n && read_some(&out, deadline)) {}
  return out;
}

std::string Client::read_to_eof(std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_some(&out, deadline)) {}
  return out;
}

void Client::half_close() { ::shutdown(fd_.get(), SHUT_WR); }

bool BrokerHarness::start(IrEgress egress, AskHandler ask, std::chrono::milliseconds ask_timeout,
                          std::chrono::milliseconds header_timeout) {
  BrokerOptions o;
  o.egress = std::move(egress);
  o.resolver = resolver;
  o.events = events.sink();
  o.ask = std::move(ask);
  o.ask_timeout = ask_timeout;
  o.header_timeout = header_timeout;
  o.vetting.unsafe_allow_loopback = true;  // test seam: "public" answers point at 127.0.0.1
  auto b = Broker::create(std::move(o));
  if (!b.ok()) {
    error = b.error().message;
    return false;
  }
  broker = std::move(b.value());
  platform::UniqueFd fd = loopback_listener(&port);
  if (!fd.valid()) {
    error = "cannot listen on loopback";
    return false;
  }
  if (Status s = broker->serve(std::move(fd)); !s) {
    error = s.error().message;
    return false;
  }
  return true;
}

bool BrokerHarness::wait_idle(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (broker->live_connections() > 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::string connect_request(const std::string& authority) {
  return "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\nUser-Agent: test\r\n\r\n";
}

std::string socks5_connect_domain(const std::string& host, int port) {
  std::string r{'\x05', '\x01', '\x00', '\x03', static_cast<char>(host.size())};
  r += host;
  r.push_back(static_cast<char>((port >> 8) & 0xff));
  r.push_back(static_cast<char>(port & 0xff));
  return r;
}

int count_open_fds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n - 1;  // the DIR's own fd
}

}  // namespace paddock::broker::test
