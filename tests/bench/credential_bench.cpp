// Credential broker benchmark (not a test: prints ratios measured in the same run, asserts
// nothing). Against one TLS upstream on loopback (a throwaway CA made with openssl at start; a
// blocking Asio/OpenSSL server, one thread per connection), a client asks
//  - latency: a small request and its 64-byte answer, on a kept-alive connection (also with the
//    upstream taking 2 ms to answer, as any real API takes at least that), and on a new
//    connection each time (TLS handshake included);
//  - throughput: one large response streamed in 64 KiB writes;
// directly over TLS (the client decrypts, as an agent's HTTP client would without the broker) and
// through the credential broker (plain HTTP to the endpoint; the broker adds the key, decrypts,
// scrubs and relays), and, as the floor of any relay, through an ideal relay (PlainRelay: the
// broker's hops, nothing done but copying the client's TLS bytes). Goals: brokered latency <=
// 1.1x direct, throughput >= 0.9x direct. Variants run interleaved, round after round, so that
// load from other processes hits them alike; medians are printed, with the load average before
// and after (the machine is shared). --only direct|brokered|relay runs one alone (profiling).
#include <openssl/ssl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <nlohmann/json.hpp>

#include "helpers/broker/credential_broker.h"

namespace {

using Clock = std::chrono::steady_clock;
using tcp = asio::ip::tcp;
namespace broker = paddock::broker;

constexpr const char* kKey = "sk-bench-REAL-KEY-0123456789abcdef";
constexpr const char* kPlaceholder = "paddock-placeholder-bench0123456789abcdef";
constexpr std::size_t kSmall = 64;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

bool run(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

// The throwaway CA and the server's certificate for api.bench.test.
struct Certs {
  std::string dir, ca, cert, key;
  bool make() {
    char templ[] = "/tmp/paddock-credential-bench-XXXXXX";
    if (!::mkdtemp(templ)) return false;
    dir = templ;
    ca = dir + "/ca.pem";
    cert = dir + "/server.pem";
    key = dir + "/server.key";
    std::ofstream(dir + "/ext") << "subjectAltName=DNS:api.bench.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n";
    return run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir + "/ca.key -out " + ca +
               " -days 2 -subj /CN=bench-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign") &&
           run("openssl req -newkey rsa:2048 -nodes -keyout " + key + " -out " + dir + "/s.csr -subj /CN=api.bench.test") &&
           run("openssl x509 -req -in " + dir + "/s.csr -CA " + ca + " -CAkey " + dir + "/ca.key -CAcreateserial -out " + cert +
               " -days 2 -extfile " + dir + "/ext");
  }
  ~Certs() {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
};

// Reads one HTTP/1.1 response with a Content-Length from `s`; returns the body's size, -1 on error.
template <class Stream>
long read_response(Stream& s, std::string& buf) {
  asio::error_code ec;
  std::size_t end;
  while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
    char tmp[65536];
    const std::size_t n = s.read_some(asio::buffer(tmp), ec);
    if (ec) return -1;
    buf.append(tmp, n);
  }
  const auto cl = buf.find("Content-Length: ");
  if (cl == std::string::npos || cl > end) return -1;
  const long length = std::atol(buf.c_str() + cl + 16);
  buf.erase(0, end + 4);
  long have = static_cast<long>(buf.size());
  std::vector<char> tmp(1 << 16);
  while (have < length) {
    const std::size_t n = s.read_some(asio::buffer(tmp), ec);
    if (ec) return -1;
    have += static_cast<long>(n);
  }
  buf.erase(0, std::min<std::size_t>(buf.size(), static_cast<std::size_t>(length)));
  if (have > length) buf.clear();  // a benchmark client never pipelines
  return length;
}

// The TLS upstream: GET /small -> 64 bytes; GET /stream?N -> N bytes in 64 KiB writes.
class Upstream {
 public:
  Upstream(const Certs& c) : ctx_(asio::ssl::context::tls_server), acceptor_(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
    ctx_.use_certificate_chain_file(c.cert);
    ctx_.use_private_key_file(c.key, asio::ssl::context::pem);
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~Upstream() {
    stopping_ = true;
    // A blocked accept(2) is woken by shutdown, not by a close from another thread.
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    thread_.join();
    asio::error_code ignored;
    acceptor_.close(ignored);
  }
  int port() const { return port_; }

 private:
  void accept_loop() {
    for (;;) {
      asio::error_code ec;
      tcp::socket s(io_);
      acceptor_.accept(s, ec);
      if (ec || stopping_) return;
      std::thread([this, s = std::move(s)]() mutable { serve(std::move(s)); }).detach();
    }
  }
  void serve(tcp::socket s) {
    s.set_option(tcp::no_delay(true));
    asio::ssl::stream<tcp::socket> tls(std::move(s), ctx_);
    asio::error_code ec;
    tls.handshake(asio::ssl::stream_base::server, ec);
    if (ec) return;
    std::string buf;
    const std::string chunk(65536, 'x');
    for (;;) {
      std::size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        char tmp[4096];
        const std::size_t n = tls.read_some(asio::buffer(tmp), ec);
        if (ec) return;
        buf.append(tmp, n);
      }
      const std::string head = buf.substr(0, end);
      buf.erase(0, end + 4);
      long size = kSmall;
      if (const auto q = head.find("GET /stream?"); q != std::string::npos) size = std::atol(head.c_str() + q + 12);
      // A real API spends time on each request before it answers: 2 ms here.
      if (head.rfind("GET /slow", 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const std::string resp = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                               std::to_string(size) + "\r\n\r\n";
      asio::write(tls, asio::buffer(resp), ec);
      for (long left = size; left > 0 && !ec; left -= static_cast<long>(chunk.size()))
        asio::write(tls, asio::buffer(chunk.data(), std::min<std::size_t>(chunk.size(), static_cast<std::size_t>(left))), ec);
      if (ec) return;
    }
  }

  asio::io_context io_;
  asio::ssl::context ctx_;
  tcp::acceptor acceptor_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
};

// A client of either kind: TLS to the upstream (direct), or plain HTTP to the broker's endpoint.
class Client {
 public:
  Client(bool brokered, int port, const Certs& c) : brokered_(brokered), port_(port), ctx_(asio::ssl::context::tls_client) {
    ctx_.load_verify_file(c.ca);
    ctx_.set_verify_mode(asio::ssl::verify_peer);
  }
  bool connect() {
    asio::error_code ec;
    plain_ = std::make_unique<tcp::socket>(io_);
    plain_->connect(tcp::endpoint(asio::ip::address_v4::loopback(), static_cast<unsigned short>(port_)), ec);
    if (ec) return false;
    plain_->set_option(tcp::no_delay(true));
    buf_.clear();
    if (brokered_) return true;
    tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(*plain_, ctx_);
    SSL_set_tlsext_host_name(tls_->native_handle(), "api.bench.test");
    tls_->set_verify_callback(asio::ssl::host_name_verification("api.bench.test"));
    tls_->handshake(asio::ssl::stream_base::client, ec);
    return !ec;
  }
  // One request and its whole response: the body's size, -1 on error.
  long get(const std::string& path) {
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: " +
                            (brokered_ ? "127.0.0.1:" + std::to_string(port_) : std::string("api.bench.test")) +
                            "\r\nx-api-key: " + (brokered_ ? kPlaceholder : kKey) + "\r\n\r\n";
    asio::error_code ec;
    if (brokered_) {
      asio::write(*plain_, asio::buffer(req), ec);
      return ec ? -1 : read_response(*plain_, buf_);
    }
    asio::write(*tls_, asio::buffer(req), ec);
    return ec ? -1 : read_response(*tls_, buf_);
  }
  void close() {
    tls_.reset();
    plain_.reset();
  }

 private:
  bool brokered_;
  int port_;
  asio::io_context io_;
  asio::ssl::context ctx_;
  std::unique_ptr<tcp::socket> plain_;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;
  std::string buf_;
};

struct Sample {
  double warm_us = 0, warm_cpu_us = 0, cold_us = 0, slow_us = 0, mbps = 0;
};

// CPU time this whole process (client, upstream, broker or relay) has used, in microseconds: the
// kept-alive requests' CPU per request is less at the mercy of other processes than their latency.
double process_cpu_us() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

// The floor of any relay on this machine: one plain 64-byte round trip over loopback TCP to
// another thread, which the broker adds to every exchange (agent -> broker -> agent) whatever it
// does in between. Median of `n`, after `n` to warm up.
double loopback_round_trip_us(int n) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  std::thread echo([&acceptor] {
    asio::error_code ec;
    tcp::socket s(acceptor.get_executor());
    acceptor.accept(s, ec);
    if (ec) return;
    s.set_option(tcp::no_delay(true));
    char buf[kSmall];
    while (!ec) {
      asio::read(s, asio::buffer(buf), ec);
      if (!ec) asio::write(s, asio::buffer(buf), ec);
    }
  });
  tcp::socket c(io);
  asio::error_code ec;
  c.connect(acceptor.local_endpoint(), ec);
  std::vector<double> v;
  if (!ec) {
    c.set_option(tcp::no_delay(true));
    char buf[kSmall] = {};
    for (int i = 0; i < 2 * n && !ec; ++i) {
      const auto t0 = Clock::now();
      asio::write(c, asio::buffer(buf), ec);
      if (!ec) asio::read(c, asio::buffer(buf), ec);
      if (i >= n) v.push_back(ms_since(t0) * 1000);
    }
  }
  c.close(ec);
  echo.join();
  return median(v);
}

// The ideal relay: the broker's hops (the client to a relay thread, on to the upstream and back,
// one event loop like the broker's, TCP_NODELAY on both sides, 256 KiB reads) with nothing done
// in between: the client speaks TLS through it, the relay only copies bytes. What any relay of the
// same shape costs on this machine, whatever it does with the bytes; the broker's ratio to it is
// what its own work costs.
class PlainRelay {
 public:
  explicit PlainRelay(int upstream_port)
      : acceptor_(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)),
        upstream_(asio::ip::address_v4::loopback(), static_cast<unsigned short>(upstream_port)) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~PlainRelay() {
    io_.stop();
    thread_.join();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

 private:
  struct Pipe : std::enable_shared_from_this<Pipe> {
    Pipe(tcp::socket a, asio::io_context& io) : client(std::move(a)), upstream(io) {}
    tcp::socket client, upstream;
    std::vector<char> up = std::vector<char>(1 << 16), down = std::vector<char>(256 << 10);
    void pump(tcp::socket& from, tcp::socket& to, std::vector<char>& buf) {
      from.async_read_some(asio::buffer(buf), [self = shared_from_this(), &from, &to, &buf](const asio::error_code& ec, std::size_t n) {
        if (ec) return self->close();
        asio::async_write(to, asio::buffer(buf.data(), n), [self, &from, &to, &buf](const asio::error_code& e, std::size_t) {
          if (e) return self->close();
          self->pump(from, to, buf);
        });
      });
    }
    void close() {
      asio::error_code ignored;
      client.close(ignored);
      upstream.close(ignored);
    }
  };
  void accept() {
    acceptor_.async_accept([this](const asio::error_code& ec, tcp::socket s) {
      if (ec) return;
      auto p = std::make_shared<Pipe>(std::move(s), io_);
      asio::error_code e;
      p->upstream.connect(upstream_, e);  // loopback: at once
      if (!e) {
        p->client.set_option(tcp::no_delay(true), e);
        p->upstream.set_option(tcp::no_delay(true), e);
        p->pump(p->client, p->upstream, p->up);
        p->pump(p->upstream, p->client, p->down);
      }
      accept();
    });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::endpoint upstream_;
  std::thread thread_;
};

// One round of one variant: `requests` kept-alive requests (median per request), `cold` new
// connections with one request each, and one `stream_bytes` download.
bool measure(Client& c, int requests, int cold, long stream_bytes, Sample& out) {
  if (!c.connect()) return false;
  std::vector<double> warm;
  const double cpu0 = process_cpu_us();
  for (int i = 0; i < requests; ++i) {
    const auto t0 = Clock::now();
    if (c.get("/small") != static_cast<long>(kSmall)) return false;
    warm.push_back(ms_since(t0) * 1000);
  }
  out.warm_cpu_us = (process_cpu_us() - cpu0) / requests;
  std::vector<double> slow;
  for (int i = 0; i < requests / 4; ++i) {
    const auto t0 = Clock::now();
    if (c.get("/slow") != static_cast<long>(kSmall)) return false;
    slow.push_back(ms_since(t0) * 1000);
  }
  out.slow_us = median(slow);
  auto t0 = Clock::now();
  if (c.get("/stream?" + std::to_string(stream_bytes)) != stream_bytes) return false;
  out.mbps = static_cast<double>(stream_bytes) / (1 << 20) / (ms_since(t0) / 1000);
  c.close();
  std::vector<double> fresh;
  for (int i = 0; i < cold; ++i) {
    t0 = Clock::now();
    if (!c.connect() || c.get("/small") != static_cast<long>(kSmall)) return false;
    fresh.push_back(ms_since(t0) * 1000);
    c.close();
  }
  out.warm_us = median(warm);
  out.cold_us = median(fresh);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  long stream_mib = 256;
  int requests = 400;
  std::string only;  // for profiling one variant alone (e.g. under perf record -g)
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--stream-mib") stream_mib = std::max(1L, std::atol(argv[i + 1]));
    if (std::string(argv[i]) == "--requests") requests = std::max(4, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
  }
  const char* const kVariants[] = {"direct", "brokered", "relay"};
  if (!only.empty() && only != "direct" && only != "brokered" && only != "relay") {
    std::printf("credential_bench: --only takes direct, brokered or relay\n");
    return 2;
  }
  Certs certs;
  if (!certs.make()) {
    std::printf("credential_bench: openssl could not make the test certificates\n");
    return 1;
  }
  Upstream upstream(certs);
  PlainRelay relay(upstream.port());
  // The broker in this process, on a loopback endpoint, pointed at the upstream as the
  // PADDOCK_DEBUG_UPSTREAM seam points a session's, trusting the throwaway CA.
  broker::CredentialBrokerOptions o;
  broker::CredentialSpec spec;
  spec.name = "bench-key";
  spec.upstream = "api.bench.test";
  spec.connect_to = "127.0.0.1:" + std::to_string(upstream.port());
  spec.header = "x-api-key";
  spec.scheme = paddock::CredentialScheme::kRaw;
  spec.placeholder = kPlaceholder;
  spec.value = kKey;
  asio::io_context scratch;
  tcp::acceptor endpoint(scratch, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  const int endpoint_port = endpoint.local_endpoint().port();
  spec.endpoint_port = endpoint_port;
  o.credentials.push_back(spec);
  o.listeners.emplace_back(endpoint.release());
  o.resolver = std::make_shared<broker::StaticResolver>();
  o.extra_ca_file = certs.ca;
  // Every exchange's event is built and serialised, as a session's sink does before it sends it
  // to the helper.
  std::atomic<std::size_t> event_bytes{0};
  o.events = [&event_bytes](nlohmann::json e) { event_bytes += e.dump().size(); };
  auto b = broker::CredentialBroker::start(std::move(o));
  if (!b.ok()) {
    std::printf("credential_bench: the broker did not start: %s\n", b.error().message.c_str());
    return 1;
  }
  const std::string load_before = load_average();
  constexpr int kCold = 40;
  const long kStream = stream_mib << 20;
  std::vector<Sample> samples[3];  // by kVariants
  std::vector<double> hop;
  for (int r = 0; r < rounds; ++r) {
    hop.push_back(loopback_round_trip_us(requests));
    for (int k = 0; k < 3; ++k) {
      const int v = (r + k) % 3;  // rotate which goes first
      if (!only.empty() && only != kVariants[v]) continue;
      const int port = v == 0 ? upstream.port() : v == 1 ? endpoint_port : relay.port();
      Client c(v == 1, port, certs);
      Sample s;
      std::fprintf(stderr, "round %d: %s\n", r + 1, kVariants[v]);
      if (!measure(c, requests, kCold, kStream, s)) {
        std::printf("credential_bench: a %s round failed\n", kVariants[v]);
        return 1;
      }
      samples[v].push_back(s);
    }
  }
  auto med = [](const std::vector<Sample>& v, double Sample::*f) {
    std::vector<double> x;
    for (const auto& s : v) x.push_back(s.*f);
    return median(x);
  };
  if (!only.empty()) {
    const auto& v = samples[only == "direct" ? 0 : only == "brokered" ? 1 : 2];
    std::printf("%s alone (%d rounds, medians): kept-alive %.0f us, 2 ms upstream %.0f us, new connection %.0f us, "
                "streaming %.0f MiB/s\n",
                only.c_str(), rounds, med(v, &Sample::warm_us), med(v, &Sample::slow_us), med(v, &Sample::cold_us),
                med(v, &Sample::mbps));
    (*b)->stop();
    return 0;
  }
  const auto& d = samples[0];
  const auto& br = samples[1];
  const auto& rl = samples[2];
  // One line per measure: direct, brokered, the ideal relay; brokered/direct against its goal,
  // and relay/direct, the least any relay of the broker's shape gets on this machine.
  auto line = [&](const char* what, double Sample::*f, bool higher_better, const char* goal) {
    const double dv = med(d, f), bv = med(br, f), rv = med(rl, f);
    const char* unit = higher_better ? "MiB/s" : "us";
    std::printf("  %s: direct %.0f %s, brokered %.0f %s: %.2fx%s; ideal relay %.0f %s: %.2fx (brokered %.2fx the ideal relay)\n",
                what, dv, unit, bv, unit, bv / dv, goal, rv, unit, rv / dv, bv / rv);
  };
  std::printf("credential broker vs a direct TLS client, same loopback upstream (%d interleaved rounds, medians)\n", rounds);
  std::printf("  load average before: %s, after: %s (%ld cores)\n", load_before.c_str(), load_average().c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  const std::string warm = "request latency, kept-alive (" + std::to_string(requests) + " requests/round)";
  line(warm.c_str(), &Sample::warm_us, false, " (goal <= 1.1x)");
  line("CPU per kept-alive request (client, upstream and broker or relay together)", &Sample::warm_cpu_us, false, "");
  std::printf("  one plain loopback round trip (64 bytes): %.0f us; brokered - direct: %.0f us\n", median(hop),
              med(br, &Sample::warm_us) - med(d, &Sample::warm_us));
  const std::string slow = "the same with a 2 ms upstream service time (" + std::to_string(requests / 4) + " requests/round)";
  line(slow.c_str(), &Sample::slow_us, false, "");
  const std::string cold = "request latency, new connection each (" + std::to_string(kCold) + "/round)";
  line(cold.c_str(), &Sample::cold_us, false, "");
  const std::string stream = "streaming throughput (" + std::to_string(kStream >> 20) + " MiB)";
  line(stream.c_str(), &Sample::mbps, true, " (goal >= 0.9x)");
  std::fflush(stdout);
  (*b)->stop();
  return 0;
}
