// Credential broker benchmark (not a test: prints ratios measured in the same run, asserts
// nothing). Against one TLS upstream on loopback (a throwaway CA made with openssl at start; a
// blocking Asio/OpenSSL server, one thread per connection), a client asks
//  - latency: a small request and its 64-byte answer, on a kept-alive connection (also with the
//    upstream taking 2 ms to answer, as any real API takes at least that), and on a new
//    connection each time (TLS handshake included);
//  - throughput: one large response streamed in 64 KiB writes;
// directly over TLS (the client decrypts, as an agent's HTTP client would without the broker) and
// through the credential broker (plain HTTP to the endpoint; the broker adds the key, decrypts,
// scrubs and relays). Goals: brokered latency <= 1.1x direct, throughput >= 0.9x direct. Variants
// run interleaved, round after round, so that load from other processes hits them alike;
// medians are printed, with the load average before and after (the machine is shared).
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
  double warm_us = 0, cold_us = 0, slow_us = 0, mbps = 0;
};

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

// One round of one variant: `requests` kept-alive requests (median per request), `cold` new
// connections with one request each, and one `stream_bytes` download.
bool measure(Client& c, int requests, int cold, long stream_bytes, Sample& out) {
  if (!c.connect()) return false;
  std::vector<double> warm;
  for (int i = 0; i < requests; ++i) {
    const auto t0 = Clock::now();
    if (c.get("/small") != static_cast<long>(kSmall)) return false;
    warm.push_back(ms_since(t0) * 1000);
  }
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
  std::string only;  // for profiling one variant alone (e.g. under perf record -g)
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    if (std::string(argv[i]) == "--stream-mib") stream_mib = std::max(1L, std::atol(argv[i + 1]));
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
  }
  if (!only.empty() && only != "direct" && only != "brokered") {
    std::printf("credential_bench: --only takes direct or brokered\n");
    return 2;
  }
  Certs certs;
  if (!certs.make()) {
    std::printf("credential_bench: openssl could not make the test certificates\n");
    return 1;
  }
  Upstream upstream(certs);
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
  constexpr int kRequests = 400, kCold = 40;
  const long kStream = stream_mib << 20;
  std::vector<Sample> direct, brokered;
  std::vector<double> hop;
  for (int r = 0; r < rounds; ++r) {
    hop.push_back(loopback_round_trip_us(kRequests));
    for (int k = 0; k < 2; ++k) {
      const bool through = (r + k) % 2 == 1;  // alternate which goes first
      if (!only.empty() && through != (only == "brokered")) continue;
      Client c(through, through ? endpoint_port : upstream.port(), certs);
      Sample s;
      std::fprintf(stderr, "round %d: %s\n", r + 1, through ? "brokered" : "direct");
      if (!measure(c, kRequests, kCold, kStream, s)) {
        std::printf("credential_bench: a %s round failed\n", through ? "brokered" : "direct");
        return 1;
      }
      (through ? brokered : direct).push_back(s);
    }
  }
  auto med = [](const std::vector<Sample>& v, double Sample::*f) {
    std::vector<double> x;
    for (const auto& s : v) x.push_back(s.*f);
    return median(x);
  };
  const double dw = med(direct, &Sample::warm_us), bw = med(brokered, &Sample::warm_us);
  const double dc = med(direct, &Sample::cold_us), bc = med(brokered, &Sample::cold_us);
  const double dt = med(direct, &Sample::mbps), bt = med(brokered, &Sample::mbps);
  const double ds = med(direct, &Sample::slow_us), bs = med(brokered, &Sample::slow_us);
  if (!only.empty()) {
    const auto& v = only == "brokered" ? brokered : direct;
    std::printf("%s alone (%d rounds, medians): kept-alive %.0f us, 2 ms upstream %.0f us, new connection %.0f us, "
                "streaming %.0f MiB/s\n",
                only.c_str(), rounds, med(v, &Sample::warm_us), med(v, &Sample::slow_us), med(v, &Sample::cold_us),
                med(v, &Sample::mbps));
    (*b)->stop();
    return 0;
  }
  std::printf("credential broker vs a direct TLS client, same loopback upstream (%d interleaved rounds, medians)\n", rounds);
  std::printf("  load average before: %s, after: %s (%ld cores)\n", load_before.c_str(), load_average().c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("  request latency, kept-alive (%d requests/round): direct %.0f us, brokered %.0f us: %.2fx (goal <= 1.1x)\n",
              kRequests, dw, bw, bw / dw);
  std::printf("  one plain loopback round trip (64 bytes, the least any relay adds): %.0f us; brokered - direct: %.0f us\n",
              median(hop), bw - dw);
  std::printf("  the same with a 2 ms upstream service time (%d requests/round): direct %.0f us, brokered %.0f us: %.2fx\n",
              kRequests / 4, ds, bs, bs / ds);
  std::printf("  request latency, new connection each (%d/round): direct %.0f us, brokered %.0f us: %.2fx\n", kCold, dc, bc,
              bc / dc);
  std::printf("  streaming throughput (%ld MiB): direct %.0f MiB/s, brokered %.0f MiB/s: %.2fx (goal >= 0.9x)\n",
              kStream >> 20, dt, bt, bt / dt);
  std::fflush(stdout);
  (*b)->stop();
  return 0;
}
