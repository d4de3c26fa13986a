// The credential endpoint's pure parts: HTTP/1.1 heads and framing read strictly (one message,
// one reading), the request rules (placeholder, host, form, upgrade, size), the upstream head the
// broker writes (the key in the upstream's header, every other credential header gone) and the
// scrubber that keeps an echoed key from the agent.
#include <QtTest>

#include "helpers/broker/credential_rules.h"
#include "helpers/broker/http_message.h"

using namespace paddock;
using namespace paddock::broker;

namespace {

CredentialSpec spec() {
  CredentialSpec c;
  c.name = "anthropic-api-key";
  c.upstream = "api.anthropic.com";
  c.header = "x-api-key";
  c.scheme = CredentialScheme::kRaw;
  c.placeholder = "paddock-placeholder-0123456789abcdef";
  c.value = "sk-ant-REAL-KEY-1234567890";
  c.endpoint_port = 3129;
  return c;
}

RequestHead head_of(const std::string& text) {
  RequestHead h;
  std::string error;
  const HeadStatus s = parse_request_head(text, h, error);
  if (s != HeadStatus::kOk) qFatal("test request does not parse: %s", error.c_str());
  return h;
}

RequestVerdict judge(const std::string& text, const CredentialSpec& c = spec()) {
  RequestHead h = head_of(text);
  std::string error;
  auto f = request_framing(h, error);
  if (!f) qFatal("test request has no framing: %s", error.c_str());
  return judge_request(h, *f, c);
}

std::string scrub_all(SecretScrubber& s, const std::vector<std::string>& parts) {
  std::string out;
  for (std::string p : parts) {
    s.feed(p);
    out += p;
  }
  return out + s.flush();
}

}  // namespace

class CredentialRulesTest : public QObject {
  Q_OBJECT
 private slots:
  void a_request_head_is_read_with_its_fields_and_length() {
    const std::string text = "POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nContent-Length: 2\r\n\r\n{}";
    RequestHead h;
    std::string error;
    QCOMPARE(parse_request_head(text, h, error), HeadStatus::kOk);
    QCOMPARE(QString::fromStdString(h.method), QString("POST"));
    QCOMPARE(QString::fromStdString(h.target), QString("/v1/messages?beta=true"));
    QCOMPARE(h.size, text.size() - 2);
    QCOMPARE(QString::fromStdString(*field_value(h.fields, "content-length")), QString("2"));
  }

  void every_prefix_of_a_head_asks_for_more() {
    const std::string text = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    for (std::size_t i = 0; i < text.size(); ++i) {
      RequestHead h;
      std::string error;
      QVERIFY2(parse_request_head(text.substr(0, i), h, error) == HeadStatus::kNeedMore, text.substr(0, i).c_str());
    }
  }

  void ambiguous_or_malformed_heads_are_refused() {
    for (const char* bad : {"GET / HTTP/1.1\nHost: x\n\n", "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
                            "GET / HTTP/2.0\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                            "GET / HTTP/1.1\r\nX: a\x01" "b\r\n\r\n", "GET /a b HTTP/1.1\r\n\r\n",
                            "GET / HTTP/1.1\r\n: empty\r\n\r\n"}) {
      RequestHead h;
      std::string error;
      QVERIFY2(parse_request_head(bad, h, error) == HeadStatus::kMalformed, bad);
      QVERIFY2(!error.empty(), bad);
    }
    RequestHead h;
    std::string error;
    QCOMPARE(parse_request_head("GET / HTTP/1.1\r\nX: " + std::string(kMaxHttpHeadBytes, 'a'), h, error),
             HeadStatus::kOversize);
  }

  void a_body_is_framed_one_way_or_refused() {
    std::string error;
    auto framing = [&](const std::string& fields) {
      error.clear();
      return request_framing(head_of("POST / HTTP/1.1\r\nHost: x\r\n" + fields + "\r\n"), error);
    };
    QCOMPARE(framing("Content-Length: 5\r\n")->kind, BodyKind::kLength);
    QCOMPARE(framing("Content-Length: 5\r\n")->length, std::int64_t{5});
    QCOMPARE(framing("Transfer-Encoding: chunked\r\n")->kind, BodyKind::kChunked);
    QCOMPARE(framing("")->kind, BodyKind::kNone);
    QCOMPARE(framing("Content-Length: 5\r\nContent-Length: 5\r\n")->kind, BodyKind::kLength);
    for (const char* bad : {"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "Content-Length: 5\r\nContent-Length: 6\r\n",
                            "Content-Length: -1\r\n", "Content-Length: 1x\r\n", "Content-Length: +1\r\n",
                            "Transfer-Encoding: gzip, chunked\r\n", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"}) {
      QVERIFY2(!framing(bad), bad);
      QVERIFY2(!error.empty(), bad);
    }
  }

  void a_response_without_a_length_runs_until_the_connection_closes() {
    ResponseHead r;
    std::string error;
    QCOMPARE(parse_response_head("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", r, error), HeadStatus::kOk);
    QCOMPARE(response_framing(r, "GET", error)->kind, BodyKind::kUntilClose);
    QCOMPARE(response_framing(r, "HEAD", error)->kind, BodyKind::kNone);
    QCOMPARE(parse_response_head("HTTP/1.1 204 No Content\r\n\r\n", r, error), HeadStatus::kOk);
    QCOMPARE(response_framing(r, "GET", error)->kind, BodyKind::kNone);
    QCOMPARE(parse_response_head("HTTP/1.1 099 X\r\n\r\n", r, error), HeadStatus::kMalformed);
    QCOMPARE(parse_response_head("HTTP/1.1 20 OK\r\n\r\n", r, error), HeadStatus::kMalformed);
  }

  void a_chunked_body_ends_exactly_where_its_last_chunk_and_trailers_do() {
    const std::string body = "5;ext=1\r\nhello\r\n1A\r\n" + std::string(26, 'x') + "\r\n0\r\nTrailer: yes\r\n\r\nNEXT";
    for (std::size_t split = 0; split <= body.size(); ++split) {
      ChunkedTracker t;
      std::size_t used = t.feed(body.data(), split);
      if (!t.done()) used += t.feed(body.data() + used, body.size() - used);
      QVERIFY2(t.done(), std::to_string(split).c_str());
      QCOMPARE(body.substr(used), std::string("NEXT"));
      QCOMPARE(t.data_bytes(), std::int64_t{31});
    }
    for (const char* bad : {"x\r\n", "5\r\nhelloX\r\n", "5\nhello\r\n", "\r\n", "0\r\nbad\rline\r\n\r\n"}) {
      ChunkedTracker t;
      t.feed(bad, std::strlen(bad));
      QVERIFY2(t.failed(), bad);
    }
  }

  void a_request_with_the_placeholder_goes_upstream_with_the_key_and_no_other_credential() {
    const auto v = judge("POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n"
                         "x-api-key: paddock-placeholder-0123456789abcdef\r\nAuthorization: Bearer agent-own\r\n"
                         "Cookie: session=1\r\nX-Goog-Api-Key: other\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\n"
                         "Anthropic-Version: 2023-06-01\r\nContent-Length: 2\r\n\r\n");
    QVERIFY2(v.allowed, v.rule.c_str());
    const std::string& h = v.upstream_head;
    QVERIFY2(h.rfind("POST /v1/messages?beta=true HTTP/1.1\r\nHost: api.anthropic.com\r\n", 0) == 0, h.c_str());
    QVERIFY2(h.find("x-api-key: sk-ant-REAL-KEY-1234567890\r\n") != std::string::npos, h.c_str());
    QVERIFY2(h.find("Anthropic-Version: 2023-06-01\r\n") != std::string::npos, h.c_str());
    QVERIFY2(h.find("Content-Length: 2\r\n") != std::string::npos, h.c_str());
    for (const char* gone : {"placeholder", "agent-own", "Cookie", "other", "X-Drop", "Connection", "127.0.0.1"})
      QVERIFY2(h.find(gone) == std::string::npos, (std::string(gone) + " in " + h).c_str());
    QVERIFY(h.size() > 4 && h.substr(h.size() - 4) == "\r\n\r\n");
  }

  void the_placeholder_counts_in_any_header_a_client_sends_a_key_in() {
    CredentialSpec bearer = spec();
    bearer.header = "authorization";
    bearer.scheme = CredentialScheme::kBearer;
    for (const std::string& carrying : {std::string("Authorization: Bearer paddock-placeholder-0123456789abcdef"),
                                        std::string("authorization: bearer  paddock-placeholder-0123456789abcdef"),
                                        std::string("X-Api-Key: paddock-placeholder-0123456789abcdef"),
                                        // git's credential as Basic user:password
                                        std::string("Authorization: Basic eC1hY2Nlc3MtdG9rZW46cGFkZG9jay1wbGFjZWhvbGRlci0wMTIzNDU2Nzg5YWJjZGVm")}) {
      const auto v = judge("GET /x HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n" + carrying + "\r\n\r\n", bearer);
      QVERIFY2(v.allowed, (carrying + ": " + v.rule).c_str());
      QVERIFY2(v.upstream_head.find("authorization: Bearer sk-ant-REAL-KEY-1234567890\r\n") != std::string::npos,
               v.upstream_head.c_str());
    }
  }

  void a_basic_credential_is_written_as_user_and_key_in_base64() {
    CredentialSpec git = spec();
    git.header = "authorization";
    git.scheme = CredentialScheme::kBasic;
    git.basic_user = "x-access-token";
    git.value = "ghp_realtoken";
    QCOMPARE(QString::fromStdString(credential_header_value(git)), QString("Basic eC1hY2Nlc3MtdG9rZW46Z2hwX3JlYWx0b2tlbg=="));
  }

  void requests_without_the_placeholder_or_for_another_host_are_refused_as_policy() {
    struct Case {
      std::string request;
      int status;
      std::string rule;
    } cases[] = {
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:3129\r\n\r\n", 403, "request without the placeholder"},
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nx-api-key: paddock-placeholder-0123456789abcdeX\r\n\r\n", 403,
         "request without the placeholder"},
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nx-api-key: sk-ant-REAL-KEY-1234567890\r\n\r\n", 403,
         "request without the placeholder"},
        {"GET / HTTP/1.1\r\nHost: evil.example.com\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n", 403,
         "bound to api.anthropic.com, not evil.example.com"},
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:3130\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n", 403,
         "bound to api.anthropic.com"},
        {"GET http://evil.example.com/ HTTP/1.1\r\nHost: evil.example.com\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n",
         400, "only origin-form"},
        {"CONNECT evil.example.com:443 HTTP/1.1\r\nHost: evil.example.com:443\r\n\r\n", 405, "CONNECT is not brokered"},
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n",
         501, "upgrades other than WebSocket"},
        {"GET / HTTP/1.1\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n", 400, "no Host header"},
        {"POST / HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\nContent-Length: 67108865\r\n\r\n",
         413, "larger than max_request"},
    };
    for (const auto& c : cases) {
      const auto v = judge(c.request);
      QVERIFY2(!v.allowed, c.request.c_str());
      QCOMPARE(v.status, c.status);
      QVERIFY2(v.rule.rfind("credentials.anthropic-api-key: ", 0) == 0 && v.rule.find(c.rule) != std::string::npos,
               (c.request + " -> " + v.rule).c_str());
    }
  }

  void a_websocket_upgrade_keeps_its_upgrade_fields_and_gets_the_key() {
    const auto v = judge("GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1:3129\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                         "Sec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\nx-api-key: paddock-placeholder-0123456789abcdef\r\n\r\n");
    QVERIFY2(v.allowed && v.websocket, v.rule.c_str());
    for (const char* kept : {"Connection: Upgrade\r\n", "Upgrade: websocket\r\n", "Sec-WebSocket-Key: abc\r\n",
                             "x-api-key: sk-ant-REAL-KEY-1234567890\r\n"})
      QVERIFY2(v.upstream_head.find(kept) != std::string::npos, v.upstream_head.c_str());
  }

  void the_brokers_own_answer_says_it_is_policy_in_both_vendors_error_shapes() {
    const std::string r = broker_response(403, "anthropic-api-key", "credentials.anthropic-api-key: request budget used (5 requests)",
                                          "this session's budget is used up");
    QVERIFY2(r.rfind("HTTP/1.1 403 Forbidden\r\n", 0) == 0, r.c_str());
    QVERIFY2(r.find("X-Paddock-Rule: credentials.anthropic-api-key: request budget used (5 requests)\r\n") != std::string::npos, r.c_str());
    QVERIFY2(r.find("Connection: close\r\n") != std::string::npos, r.c_str());
    const auto body = nlohmann::json::parse(r.substr(r.find("\r\n\r\n") + 4));
    QCOMPARE(QString::fromStdString(body["type"].get<std::string>()), QString("error"));
    const std::string message = body["error"]["message"].get<std::string>();
    QVERIFY2(message.find("deliberate policy decision of the sandbox") != std::string::npos, message.c_str());
    QCOMPARE(QString::fromStdString(body["error"]["code"].get<std::string>()), QString("paddock_sandbox_policy"));
  }

  void events_name_the_path_never_the_query() {
    QCOMPARE(QString::fromStdString(path_of("/v1beta/models/x:generate?key=AIza-secret")), QString("/v1beta/models/x:generate"));
    QCOMPARE(QString::fromStdString(path_of("/a#frag")), QString("/a"));
  }

  void an_echoed_key_is_scrubbed_across_any_split_and_nothing_else_is_held() {
    const std::string key = "sk-ant-REAL-KEY-1234567890";
    const std::string stream = "data: {\"headers\": {\"x-api-key\": \"" + key + "\"}}\n\n";
    for (std::size_t a = 0; a <= stream.size(); ++a) {
      SecretScrubber s({key});
      const std::string out = scrub_all(s, {stream.substr(0, a), stream.substr(a)});
      QCOMPARE(out.size(), stream.size());
      QVERIFY2(out.find(key) == std::string::npos, out.c_str());
      QVERIFY2(out.find(std::string(key.size(), '*')) != std::string::npos, out.c_str());
      QCOMPARE(s.scrubbed(), std::int64_t{1});
    }
    // An event that ends in its blank line goes out whole at once: nothing is held.
    SecretScrubber s({key});
    std::string event = "data: {\"text\": \"hello\"}\n\n";
    s.feed(event);
    QCOMPARE(event, std::string("data: {\"text\": \"hello\"}\n\n"));
    std::string tail = "data: sk-ant";  // could be the key's start: held
    s.feed(tail);
    QCOMPARE(tail, std::string("data: "));
    QCOMPARE(s.flush(), std::string("sk-ant"));
  }
};

QTEST_GUILESS_MAIN(CredentialRulesTest)
#include "credential_rules_test.moc"
