// Broker benchmark (not a test: prints ratios measured in the same run, asserts nothing).
//  - bulk download over loopback: direct vs through paddock-broker (goal >= 0.9x), through an
//    "ideal relay" (the smallest possible splice relay, no policy: what ANY relay costs on this
//    machine) and through tinyproxy / squid when installed (scripts/bench installs them; skipped
//    with a line otherwise). Variants are measured INTERLEAVED (round after round, in a rotating
//    order) so that load from other processes hits them alike; medians are printed, with the CPU
//    time the transfer cost (this process + the proxy process), which is less noise-sensitive;
//  - added latency per CONNECT over a direct connection, broker vs squid (goal <= 1.0x), also
//    interleaved;
//  - RSS of a broker (the per-session cost) and per open tunnel.
// Everything stays on 127.0.0.1: the broker runs with --resolve and the TAINTING
// --unsafe-allow-loopback-targets switch, which is what it is for.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
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
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
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
        std::thread([this, c] {
          pthread_setname_np(pthread_self(), "bulk-server");  // for perf report --sort comm
          serve(c);
        }).detach();
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

long long thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The floor: the smallest relay that does the broker's job on the wire. It answers CONNECT
// without looking at it, connects to the bulk server, then runs one blocking thread per direction
// doing splice(src -> pipe) / splice(pipe -> dst) through a 1 MiB pipe (as the broker does), with
// no policy, events, quotas or event loop. Whatever it costs over direct, any relay costs here.
class IdealRelay {
 public:
  explicit IdealRelay(int target_port) : fd_(listen_loopback(&port_)), target_port_(target_port) {
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        std::thread([this, c] {
          pthread_setname_np(pthread_self(), "ideal-relay");
          serve(c);
        }).detach();
      }
    });
  }
  ~IdealRelay() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  // CPU time its pump threads have used, so far.
  static long long cpu_ns() { return cpu_ns_.load(); }

 private:
  void serve(int c) {
    std::string head;
    char ch;
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 8192 && read(c, &ch, 1) == 1) head.push_back(ch);
    int u = connect_loopback(target_port_);
    static const char kOk[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    if (u < 0 || !write_all(c, kOk, sizeof kOk - 1)) {
      if (u >= 0) close(u);
      close(c);
      return;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as the broker does
    std::thread up([c, u] {
      pthread_setname_np(pthread_self(), "ideal-relay");
      pump(c, u);
    });
    pump(u, c);
    up.join();
    close(u);
    close(c);
  }
  static void pump(int src, int dst) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    for (;;) {
      ssize_t n = splice(src, nullptr, p[1], nullptr, 1 << 20, SPLICE_F_MOVE);
      if (n <= 0) break;
      while (n > 0) {
        ssize_t w = splice(p[0], nullptr, dst, nullptr, static_cast<size_t>(n), SPLICE_F_MOVE);
        if (w <= 0) break;
        n -= w;
      }
      if (n > 0) break;
    }
    cpu_ns_ += thread_cpu_ns();  // before the shutdown that ends the client's download
    shutdown(dst, SHUT_WR);
    close(p[0]);
    close(p[1]);
  }
  int port_ = 0;
  int fd_;
  int target_port_;
  std::thread thread_;
  static inline std::atomic<long long> cpu_ns_{0};
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

// CPU time of a process and of its child processes (tinyproxy serves each connection from a
// child): utime + stime + cutime + cstime of each from /proc/PID/stat. These include threads and
// children that have already exited, which per-thread counters would miss; the price is
// clock-tick resolution (10 ms), small against the 60-900 ms a proxy spends per round.
long long stat_cpu_ns(const std::string& stat, pid_t* ppid) {
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream rest(stat.substr(paren + 1));
  std::vector<std::string> f;
  for (std::string t; rest >> t && f.size() < 15;) f.push_back(t);
  if (f.size() < 15) return 0;
  *ppid = static_cast<pid_t>(std::atol(f[1].c_str()));
  long long ticks = std::atoll(f[11].c_str()) + std::atoll(f[12].c_str()) + std::atoll(f[13].c_str()) +
                    std::atoll(f[14].c_str());
  return ticks * 1000000000LL / sysconf(_SC_CLK_TCK);
}

// read(2), not an ifstream: a process can exit mid-read (ESRCH), which libstdc++'s filebuf throws.
std::string slurp(const std::filesystem::path& p) {
  std::string out;
  int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[1024];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

long long process_cpu_ns(pid_t pid) {
  pid_t ppid = 0;
  long long total = stat_cpu_ns(slurp("/proc/" + std::to_string(pid) + "/stat"), &ppid);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    long long ns = stat_cpu_ns(slurp(e.path() / "stat"), &ppid);
    if (ppid == pid) total += ns;
  }
  return total;
}

// This process, including threads that have exited (the bulk server's and the ideal relay's).
long long self_cpu_ns() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) { return static_cast<long long>(tv.tv_sec) * 1000000000LL + tv.tv_usec * 1000LL; };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

struct Variant {
  Variant(std::string n, std::function<int()> o, pid_t p = -1, std::function<long long()> relay_cpu = {})
      : name(std::move(n)), open(std::move(o)), pid(p), relay_cpu_ns(std::move(relay_cpu)) {
    if (pid > 0 && !relay_cpu_ns) relay_cpu_ns = [p] { return process_cpu_ns(p); };
  }
  std::string name;
  std::function<int()> open;
  pid_t pid = -1;  // the proxy's process, whose CPU time counts too; -1 = none or in this process
  std::function<long long()> relay_cpu_ns;  // the relay's own CPU time so far; empty for direct
  std::vector<double> mbps, ratio, cpu_ms_per_gib;
  // The relay's own CPU summed over all rounds (clock ticks are coarse for one round).
  long long relay_ns = 0, relay_bytes = 0;
  double relay_ms_per_gib() const {
    return relay_bytes > 0 ? static_cast<double>(relay_ns) / 1e6 * static_cast<double>(1LL << 30) / static_cast<double>(relay_bytes) : 0;
  }
};

// Downloads `bytes` on a connection made by `v.open`, reading `read_size` bytes at a time, and
// records MB/s and the CPU time it cost (client, server, proxy). False if the download failed.
bool download(Variant& v, long long bytes, size_t read_size) {
  std::vector<char> buf(read_size);
  long long relay0 = v.relay_cpu_ns ? v.relay_cpu_ns() : 0;
  long long cpu0 = self_cpu_ns() + (v.pid > 0 ? process_cpu_ns(v.pid) : 0);
  auto t0 = Clock::now();
  int fd = v.open();
  if (fd < 0) return false;
  std::string req = "B " + std::to_string(bytes) + "\n";
  write_all(fd, req.data(), req.size());
  long long got = 0;
  for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;) got += n;
  close(fd);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  // Let the proxy finish with the connection (a child exits and is reaped) before counting.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  long long cpu1 = self_cpu_ns() + (v.pid > 0 ? process_cpu_ns(v.pid) : 0);
  long long relay1 = v.relay_cpu_ns ? v.relay_cpu_ns() : 0;
  if (got != bytes) return false;
  auto per_gib = [&](long long ns) { return static_cast<double>(ns) / 1e6 * static_cast<double>(1LL << 30) / static_cast<double>(bytes); };
  v.mbps.push_back(static_cast<double>(bytes) / 1e6 / secs);
  v.cpu_ms_per_gib.push_back(per_gib(cpu1 - cpu0));
  v.relay_ns += relay1 - relay0;
  v.relay_bytes += bytes;
  return true;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Microseconds for open + one tiny request/response + close; -1 on failure.
double round_trip_us(const std::function<int()>& open) {
  auto t0 = Clock::now();
  int fd = open();
  if (fd < 0) return -1;
  write_all(fd, "E\n", 2);
  char c;
  bool ok = read(fd, &c, 1) == 1;
  close(fd);
  return ok ? std::chrono::duration<double, std::micro>(Clock::now() - t0).count() : -1;
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

// A proxy started for the run, stopped (SIGTERM, waited for) and its temp dir removed at the end.
struct Proxy {
  std::string name;
  std::unique_ptr<Child> proc;
  std::string dir;
  int port = 0;
  bool keep_dir = false;  // squid that did not start: keep cache.log for the reader
  ~Proxy() {
    proc.reset();
    std::error_code ec;
    if (!dir.empty() && !keep_dir) std::filesystem::remove_all(dir, ec);
  }
};

std::unique_ptr<Proxy> start_tinyproxy(int target_port) {
  auto tp = find_program("tinyproxy");
  if (!tp) {
    std::printf("tinyproxy: not installed; skipped (scripts/bootstrap --bench installs it)\n");
    return nullptr;
  }
  auto p = std::make_unique<Proxy>();
  p->name = "tinyproxy";
  p->dir = temp_dir();
  p->port = free_port();
  std::ofstream(p->dir + "/tinyproxy.conf") << "Port " << p->port << "\nListen 127.0.0.1\nTimeout 600\nMaxClients 300\n"
                                            << "Allow 127.0.0.1\nConnectPort " << target_port << "\nLogLevel Critical\n"
                                            << "PidFile \"" << p->dir << "/tinyproxy.pid\"\n";
  p->proc = spawn({*tp, "-d", "-c", p->dir + "/tinyproxy.conf"});
  if (!p->proc || !wait_port(p->port)) {
    std::printf("tinyproxy: did not start; skipped\n");
    return nullptr;
  }
  return p;
}

std::unique_ptr<Proxy> start_squid(int target_port) {
  auto sq = find_program("squid");
  if (!sq) {
    std::printf("squid: not installed; skipped (scripts/bootstrap --bench installs it)\n");
    return nullptr;
  }
  auto p = std::make_unique<Proxy>();
  p->name = "squid";
  p->dir = temp_dir();
  p->port = free_port();
  std::ofstream(p->dir + "/squid.conf")
      << "http_port 127.0.0.1:" << p->port << "\nacl localnet src 127.0.0.1\nacl SSL_ports port " << target_port
      << "\nacl CONNECT method CONNECT\nhttp_access allow localnet\nhttp_access deny all\n"
      << "cache deny all\ncache_mem 8 MB\naccess_log none\ncache_log " << p->dir << "/cache.log\n"
      << "pid_filename " << p->dir << "/squid.pid\ncoredump_dir " << p->dir << "\nshutdown_lifetime 0 seconds\n";
  p->proc = spawn({*sq, "-N", "-f", p->dir + "/squid.conf"});
  if (!p->proc || !wait_port(p->port)) {
    std::printf("squid: did not start; skipped (see %s/cache.log)\n", p->dir.c_str());
    p->keep_dir = true;
    return nullptr;
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  // [--broker BIN] [--only NAME] [--rounds N] [--read-size BYTES]: --only keeps "direct" and one
  // variant and skips the latency and RSS parts, for profiling one relay (perf record -g -- ...).
  // The client reads 64 KiB at a time, as ordinary HTTP clients do (libuv/Node.js reads 64 KiB,
  // curl 16 KiB, Go's io.Copy 32 KiB). Larger reads are not faster on loopback: with 256 KiB reads
  // more data queues before it is copied out and the copy runs cache-cold; on a quiet machine
  // direct then costs up to ~1.9x the CPU (less under load, where every copy is cold), which
  // flattered every relay's ratio.
  std::string broker_bin = PADDOCK_BROKER_BIN, only;
  int rounds = 5;
  size_t read_size = 64 << 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--broker") broker_bin = argv[i + 1];
    else if (a == "--only") only = argv[i + 1];
    else if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--read-size") read_size = static_cast<size_t>(std::clamp(std::atol(argv[i + 1]), 1L, 1L << 26));
    else {
      std::fprintf(stderr, "usage: broker_bench [--broker BIN] [--only VARIANT] [--rounds N] [--read-size BYTES]\n");
      return 2;
    }
  }
  const long long bytes = 256LL << 20;
  const int latency_samples = 300;
  BulkServer server;
  IdealRelay ideal(server.port());

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
  auto tinyproxy = start_tinyproxy(server.port());
  auto squid = start_squid(server.port());

  const int target = server.port();
  std::vector<Variant> variants;
  variants.emplace_back("direct", [&] { return connect_loopback(target); });
  variants.emplace_back("ideal relay", [&] { return tunnel(ideal.port(), target, "127.0.0.1"); }, -1, IdealRelay::cpu_ns);
  variants.emplace_back("paddock-broker", [&] { return tunnel(broker_port, target, "bench.test"); }, broker->pid);
  if (squid) variants.emplace_back("squid", [&] { return tunnel(squid->port, target, "127.0.0.1"); }, squid->proc->pid);
  if (tinyproxy)
    variants.emplace_back("tinyproxy", [&] { return tunnel(tinyproxy->port, target, "127.0.0.1"); }, tinyproxy->proc->pid);

  if (!only.empty()) {
    std::erase_if(variants, [&](const Variant& v) { return v.name != "direct" && v.name != only; });
    if (variants.size() != 2) {
      std::fprintf(stderr, "--only %s: no such variant (ideal relay, paddock-broker, squid, tinyproxy)\n", only.c_str());
      return 2;
    }
  }
  std::printf("broker bench: %lld MiB bulk download over loopback, client reads of %zu KiB, %d interleaved "
              "rounds, medians\n", bytes >> 20, read_size >> 10, rounds);
  for (int r = 0; r < rounds; ++r) {
    // Rotate the order each round so no variant always runs right after the same neighbour.
    std::vector<double> mbps(variants.size(), 0);
    for (size_t k = 0; k < variants.size(); ++k) {
      size_t i = (k + static_cast<size_t>(r)) % variants.size();
      if (!download(variants[i], bytes, read_size)) std::printf("%s: download failed in round %d\n", variants[i].name.c_str(), r);
      else mbps[i] = variants[i].mbps.back();
    }
    for (size_t i = 1; i < variants.size(); ++i)
      if (mbps[0] > 0 && mbps[i] > 0) variants[i].ratio.push_back(mbps[i] / mbps[0]);
  }
  const double direct_cpu = median(variants[0].cpu_ms_per_gib);
  for (const auto& v : variants) {
    std::printf("%-15s %7.0f MB/s", v.name.c_str(), median(v.mbps));
    if (&v != &variants[0]) std::printf("   %.2fx direct", median(v.ratio));
    std::printf("   CPU %5.0f ms/GiB", median(v.cpu_ms_per_gib));
    if (&v != &variants[0]) std::printf(" (+%.0f; relay itself %.0f, mean)", median(v.cpu_ms_per_gib) - direct_cpu, v.relay_ms_per_gib());
    if (v.name == "paddock-broker") std::printf("   (goal >= 0.90x)");
    std::printf("\n");
  }
  if (!only.empty()) return 0;
  const double ideal_ratio = median(variants[1].ratio);
  const double broker_ratio = median(variants[2].ratio);
  std::printf("any relay on this machine: %.2fx direct (the ideal relay); paddock-broker/ideal relay %.2fx\n",
              ideal_ratio, ideal_ratio > 0 ? broker_ratio / ideal_ratio : 0);
  // The floor in CPU terms: when the cores are the limit, throughput goes as 1/CPU per byte.
  const double ideal_cpu = median(variants[1].cpu_ms_per_gib);
  std::printf("CPU bound: direct costs %.0f ms/GiB, the ideal relay path %.0f (the relay itself %.0f), so with the "
              "cores saturated no relay can exceed about %.2fx direct here\n",
              direct_cpu, ideal_cpu, variants[1].relay_ms_per_gib(), ideal_cpu > 0 ? direct_cpu / ideal_cpu : 0);
  for (size_t i = 3; i < variants.size(); ++i)
    std::printf("paddock-broker/%s %.2fx\n", variants[i].name.c_str(),
                median(variants[i].mbps) > 0 ? median(variants[2].mbps) / median(variants[i].mbps) : 0);

  // Latency: direct, broker and squid alternate sample by sample.
  std::vector<double> rt_direct, rt_broker, rt_squid;
  for (int i = 0; i < latency_samples; ++i) {
    rt_direct.push_back(round_trip_us(variants[0].open));
    rt_broker.push_back(round_trip_us(variants[2].open));
    if (squid) rt_squid.push_back(round_trip_us([&] { return tunnel(squid->port, target, "127.0.0.1"); }));
  }
  const double d = median(rt_direct), b = median(rt_broker), q = median(rt_squid);
  std::printf("connect+1 byte round trip (median of %d, interleaved): direct %.0f us, via broker %.0f us: +%.0f us "
              "per CONNECT\n",
              latency_samples, d, b, b - d);
  if (squid)
    std::printf("per CONNECT: squid +%.0f us, paddock-broker +%.0f us over direct; added latency "
                "paddock-broker/squid %.2fx (goal <= 1.00x)\n",
                q - d, b - d, q - d > 0 ? (b - d) / (q - d) : 0);

  std::vector<int> open;
  for (int i = 0; i < 200; ++i) {
    int fd = tunnel(broker_port, target, "bench.test");
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
  return 0;
}
