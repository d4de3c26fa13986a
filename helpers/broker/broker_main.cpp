// paddock-broker: the egress broker as a standalone process, for tests and benchmarks, and as the
// broker Deployment of the Kubernetes manifests (docs/backends.md). The session's broker runs
// inside paddock-helper (helpers/linux/egress_relay.cpp). This binary listens on loopback only,
// unless --pod says it runs in a Pod of its own, whose NetworkPolicy says who reaches it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>

#include <CLI/CLI.hpp>

#include "engine/ir_schema.h"
#include "engine/main_guard.h"
#include "engine/schema_codec.h"
#include "helpers/broker/broker.h"
#include "helpers/broker/host_name.h"

using namespace paddock;
using namespace paddock::broker;

namespace {

int fail(const std::string& message, int code = 2) {
  std::cerr << "paddock-broker: " << message << "\n";
  return code;
}

std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

bool parse_int(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  long long v = std::stoll(s);
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// "D" or "D:PORT" where D is a host name or "*." + host name.
bool parse_domain(const std::string& arg, std::string* domain, int* port) {
  std::string d = arg;
  *port = 0;
  if (size_t colon = arg.rfind(':'); colon != std::string::npos) {
    long long p = 0;
    if (!parse_int(arg.substr(colon + 1), 1, 65535, &p)) return false;
    *port = static_cast<int>(p);
    d = arg.substr(0, colon);
  }
  bool wildcard = d.rfind("*.", 0) == 0;
  HostCheck c = normalize_host(wildcard ? d.substr(2) : d);
  if (!c.ok) return false;
  *domain = (wildcard ? "*." : "") + c.host;
  return true;
}

}  // namespace

static int program_main(int argc, char** argv) {
  CLI::App app{"paddock-broker: the Paddock egress broker on loopback (tests and benchmarks)"};
  std::string listen, mode = "allowlist", events_path, egress_json;
  std::vector<std::string> domains, resolves, quotas;
  bool unsafe_loopback = false, pod = false;
  int header_timeout_ms = 10000;
  app.add_option("--listen", listen, "127.0.0.1:PORT (PORT 0 = pick one; printed on stdout)")->required();
  app.add_option("--allow-domain", domains, "D[:PORT], D an exact name or *.suffix");
  app.add_option("--mode", mode, "allowlist | strict")->check(CLI::IsMember({"allowlist", "strict"}));
  app.add_option("--resolve", resolves, "HOST:IP (test seam; with any --resolve, only these names resolve)");
  app.add_option("--quota", quotas, "D=BYTES per-domain quota (both directions)");
  // The Kubernetes manifests give the broker the IR's egress record itself, so that the allowlist
  // has one writer (the IR schema) and is never translated to flags and back.
  auto* egress_opt = app.add_option("--egress", egress_json,
                                    "the IR's egress record as JSON (allowlist or strict), instead of --mode, "
                                    "--allow-domain and --quota");
  app.add_option("--events", events_path, "append events as JSON lines to FILE ('-' = stdout)");
  app.add_option("--header-timeout-ms", header_timeout_ms, "request header timeout")->check(CLI::Range(1, 600000));
  egress_opt->excludes("--mode")->excludes("--allow-domain")->excludes("--quota");
  app.add_flag("--pod", pod,
               "in a Kubernetes Pod of its own: --listen may be 0.0.0.0:PORT (the Pod's NetworkPolicy lets only the "
               "agent's Pod in)");
  app.add_flag("--unsafe-allow-loopback-targets", unsafe_loopback,
               "benchmarks only: let vetted answers point at 127.0.0.0/8 and ::1 (taints the run)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail(e.what());                           // usage errors are exit 2 (docs/cli.md)
  }

  BrokerOptions options;
  options.egress.mode = mode == "strict" ? NetMode::kStrict : NetMode::kAllowlist;
  options.header_timeout = std::chrono::milliseconds(header_timeout_ms);
  if (!egress_json.empty()) {
    const auto parsed = nlohmann::json::parse(egress_json, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return fail("--egress: not JSON");
    auto egress = schema::from_json_value<IrEgress>(parsed, "--egress: ");
    if (!egress.ok()) return fail(egress.error().message);
    if (egress->mode != NetMode::kAllowlist && egress->mode != NetMode::kStrict)
      return fail("--egress: mode " + std::string(schema::enum_name(egress->mode)) + ": this broker serves allowlist or strict");
    options.egress = std::move(*egress);
  }
  if (egress_json.empty()) {
    // The flags, held as the IR holds them (sorted, without repeats); an --egress record already is.
    for (const auto& arg : domains) {
      std::string d;
      int port = 0;
      if (!parse_domain(arg, &d, &port)) return fail("--allow-domain " + arg + ": expected D[:PORT] with an LDH host name");
      options.egress.domains.push_back(d);
      if (port != 0) options.egress.strict_ports[d].push_back(port);
    }
    for (auto& [d, ports] : options.egress.strict_ports) {
      std::sort(ports.begin(), ports.end());
      ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    }
    std::sort(options.egress.domains.begin(), options.egress.domains.end());
    options.egress.domains.erase(std::unique(options.egress.domains.begin(), options.egress.domains.end()),
                                 options.egress.domains.end());
  }
  for (const auto& q : quotas) {
    size_t eq = q.find('=');
    std::string d;
    int port = 0;
    long long bytes = 0;
    if (eq == std::string::npos || !parse_domain(q.substr(0, eq), &d, &port) || port != 0 ||
        !parse_int(q.substr(eq + 1), 0, (1LL << 62), &bytes))
      return fail("--quota " + q + ": expected DOMAIN=BYTES");
    options.egress.quotas[d] = bytes;
  }
  if (resolves.empty()) {
    options.resolver = std::make_shared<SystemResolver>();
  } else {
    auto table = std::make_shared<StaticResolver>();
    for (const auto& r : resolves) {
      size_t colon = r.find(':');
      HostCheck host = colon == std::string::npos ? HostCheck{} : normalize_host(r.substr(0, colon));
      auto ip = colon == std::string::npos ? std::nullopt : IpAddress::parse(r.substr(colon + 1));
      if (!host.ok || !ip) return fail("--resolve " + r + ": expected HOST:IP");
      table->add(host.host, *ip);
    }
    options.resolver = table;
  }
  if (unsafe_loopback) {
    options.vetting.unsafe_allow_loopback = true;
    std::cerr << "paddock-broker: UNSAFE: --unsafe-allow-loopback-targets is set: answers pointing at "
                 "loopback are let through. This run is TAINTED; never use it for a real session.\n";
  }

  std::shared_ptr<std::ostream> events_out;
  auto events_mu = std::make_shared<std::mutex>();
  if (events_path == "-") {
    events_out = std::shared_ptr<std::ostream>(&std::cout, [](std::ostream*) {});
  } else if (!events_path.empty()) {
    auto f = std::make_shared<std::ofstream>(events_path, std::ios::app);
    if (!*f) return fail("--events " + events_path + ": cannot open for appending", 1);
    events_out = f;
  }
  if (events_out) {
    options.events = [events_out, events_mu, unsafe_loopback](nlohmann::json e) {
      e["ts"] = utc_now();
      if (unsafe_loopback) e["taint"] = "unsafe_allow_loopback_targets";
      std::lock_guard lock(*events_mu);
      *events_out << e.dump() << "\n" << std::flush;
    };
  }

  // --listen: loopback only, or the Pod's addresses under --pod; this binary is never a way to
  // open the broker to a machine's network.
  size_t colon = listen.rfind(':');
  long long port = -1;
  auto addr = colon == std::string::npos ? std::nullopt : IpAddress::parse(listen.substr(0, colon));
  if (!addr || !parse_int(listen.substr(colon + 1), 0, 65535, &port))
    return fail("--listen " + listen + ": expected 127.0.0.1:PORT");
  const bool any = !addr->v6 && addr->bytes == decltype(addr->bytes){};
  if (addr->v6 || (addr->bytes[0] != 127 && !(pod && any)))
    return fail(pod ? "--listen must be a 127.0.0.0/8 address or 0.0.0.0" : "--listen must be a 127.0.0.0/8 address");
  platform::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(port));
  std::memcpy(&sin.sin_addr, addr->bytes.data(), 4);
  if (!fd.valid() || bind(fd.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 ||
      ::listen(fd.get(), SOMAXCONN) != 0)
    return fail("--listen " + listen + ": " + std::strerror(errno),
                static_cast<int>(paddock::ErrorCode::kRefused));
  socklen_t len = sizeof sin;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sin), &len);

  // Block the stop signals before any thread starts, then wait for one of them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto broker = Broker::create(std::move(options));
  if (!broker.ok()) return fail(broker.error().message, broker.error().exit_code());
  if (Status s = (*broker)->serve(std::move(fd)); !s) return fail(s.error().message, s.error().exit_code());
  std::cout << "listening on " << addr->to_string() << ":" << ntohs(sin.sin_port) << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  (*broker)->stop();
  return 0;
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-broker", [&] { return program_main(argc, argv); });
}
