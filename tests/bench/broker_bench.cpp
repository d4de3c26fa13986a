// Broker benchmark (not a test: prints ratios measured in the same run, asserts nothing).
//  - bulk download over loopback: direct vs through paddock-broker (goal >= 0.9x), and through
//    tinyproxy / squid when installed (scripts/bench installs them; skipped with a line otherwise);
//  - added latency per CONNECT over a direct connection, broker vs squid (goal <= 1.0x);
//  - RSS of a broker (the per-session cost) and per open tunnel.
// Everything stays on 127.0.0.1: the broker runs with --resolve and the TAINTING
// --unsafe-allow-loopback-targets switch, which is what it is for.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int listen_loopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 || listen(fd, 1024) != 0) return -1;
  socklen_t len = sizeof sin;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len);
  *port = ntohs(sin.sin_port);
  return fd;
}

int connect_loopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sin.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string read_line(int fd) {
  std::string s;
  char c;
  while (s.size() < 256 && read(fd, &c, 1) == 1 && c != '\n') s.push_back(c);
  return s;
}

// "B <bytes>\n": sends that many bytes and closes. "E\n": answers "e" and closes.
class BulkServer {
 public:
  BulkServer() : fd_(listen_loopback(&port_)), payload_(1 << 20, 'x') {
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        std::thread([this, c] { serve(c); }).detach();
      }
    });
  }
  ~BulkServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  void serve(int c) {
    std::string line = read_line(c);
    if (line.rfind("B ", 0) == 0) {
      long long left = std::atoll(line.c_str() + 2);
      while (left > 0) {
        size_t n = static_cast<size_t>(std::min<long long>(left, static_cast<long long>(payload_.size())));
        if (!write_all(c, payload_.data(), n)) break;
        left -= static_cast<long long>(n);
      }
    } else if (line == "E") {
      write_all(c, "e", 1);
    }
    close(c);
  }
  int port_ = 0;
  int fd_;
  std::string payload_;
  std::thread thread_;
};

struct Child {
  pid_t pid = -1;
  int out = -1;
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      int st;
      waitpid(pid, &st, 0);
    }
    if (out >= 0) close(out);
  }
};

std::unique_ptr<Child> spawn(const std::vector<std::string>& argv) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return nullptr;
  auto child = std::make_unique<Child>();
  child->pid = fork();
  if (child->pid == 0) {
    dup2(p[1], 1);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(p[1]);
  child->out = p[0];
  return child;
}

// Opens a tunnel to the bulk server through an HTTP CONNECT proxy on `proxy_port`.
int tunnel(int proxy_port, int target_port, const std::string& host) {
  int fd = connect_loopback(proxy_port);
  if (fd < 0) return -1;
  std::string req = "CONNECT " + host + ":" + std::to_string(target_port) + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
  write_all(fd, req.data(), req.size());
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && read(fd, &c, 1) == 1) head.push_back(c);
  if (head.find(" 200") == std::string::npos) {
    close(fd);
    return -1;
  }
  return fd;
}

// MB/s to download `bytes` on a connection made by `open`.
template <class Open>
double download(Open open, long long bytes) {
  std::vector<char> buf(1 << 18);
  auto t0 = Clock::now();
  int fd = open();
  if (fd < 0) return 0;
  std::string req = "B " + std::to_string(bytes) + "\n";
  write_all(fd, req.data(), req.size());
  long long got = 0;
  for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;) got += n;
  close(fd);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  return got == bytes ? static_cast<double>(bytes) / 1e6 / secs : 0;
}

template <class Open>
double best_of(int runs, Open open, long long bytes) {
  double best = 0;
  for (int i = 0; i < runs; ++i) best = std::max(best, download(open, bytes));
  return best;
}

// Median microseconds for open + one tiny request/response + close.
template <class Open>
double round_trip_us(Open open, int n) {
  std::vector<double> us;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    int fd = open();
    if (fd < 0) return -1;
    write_all(fd, "E\n", 2);
    char c;
    if (read(fd, &c, 1) != 1) {
      close(fd);
      return -1;
    }
    close(fd);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

std::optional<std::string> find_program(const char* name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  p += ":/usr/sbin:/sbin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string full = dir + "/" + name;
    if (!dir.empty() && access(full.c_str(), X_OK) == 0) return full;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

int free_port() {
  int port = 0;
  int fd = listen_loopback(&port);
  close(fd);
  return port;
}

bool wait_port(int port) {
  for (int i = 0; i < 100; ++i) {
    int fd = connect_loopback(port);
    if (fd >= 0) {
      close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/paddock-broker-bench-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "/tmp";
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  std::string broker_bin = argc > 1 ? argv[1] : PADDOCK_BROKER_BIN;
  long long bytes = 256LL << 20;
  BulkServer server;
  const int runs = 3;
  std::printf("broker bench: %lld MiB bulk download over loopback, best of %d\n", bytes >> 20, runs);

  auto broker = spawn({broker_bin, "--listen", "127.0.0.1:0", "--allow-domain", "bench.test", "--resolve",
                       "bench.test:127.0.0.1", "--unsafe-allow-loopback-targets"});
  std::string first = broker ? read_line(broker->out) : "";
  size_t colon = first.rfind(':');
  if (first.rfind("listening on", 0) != 0 || colon == std::string::npos) {
    std::printf("paddock-broker did not start (%s): nothing to measure\n", broker_bin.c_str());
    return 1;
  }
  int broker_port = std::atoi(first.c_str() + colon + 1);
  long rss_idle = rss_kib(broker->pid);

  double direct = best_of(runs, [&] { return connect_loopback(server.port()); }, bytes);
  double via_broker = best_of(runs, [&] { return tunnel(broker_port, server.port(), "bench.test"); }, bytes);
  std::printf("direct           %8.0f MB/s\n", direct);
  std::printf("paddock-broker   %8.0f MB/s   ratio %.2fx direct (goal >= 0.90x)\n", via_broker,
              direct > 0 ? via_broker / direct : 0);

  double rt_direct = round_trip_us([&] { return connect_loopback(server.port()); }, 300);
  double rt_broker = round_trip_us([&] { return tunnel(broker_port, server.port(), "bench.test"); }, 300);
  std::printf("connect+1 byte round trip: direct %.0f us, via broker %.0f us: +%.0f us per CONNECT\n", rt_direct,
              rt_broker, rt_broker - rt_direct);

  std::vector<int> open;
  for (int i = 0; i < 200; ++i) {
    int fd = tunnel(broker_port, server.port(), "bench.test");
    if (fd >= 0) open.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  long rss_busy = rss_kib(broker->pid);
  std::printf("broker RSS: %ld KiB idle (the per-session cost), %ld KiB with %zu open tunnels (%.1f KiB each)\n",
              rss_idle, rss_busy, open.size(), open.empty() ? 0.0 : double(rss_busy - rss_idle) / double(open.size()));
  for (int fd : open) {
    write_all(fd, "E\n", 2);
    close(fd);
  }

  // tinyproxy
  if (auto tp = find_program("tinyproxy")) {
    std::string dir = temp_dir();
    int port = free_port();
    std::ofstream(dir + "/tinyproxy.conf") << "Port " << port << "\nListen 127.0.0.1\nTimeout 600\nMaxClients 300\n"
                                           << "Allow 127.0.0.1\nConnectPort " << server.port() << "\nLogLevel Critical\n"
                                           << "PidFile \"" << dir << "/tinyproxy.pid\"\n";
    auto proc = spawn({*tp, "-d", "-c", dir + "/tinyproxy.conf"});
    if (wait_port(port)) {
      double via = best_of(runs, [&] { return tunnel(port, server.port(), "127.0.0.1"); }, bytes);
      double rt = round_trip_us([&] { return tunnel(port, server.port(), "127.0.0.1"); }, 300);
      std::printf("tinyproxy        %8.0f MB/s   ratio %.2fx direct; paddock-broker/tinyproxy %.2fx\n", via,
                  direct > 0 ? via / direct : 0, via > 0 ? via_broker / via : 0);
      std::printf("per CONNECT: tinyproxy +%.0f us over direct\n", rt - rt_direct);
    } else {
      std::printf("tinyproxy: did not start; skipped\n");
    }
    proc.reset();  // SIGTERM and wait: no daemon is left behind
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  } else {
    std::printf("tinyproxy: not installed; skipped (scripts/bootstrap --bench installs it)\n");
  }

  // squid
  if (auto sq = find_program("squid")) {
    std::string dir = temp_dir();
    int port = free_port();
    std::ofstream(dir + "/squid.conf")
        << "http_port 127.0.0.1:" << port << "\nacl localnet src 127.0.0.1\nacl SSL_ports port " << server.port()
        << "\nacl CONNECT method CONNECT\nhttp_access allow localnet\nhttp_access deny all\n"
        << "cache deny all\ncache_mem 8 MB\naccess_log none\ncache_log " << dir << "/cache.log\n"
        << "pid_filename " << dir << "/squid.pid\ncoredump_dir " << dir << "\nshutdown_lifetime 0 seconds\n";
    auto proc = spawn({*sq, "-N", "-f", dir + "/squid.conf"});
    const bool started = wait_port(port);
    if (started) {
      double via = best_of(runs, [&] { return tunnel(port, server.port(), "127.0.0.1"); }, bytes);
      double rt = round_trip_us([&] { return tunnel(port, server.port(), "127.0.0.1"); }, 300);
      std::printf("squid            %8.0f MB/s   ratio %.2fx direct; paddock-broker/squid %.2fx\n", via,
                  direct > 0 ? via / direct : 0, via > 0 ? via_broker / via : 0);
      std::printf("per CONNECT: squid +%.0f us, paddock-broker +%.0f us over direct; added latency "
                  "paddock-broker/squid %.2fx (goal <= 1.00x)\n",
                  rt - rt_direct, rt_broker - rt_direct,
                  rt - rt_direct > 0 ? (rt_broker - rt_direct) / (rt - rt_direct) : 0);
    } else {
      std::printf("squid: did not start; skipped (see %s/cache.log)\n", dir.c_str());
    }
    proc.reset();
    std::error_code ec;
    if (started) std::filesystem::remove_all(dir, ec);  // else keep cache.log for the reader
  } else {
    std::printf("squid: not installed; skipped (scripts/bootstrap --bench installs it)\n");
  }
  return 0;
}
