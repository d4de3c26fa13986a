// The credential broker in-process against a real TLS upstream on loopback (a throwaway CA,
// tls_upstream.py): the upstream gets the real key and never the placeholder; requests without
// the placeholder or for another host never reach it; server-sent events pass one by one as they
// are written; kept-alive connections reuse one TLS stream; budgets and bounds refuse the next
// request; TLS is verified (an unknown CA or another name fails); an echoed key never reaches
// the agent; and no event ever carries the key.
#include <QtTest>

#include <filesystem>

#include "helpers/broker/credential_broker.h"
#include "tests/helpers/broker/broker_fixture.h"
#include "tests/helpers/broker/tls_upstream.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::broker;
using namespace paddock::broker::test;

namespace {

constexpr const char* kKey = "sk-test-REAL-KEY-0123456789";
constexpr const char* kPlaceholder = "paddock-placeholder-00112233445566778899aabbccddeeff";

// The event log is declared before the broker so that it outlives it: a broker stopped by its
// destructor still reports the exchanges it closes, into the log.
struct Running {
  EventLog events;
  std::unique_ptr<CredentialBroker> broker;
  int port = 0;
  std::string error;
};

std::string request(const std::string& method, const std::string& path, int port, const std::string& extra = "",
                    bool placeholder = true) {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
  if (placeholder) r += "x-api-key: " + std::string(kPlaceholder) + "\r\n";
  return r + extra + "\r\n";
}

// The body of one response whose head has been read into `got` (Content-Length framing).
std::string body_of(const std::string& got) { return got.substr(got.find("\r\n\r\n") + 4); }

}  // namespace

class CredentialBrokerTest : public QObject {
  Q_OBJECT

  TestCa ca_;
  TlsUpstream upstream_;

  bool start(Running& r, CredentialSpec spec, const std::string& extra_ca) {
    platform::UniqueFd fd = loopback_listener(&r.port);
    spec.endpoint_port = r.port;
    CredentialBrokerOptions o;
    o.credentials.push_back(std::move(spec));
    o.listeners.push_back(std::move(fd));
    o.resolver = std::make_shared<StaticResolver>();
    o.extra_ca_file = extra_ca;
    o.events = r.events.sink();
    auto b = CredentialBroker::start(std::move(o));
    if (!b.ok()) {
      r.error = b.error().message;
      return false;
    }
    r.broker = std::move(*b);
    return true;
  }

  CredentialSpec spec() const {
    CredentialSpec c;
    c.name = "test-key";
    c.upstream = "api.example.test";
    c.connect_to = "127.0.0.1:" + std::to_string(upstream_.port());
    c.header = "x-api-key";
    c.scheme = CredentialScheme::kRaw;
    c.placeholder = kPlaceholder;
    c.value = kKey;
    return c;
  }

  // Every event so far, as text: none may hold the key.
  void no_event_has_the_key(Running& r) {
    for (const auto& e : r.events.all()) QVERIFY2(e.dump().find(kKey) == std::string::npos, e.dump().c_str());
  }

 private slots:
  void initTestCase() {
    QVERIFY2(ca_.make(std::filesystem::temp_directory_path().string(), {"api.example.test"}), ca_.error.c_str());
    QVERIFY2(upstream_.start(ca_), upstream_.error().c_str());
  }

  void cleanupTestCase() { std::filesystem::remove_all(ca_.dir); }

  void the_upstream_receives_the_real_key_and_never_the_placeholder() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/echo?key=placeholder", r.port, "Authorization: Bearer agent-own\r\n")));
    const std::string got = c.read_until("}}");
    QVERIFY2(got.rfind("HTTP/1.1 200", 0) == 0, got.c_str());
    const auto reqs = upstream_.requests();
    QCOMPARE(reqs.size(), before + 1);
    const std::string seen = reqs.back().dump();
    QVERIFY2(seen.find(std::string("\"x-api-key\",\"") + kKey) != std::string::npos, seen.c_str());
    QVERIFY2(seen.find(kPlaceholder) == std::string::npos, seen.c_str());
    QVERIFY2(seen.find("agent-own") == std::string::npos, seen.c_str());
    QVERIFY2(seen.find("\"Host\",\"api.example.test\"") != std::string::npos, seen.c_str());
    // The upstream echoed the key back; the agent gets stars where it was.
    QVERIFY2(got.find(kKey) == std::string::npos, got.c_str());
    QVERIFY2(got.find(std::string(std::strlen(kKey), '*')) != std::string::npos, got.c_str());
    QVERIFY(r.events.wait_for("credential_request", 1));
    const auto e = r.events.of("credential_request").front();
    QCOMPARE(QString::fromStdString(e["decision"].get<std::string>()), QString("allow"));
    QCOMPARE(QString::fromStdString(e["path"].get<std::string>()), QString("/echo"));
    QCOMPARE(e["status"].get<int>(), 200);
    QCOMPARE(QString::fromStdString(e["method"].get<std::string>()), QString("GET"));
    QVERIFY(e["bytes_tx"].get<std::int64_t>() > 0 && e["bytes_rx"].get<std::int64_t>() > 0);
    no_event_has_the_key(r);
    r.broker->stop();
    const auto usage = r.broker->usage();
    QCOMPARE(usage.size(), std::size_t{1});
    QCOMPARE(usage[0].requests, std::int64_t{1});
    QVERIFY(!usage[0].last_used.empty());
  }

  void requests_without_the_placeholder_or_for_another_host_never_reach_the_upstream() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    for (const std::string& req :
         {request("GET", "/echo", r.port, "", /*placeholder=*/false),
          request("GET", "/echo", r.port, std::string("Authorization: Bearer ") + kKey + "\r\n", /*placeholder=*/false),
          std::string("GET /echo HTTP/1.1\r\nHost: evil.example.com\r\nx-api-key: ") + kPlaceholder + "\r\n\r\n",
          std::string("GET https://evil.example.com/ HTTP/1.1\r\nHost: evil.example.com\r\nx-api-key: ") + kPlaceholder + "\r\n\r\n",
          std::string("CONNECT evil.example.com:443 HTTP/1.1\r\nHost: evil.example.com:443\r\n\r\n")}) {
      Client c;
      QVERIFY(c.connect(r.port));
      QVERIFY(c.send(req));
      const std::string got = c.read_to_eof();
      QVERIFY2(got.find("HTTP/1.1 40") == 0, (req + " -> " + got).c_str());
      QVERIFY2(got.find("X-Paddock-Rule: credentials.test-key: ") != std::string::npos, got.c_str());
      QVERIFY2(got.find("deliberate policy decision of the sandbox") != std::string::npos, got.c_str());
    }
    QCOMPARE(upstream_.requests().size(), before);
    QVERIFY(r.events.wait_for("credential_request", 5));
    for (const auto& e : r.events.of("credential_request"))
      QCOMPARE(QString::fromStdString(e["decision"].get<std::string>()), QString("deny"));
    no_event_has_the_key(r);
  }

  void server_sent_events_pass_one_by_one_as_the_upstream_writes_them() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    // The upstream writes event I only once the test has created go-I, which it does only after
    // event I-1 came through the broker: a broker that held events back would deadlock here.
    const std::string gate = ca_.dir + "/sse-gate";
    std::filesystem::create_directories(gate);
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/sse?n=3&wait=" + gate, r.port)));
    std::string got = c.read_until("\n\n");  // the head and the first event, which ends in a blank line
    QVERIFY2(got.find("text/event-stream") != std::string::npos, got.c_str());
    QVERIFY2(got.find("data: 0 ") != std::string::npos, got.c_str());
    paddock::test::put(gate + "/go-1", "");
    got = c.read_until("\n\n");
    QVERIFY2(got.find("data: 1 ") != std::string::npos, got.c_str());
    paddock::test::put(gate + "/go-2", "");
    got += c.read_until("0\r\n\r\n");
    QVERIFY2(got.find("data: 2 ") != std::string::npos, got.c_str());
    QVERIFY(r.events.wait_for("credential_request", 1));
  }

  void a_kept_alive_connection_reuses_one_upstream_stream_and_pipelined_requests_are_answered_in_order() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/big?bytes=10", r.port) + request("GET", "/big?bytes=20", r.port)));
    std::string got = c.read_until(std::string(20, 'x'));
    QVERIFY2(got.find(std::string(10, 'x') + "HTTP/1.1 200") != std::string::npos, got.c_str());
    QVERIFY(c.send(request("POST", "/upload", r.port, "Transfer-Encoding: chunked\r\n") + "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"));
    got = c.read_until("}");
    QVERIFY2(got.find("{\"received\": 8}") != std::string::npos, got.c_str());
    const auto reqs = upstream_.requests();
    QCOMPARE(reqs.size(), before + 3);
    QCOMPARE(reqs[before]["peer"], reqs[before + 2]["peer"]);  // one TLS connection for all three
  }

  void a_request_budget_stops_the_next_request_and_says_so() {
    Running r;
    CredentialSpec s = spec();
    s.max_requests = 2;
    QVERIFY2(start(r, s, ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    for (int i = 0; i < 2; ++i) {
      QVERIFY(c.send(request("GET", "/big?bytes=3", r.port)));
      QVERIFY(c.read_until("xxx").find("200") != std::string::npos);
    }
    QVERIFY(c.send(request("GET", "/big?bytes=3", r.port)));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.rfind("HTTP/1.1 403", 0) == 0, got.c_str());
    QVERIFY2(got.find("X-Paddock-Rule: credentials.test-key: request budget used (2 requests)") != std::string::npos, got.c_str());
    QCOMPARE(upstream_.requests().size(), before + 2);
  }

  void a_byte_budget_stops_the_request_after_it_is_used_up() {
    Running r;
    CredentialSpec s = spec();
    s.max_bytes = 5000;
    QVERIFY2(start(r, s, ca_.ca_pem), r.error.c_str());
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/big?bytes=6000", r.port)));
    QVERIFY(c.read_until(std::string(6000, 'x')).find("200") != std::string::npos);
    QVERIFY(c.send(request("GET", "/big?bytes=1", r.port)));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.find("X-Paddock-Rule: credentials.test-key: byte budget used (5000 bytes)") != std::string::npos, got.c_str());
  }

  void an_oversized_request_is_refused_before_it_reaches_the_upstream() {
    Running r;
    CredentialSpec s = spec();
    s.max_request_bytes = 100;
    QVERIFY2(start(r, s, ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("POST", "/upload", r.port, "Content-Length: 101\r\n") + std::string(101, 'a')));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.rfind("HTTP/1.1 413", 0) == 0, got.c_str());
    QCOMPARE(upstream_.requests().size(), before);
  }

  void an_upstream_whose_certificate_the_system_does_not_trust_is_not_sent_the_key() {
    Running r;
    QVERIFY2(start(r, spec(), /*extra_ca=*/""), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/echo", r.port)));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.rfind("HTTP/1.1 502", 0) == 0, got.c_str());
    QVERIFY2(got.find("is not trusted") != std::string::npos, got.c_str());
    QCOMPARE(upstream_.requests().size(), before);
  }

  void a_certificate_for_another_name_is_refused_even_from_a_trusted_ca() {
    Running r;
    CredentialSpec s = spec();
    s.upstream = "other.example.test";  // the upstream's certificate names api.example.test only
    QVERIFY2(start(r, s, ca_.ca_pem), r.error.c_str());
    const auto before = upstream_.requests().size();
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send("GET /echo HTTP/1.1\r\nHost: other.example.test\r\nx-api-key: " + std::string(kPlaceholder) + "\r\n\r\n"));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.rfind("HTTP/1.1 502", 0) == 0, got.c_str());
    QCOMPARE(upstream_.requests().size(), before);
  }

  void a_websocket_upgrade_carries_the_key_and_then_the_frames_both_ways() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/ws", r.port,
                           "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGVzdA==\r\nSec-WebSocket-Version: 13\r\n")));
    std::string got = c.read_until("\r\n\r\n");
    QVERIFY2(got.rfind("HTTP/1.1 101", 0) == 0, got.c_str());
    QVERIFY2(got.find("Upgrade: websocket") != std::string::npos, got.c_str());
    QVERIFY(c.send("frame-one"));
    QVERIFY2(c.read_until("frame-one").find("frame-one") != std::string::npos, "no echo through the upgraded socket");
    const auto key = upstream_.header_values("x-api-key");
    QVERIFY(!key.empty() && key.back() == kKey);
  }

  void a_response_without_a_length_ends_the_agents_connection_too() {
    Running r;
    QVERIFY2(start(r, spec(), ca_.ca_pem), r.error.c_str());
    Client c;
    QVERIFY(c.connect(r.port));
    QVERIFY(c.send(request("GET", "/close", r.port)));
    const std::string got = c.read_to_eof();
    QVERIFY2(got.find("Connection: close") != std::string::npos, got.c_str());
    QVERIFY2(body_of(got) == "until the end\n", got.c_str());
    QVERIFY(c.eof_seen());
  }
};

QTEST_GUILESS_MAIN(CredentialBrokerTest)
#include "credential_broker_test.moc"
