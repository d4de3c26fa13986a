// The broker end to end on loopback: a client speaks CONNECT or SOCKS5 to an in-process broker
// whose scripted resolver maps "public" names to an echo server on 127.0.0.1 (the
// unsafe-allow-loopback seam), so no real name is resolved and nothing leaves loopback.
#include <QtTest>

#include <sys/resource.h>

#include <random>
#include <set>

#include "tests/helpers/broker/broker_fixture.h"
#include "tests/support/skip.h"

using namespace paddock;
using namespace paddock::broker;
using namespace paddock::broker::test;
using namespace std::chrono_literals;

namespace {

IrEgress allowlist(std::vector<std::string> domains, NetMode mode = NetMode::kAllowlist) {
  IrEgress e;
  e.mode = mode;
  e.domains = std::move(domains);
  return e;
}

std::string authority(const std::string& host, int port) { return host + ":" + std::to_string(port); }

// CONNECT through the broker, then echo `payload` through the tunnel; returns what came back.
std::string tunnel_echo(int broker_port, const std::string& host, int port, const std::string& payload,
                        std::string* head = nullptr) {
  Client c;
  if (!c.connect(broker_port) || !c.send(connect_request(authority(host, port)))) return "<connect failed>";
  std::string h = c.read_until("\r\n\r\n");
  if (head) *head = h;
  if (h.rfind("HTTP/1.1 200", 0) != 0) return "<refused>";
  c.send(payload);
  return c.read_exactly(payload.size());
}

}  // namespace

class BrokerConnectionTest : public QObject {
  Q_OBJECT
 private slots:
  void a_listed_domain_is_tunnelled_over_connect_and_reported() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1"}});
    QVERIFY2(h.start(allowlist({"api.example.com"})), h.error.c_str());
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "API.Example.com.", echo.port(), "ping-over-connect", &head),
             std::string("ping-over-connect"));
    QVERIFY2(head.rfind("HTTP/1.1 200", 0) == 0, head.c_str());
    QVERIFY(h.events.wait_for("net_egress", 1));
    auto req = h.events.of("net_request");
    QCOMPARE(req.size(), size_t{1});
    QCOMPARE(QString::fromStdString(req[0]["host"]), QString("api.example.com"));
    QCOMPARE(QString::fromStdString(req[0]["decision"]), QString("allow"));
    QCOMPARE(QString::fromStdString(req[0]["rule"]), QString("egress.domains: api.example.com"));
    QCOMPARE(req[0]["port"].get<int>(), echo.port());
    auto dns = h.events.of("dns_resolved");
    QCOMPARE(dns.size(), size_t{1});
    QCOMPARE(dns[0]["ips"], nlohmann::json::array({"127.0.0.1"}));
    QCOMPARE(QString::fromStdString(dns[0]["verdict"]), QString("allowed"));
    auto egress = h.events.of("net_egress");
    QCOMPARE(QString::fromStdString(egress[0]["ip"]), QString("127.0.0.1"));
    QCOMPARE(egress[0]["bytes_tx"].get<int>(), 17);
    QCOMPARE(egress[0]["bytes_rx"].get<int>(), 17);
  }

  void socks5_connect_works_on_the_same_port() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1"}});
    QVERIFY2(h.start(allowlist({"*.example.com"})), h.error.c_str());
    Client c;
    QVERIFY(c.connect(h.port));
    QVERIFY(c.send(std::string("\x05\x01\x00", 3)));
    QCOMPARE(c.read_exactly(2), std::string("\x05\x00", 2));
    QVERIFY(c.send(socks5_connect_domain("api.example.com", echo.port())));
    std::string reply = c.read_exactly(10);
    QCOMPARE(reply.size(), size_t{10});
    QCOMPARE(int(reply[1]), 0);
    QVERIFY(c.send("ping-over-socks"));
    QCOMPARE(c.read_exactly(15), std::string("ping-over-socks"));
    auto req = h.events.of("net_request");
    QCOMPARE(QString::fromStdString(req.at(0)["protocol"]), QString("socks5"));
  }

  void socks5_refusals_answer_0x02_and_ip_literals_are_refused() {
    EchoServer echo;
    BrokerHarness h;
    QVERIFY2(h.start(allowlist({"api.example.com"})), h.error.c_str());
    for (const std::string& request :
         {socks5_connect_domain("other.example.com", 443), socks5_connect_domain("127.0.0.1", echo.port()),
          std::string("\x05\x01\x00\x01\x7f\x00\x00\x01", 8) + std::string{char(echo.port() >> 8), char(echo.port() & 0xff)}}) {
      Client c;
      QVERIFY(c.connect(h.port));
      QVERIFY(c.send(std::string("\x05\x01\x00", 3) + request));
      std::string reply = c.read_exactly(12);
      QCOMPARE(reply.size(), size_t{12});
      QCOMPARE(int(reply[3]), 0x02);
    }
    QCOMPARE(echo.accepted(), 0);
    QCOMPARE(h.resolver->calls("127.0.0.1"), 0);
  }

  void refusals_answer_403_with_a_body_naming_the_policy_and_the_rule() {
    BrokerHarness h;
    h.resolver->script("example.com", {{"127.0.0.1"}});
    QVERIFY2(h.start(allowlist({"example.com"})), h.error.c_str());
    for (const auto& [target, rule] : std::vector<std::pair<std::string, std::string>>{
             {"notexample.com:443", "egress.domains: notexample.com not listed"},
             {"example.com.evil.com:443", "egress.domains: example.com.evil.com not listed"},
             {"2130706433:443", "host: 2130706433 is an IP literal"},
             {"0x7f.1:443", "host: 0x7f.1 is an IP literal"},
             {"[::1]:443", "host: [::1] is an IP literal"},
             {"127.0.0.1:443", "host: 127.0.0.1 is an IP literal"}}) {
      Client c;
      QVERIFY(c.connect(h.port));
      QVERIFY(c.send(connect_request(target)));
      std::string response = c.read_to_eof();
      QVERIFY2(response.rfind("HTTP/1.1 403 Forbidden\r\n", 0) == 0, response.c_str());
      QVERIFY2(response.find("Paddock sandbox's network policy") != std::string::npos, response.c_str());
      QVERIFY2(response.find("Rule: " + rule) != std::string::npos, response.c_str());
      QVERIFY2(response.find("not a network failure") != std::string::npos, response.c_str());
    }
    QCOMPARE(h.resolver->calls("example.com"), 0);
  }

  void plain_http_without_connect_answers_501() {
    BrokerHarness h;
    QVERIFY2(h.start(allowlist({"example.com"})), h.error.c_str());
    Client c;
    QVERIFY(c.connect(h.port));
    QVERIFY(c.send("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"));
    std::string response = c.read_to_eof();
    QVERIFY2(response.rfind("HTTP/1.1 501 Not Implemented\r\n", 0) == 0, response.c_str());
    QVERIFY2(response.find("only tunnels CONNECT") != std::string::npos, response.c_str());
    QVERIFY2(response.find("sandbox's policy") != std::string::npos, response.c_str());
  }

  void rebinding_between_connections_is_caught() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1"}, {"10.0.0.5"}});
    QVERIFY2(h.start(allowlist({"api.example.com"})), h.error.c_str());
    QCOMPARE(tunnel_echo(h.port, "api.example.com", echo.port(), "first"), std::string("first"));
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "api.example.com", echo.port(), "second", &head), std::string("<refused>"));
    QVERIFY2(head.find("X-Paddock-Rule: vetting: 10.0.0.5 is private (RFC 1918)") != std::string::npos, head.c_str());
    QCOMPARE(h.resolver->calls("api.example.com"), 2);  // one lookup per connection, no cache
    QCOMPARE(echo.accepted(), 1);
    auto dns = h.events.of("dns_resolved");
    QCOMPARE(dns.size(), size_t{2});
    QCOMPARE(QString::fromStdString(dns[1]["verdict"]), QString("refused"));
  }

  void a_mixed_answer_set_is_refused_whole() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1", "169.254.169.254"}});
    QVERIFY2(h.start(allowlist({"api.example.com"})), h.error.c_str());
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "api.example.com", echo.port(), "x", &head), std::string("<refused>"));
    QVERIFY2(head.find("169.254.169.254 is a cloud metadata endpoint") != std::string::npos, head.c_str());
    QCOMPARE(echo.accepted(), 0);
  }

  void strict_mode_refuses_unlisted_ports() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("git.example.com", {{"127.0.0.1"}});
    IrEgress e = allowlist({"git.example.com"}, NetMode::kStrict);
    QVERIFY2(h.start(e), h.error.c_str());
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "git.example.com", echo.port(), "x", &head), std::string("<refused>"));
    QVERIFY2(head.find("egress.strict_ports: git.example.com allows port(s) 443") != std::string::npos, head.c_str());

    BrokerHarness listed;
    listed.resolver->script("git.example.com", {{"127.0.0.1"}});
    e.strict_ports["git.example.com"] = {echo.port()};
    QVERIFY2(listed.start(e), listed.error.c_str());
    QCOMPARE(tunnel_echo(listed.port, "git.example.com", echo.port(), "ok"), std::string("ok"));
  }

  void ask_allow_once_releases_the_connection_and_asks_again_next_time() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("new.example.org", {{"127.0.0.1"}});
    std::atomic<int> asks{0};
    std::mutex mu;
    std::vector<std::string> seen;  // checked on the test thread, not in the broker's
    auto ask = [&](const std::string& id, const std::string& host, int port, AskReply reply) {
      ++asks;
      {
        std::lock_guard lock(mu);
        seen.push_back(id + " " + host + " " + std::to_string(port));
      }
      std::thread([reply] { reply(AskDecision::kAllowOnce); }).detach();
    };
    QVERIFY2(h.start(allowlist({}, NetMode::kAsk), ask, 5s), h.error.c_str());
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "one"), std::string("one"));
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "two"), std::string("two"));
    QCOMPARE(asks.load(), 2);
    std::lock_guard lock(mu);
    QCOMPARE(QString::fromStdString(seen.at(0)), QString("ask-1 new.example.org %1").arg(echo.port()));
    QCOMPARE(QString::fromStdString(seen.at(1)), QString("ask-2 new.example.org %1").arg(echo.port()));
    QCOMPARE(QString::fromStdString(h.events.of("net_request").at(0)["rule"]), QString("ask: new.example.org allowed once"));
  }

  void ask_allow_for_the_session_is_remembered() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("new.example.org", {{"127.0.0.1"}});
    std::atomic<int> asks{0};
    auto ask = [&](const std::string&, const std::string&, int, AskReply reply) {
      ++asks;
      reply(AskDecision::kAllowSession);
    };
    QVERIFY2(h.start(allowlist({}, NetMode::kAsk), ask, 5s), h.error.c_str());
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "one"), std::string("one"));
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "two"), std::string("two"));
    QCOMPARE(asks.load(), 1);
    QCOMPARE(h.resolver->calls("new.example.org"), 2);  // allowed, but still looked up and vetted each time
  }

  void ask_deny_and_ask_timeout_refuse() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("new.example.org", {{"127.0.0.1"}});
    std::mutex mu;
    std::vector<AskReply> unanswered;
    int n = 0;
    auto ask = [&](const std::string&, const std::string&, int, AskReply reply) {
      std::lock_guard lock(mu);
      if (n++ == 0) reply(AskDecision::kDeny);
      else unanswered.push_back(std::move(reply));  // never answered: the timeout decides
    };
    QVERIFY2(h.start(allowlist({}, NetMode::kAsk), ask, 300ms), h.error.c_str());
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "x", &head), std::string("<refused>"));
    QVERIFY2(head.find("X-Paddock-Rule: ask: new.example.org denied by the user") != std::string::npos, head.c_str());
    QCOMPARE(tunnel_echo(h.port, "new.example.org", echo.port(), "x", &head), std::string("<refused>"));
    QVERIFY2(head.find("X-Paddock-Rule: ask: no answer within 300 ms") != std::string::npos, head.c_str());
    QCOMPARE(echo.accepted(), 0);
    // A late reply after the timeout is harmless.
    std::lock_guard lock(mu);
    for (auto& r : unanswered) r(AskDecision::kAllowOnce);
  }

  void quotas_close_the_connection_and_refuse_new_ones() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("dl.example.com", {{"127.0.0.1"}});
    IrEgress e = allowlist({"dl.example.com"});
    e.quotas["dl.example.com"] = 1000;  // both directions: 500 out and 500 back fit exactly
    QVERIFY2(h.start(e), h.error.c_str());
    Client c;
    QVERIFY(c.connect(h.port));
    QVERIFY(c.send(connect_request(authority("dl.example.com", echo.port()))));
    QVERIFY(c.read_until("\r\n\r\n").rfind("HTTP/1.1 200", 0) == 0);
    QVERIFY(c.send(std::string(500, 'a')));
    QCOMPARE(c.read_exactly(500).size(), size_t{500});
    QVERIFY(c.send(std::string(10, 'b')));  // one byte more than the quota allows
    QCOMPARE(c.read_to_eof(), std::string());
    QVERIFY(c.eof_seen());
    QVERIFY(h.events.wait_for("quota_exceeded", 1));
    auto q = h.events.of("quota_exceeded").at(0);
    QCOMPARE(QString::fromStdString(q["domain"]), QString("dl.example.com"));
    QVERIFY(q["used_bytes"].get<std::int64_t>() <= 1000);
    std::string head;
    QCOMPARE(tunnel_echo(h.port, "dl.example.com", echo.port(), "x", &head), std::string("<refused>"));
    QVERIFY2(head.find("X-Paddock-Rule: egress.quotas: dl.example.com exhausted") != std::string::npos, head.c_str());
  }

  void malformed_oversize_and_silent_requests_are_dropped_with_an_event() {
    BrokerHarness h;
    QVERIFY2(h.start(allowlist({"example.com"}), {}, 0ms, 300ms), h.error.c_str());
    {
      Client c;
      QVERIFY(c.connect(h.port));
      QVERIFY(c.send(std::string("\x16\x03\x01\x00\x10garbage", 12)));
      QCOMPARE(c.read_to_eof(), std::string());
    }
    {
      Client c;
      QVERIFY(c.connect(h.port));
      c.send("CONNECT example.com:443 HTTP/1.1\r\nX-Pad: " + std::string(9000, 'a'));
      QCOMPARE(c.read_to_eof(), std::string());
    }
    {
      Client c;
      QVERIFY(c.connect(h.port));
      QVERIFY(c.send("CONNECT exa"));
      QCOMPARE(c.read_to_eof(), std::string());  // header timeout
    }
    QVERIFY(h.events.wait_for("notice", 3));
    std::set<std::string> kinds;
    for (const auto& e : h.events.of("notice")) kinds.insert(e["kind"]);
    QVERIFY(kinds.count("malformed_request"));
    QVERIFY(kinds.count("oversize_request"));
    QVERIFY(kinds.count("header_timeout"));
    QVERIFY(h.wait_idle());
  }

  void random_bytes_on_many_connections_never_take_the_broker_down() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1"}});
    QVERIFY2(h.start(allowlist({"api.example.com"}), {}, 0ms, 500ms), h.error.c_str());
    std::mt19937 rng(20261130);  // fixed seed: the same inputs on every run
    const std::vector<std::string> prefixes = {"", std::string("\x05"), std::string("\x05\x01\x00", 3),
                                               std::string("\x05\x01\x00\x05\x01\x00\x03", 7), "CONNECT ",
                                               "CONNECT api.example.com:", "GET "};
    std::vector<std::unique_ptr<Client>> clients;  // all at once, so the timeouts overlap
    for (int i = 0; i < 300; ++i) {
      std::string bytes = prefixes[static_cast<size_t>(i) % prefixes.size()];
      std::uniform_int_distribution<int> len(0, 3000), byte(0, 255);
      for (int k = len(rng); k > 0; --k) bytes.push_back(static_cast<char>(byte(rng)));
      auto c = std::make_unique<Client>();
      QVERIFY(c->connect(h.port));
      c->send(bytes);
      if (i % 3 == 0) c->half_close();
      clients.push_back(std::move(c));
    }
    for (auto& c : clients) c->read_to_eof(5s);
    clients.clear();
    QVERIFY(h.wait_idle(20s));
    QCOMPARE(tunnel_echo(h.port, "api.example.com", echo.port(), "still alive"), std::string("still alive"));
  }

  void a_thousand_concurrent_connections_leave_no_fd_behind() {
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_max < 10000)
      PADDOCK_SKIP_KERNEL("the kernel's RLIMIT_NOFILE hard limit for this process is below 10000: cannot hold 1000 "
                          "tunnels (8 fds each)");
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    EchoServer echo;
    int before = 0;
    {
      BrokerHarness h;
      h.resolver->script("bulk.example.com", {{"127.0.0.1"}});
      QVERIFY2(h.start(allowlist({"bulk.example.com"})), h.error.c_str());
      QVERIFY(h.wait_idle());
      before = count_open_fds();
      std::vector<std::unique_ptr<Client>> clients;
      for (int i = 0; i < 1000; ++i) {
        auto c = std::make_unique<Client>();
        QVERIFY(c->connect(h.port));
        QVERIFY(c->send(connect_request(authority("bulk.example.com", echo.port()))));
        clients.push_back(std::move(c));
      }
      for (int i = 0; i < 1000; ++i) {
        std::string head = clients[static_cast<size_t>(i)]->read_until("\r\n\r\n");
        QVERIFY2(head.rfind("HTTP/1.1 200", 0) == 0, (std::to_string(i) + ": " + head).c_str());
      }
      QCOMPARE(h.broker->live_connections(), size_t{1000});
      for (auto& c : clients) QVERIFY(c->send("ping"));
      for (auto& c : clients) QCOMPARE(c->read_exactly(4), std::string("ping"));
      QVERIFY(count_open_fds() > before + 3000);  // the tunnels really were open at once
      for (auto& c : clients) c->close();
      clients.clear();
      QVERIFY2(h.wait_idle(30s), std::to_string(h.broker->live_connections()).c_str());
      QVERIFY(h.events.wait_for("net_egress", 1000, 30s));
      // The echo server closes its side when it sees EOF; give its thread a moment.
      for (int i = 0; i < 500 && count_open_fds() != before; ++i) std::this_thread::sleep_for(10ms);
      QCOMPARE(count_open_fds(), before);
      h.broker->stop();
    }
  }

  void stop_closes_open_tunnels_and_pending_asks() {
    EchoServer echo;
    BrokerHarness h;
    h.resolver->script("api.example.com", {{"127.0.0.1"}});
    std::vector<AskReply> held;
    std::mutex mu;
    auto ask = [&](const std::string&, const std::string&, int, AskReply reply) {
      std::lock_guard lock(mu);
      held.push_back(std::move(reply));
    };
    IrEgress e = allowlist({"api.example.com"}, NetMode::kAsk);
    QVERIFY2(h.start(e, ask, 60s), h.error.c_str());
    Client tunnel, waiting;
    QVERIFY(tunnel.connect(h.port));
    QVERIFY(tunnel.send(connect_request(authority("api.example.com", echo.port()))));
    QVERIFY(tunnel.read_until("\r\n\r\n").rfind("HTTP/1.1 200", 0) == 0);
    QVERIFY(waiting.connect(h.port));
    QVERIFY(waiting.send(connect_request("unknown.example.org:443")));
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu);
        if (!held.empty()) break;
      }
      std::this_thread::sleep_for(10ms);
    }
    h.broker->stop();
    QCOMPARE(h.broker->live_connections(), size_t{0});
    tunnel.read_to_eof(5s);
    QVERIFY(tunnel.eof_seen());
    waiting.read_to_eof(5s);
    QVERIFY(waiting.eof_seen());
    std::lock_guard lock(mu);
    for (auto& r : held) r(AskDecision::kAllowOnce);  // after stop: ignored, no crash
  }
};

QTEST_GUILESS_MAIN(BrokerConnectionTest)
#include "broker_connection_test.moc"
