// The CONNECT and SOCKS5 parsers as pure functions: complete, partial, refused and hostile input.
#include <QtTest>

#include "helpers/broker/request_parser.h"

using namespace paddock::broker;

class BrokerParserTest : public QObject {
  Q_OBJECT
 private slots:
  void a_connect_request_yields_host_port_and_its_length() {
    std::string req = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nTLSDATA";
    ConnectRequest r = parse_http_connect(req);
    QCOMPARE(r.status, ParseStatus::kOk);
    QCOMPARE(QString::fromStdString(r.host), QString("example.com"));
    QCOMPARE(r.port, 443);
    QCOMPARE(req.substr(r.consumed), std::string("TLSDATA"));
  }

  void every_prefix_of_a_valid_request_asks_for_more() {
    std::string req = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
    for (size_t i = 0; i < req.size(); ++i)
      QVERIFY2(parse_http_connect(req.substr(0, i)).status == ParseStatus::kNeedMore, req.substr(0, i).c_str());
    QCOMPARE(parse_http_connect(req).status, ParseStatus::kOk);
  }

  void bracketed_ipv6_targets_are_parsed_for_the_host_check_to_refuse() {
    ConnectRequest r = parse_http_connect("CONNECT [::1]:22 HTTP/1.1\r\n\r\n");
    QCOMPARE(r.status, ParseStatus::kOk);
    QCOMPARE(QString::fromStdString(r.host), QString("[::1]"));
    QCOMPARE(r.port, 22);
  }

  void other_methods_are_recognised_for_a_501() {
    ConnectRequest r = parse_http_connect("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n");
    QCOMPARE(r.status, ParseStatus::kNotConnect);
    QCOMPARE(QString::fromStdString(r.method), QString("GET"));
  }

  void malformed_requests_are_refused_with_a_reason() {
    for (const char* bad : {"CONNECT example.com HTTP/1.1\r\n\r\n", "CONNECT example.com:0 HTTP/1.1\r\n\r\n",
                            "CONNECT example.com:65536 HTTP/1.1\r\n\r\n", "CONNECT example.com:+443 HTTP/1.1\r\n\r\n",
                            "CONNECT example.com:443 HTTP/2.0\r\n\r\n", "CONNECT  example.com:443 HTTP/1.1\r\n\r\n",
                            "CONNECT example.com:443\r\n\r\n", "CONNECT :443 HTTP/1.1\r\n\r\n",
                            "CONNECT [::1 HTTP/1.1\r\n\r\n", "CONNECT example.com:443 HTTP/1.1\r\nno colon\r\n\r\n",
                            "CONNECT example.com:443 HTTP/1.1\r\nBad Name: x\r\n\r\n", "\x16\x03\x01\x02", " GET",
                            "GET\t/ HTTP/1.1\r\n\r\n"}) {
      ConnectRequest r = parse_http_connect(bad);
      QVERIFY2(r.status == ParseStatus::kMalformed, bad);
      QVERIFY2(!r.error.empty(), bad);
    }
  }

  void a_header_past_8_KiB_is_oversize() {
    std::string big = "CONNECT example.com:443 HTTP/1.1\r\nX-Pad: " + std::string(9000, 'a');
    QCOMPARE(parse_http_connect(big).status, ParseStatus::kOversize);
    std::string big_complete = big + "\r\n\r\n";
    QCOMPARE(parse_http_connect(big_complete).status, ParseStatus::kOversize);
    std::string just_fits = "CONNECT example.com:443 HTTP/1.1\r\nX-Pad: ";
    just_fits += std::string(kMaxHeaderBytes - just_fits.size() - 4, 'a') + "\r\n\r\n";
    QCOMPARE(just_fits.size(), kMaxHeaderBytes);
    QCOMPARE(parse_http_connect(just_fits).status, ParseStatus::kOk);
  }

  void socks5_greeting_needs_the_no_auth_method() {
    QCOMPARE(parse_socks5_greeting(std::string("\x05", 1)).status, ParseStatus::kNeedMore);
    Socks5Greeting g = parse_socks5_greeting(std::string("\x05\x02\x02\x00", 4));
    QCOMPARE(g.status, ParseStatus::kOk);
    QVERIFY(g.offers_no_auth);
    QCOMPARE(g.consumed, size_t{4});
    Socks5Greeting only_password = parse_socks5_greeting(std::string("\x05\x01\x02", 3));
    QCOMPARE(only_password.status, ParseStatus::kOk);
    QVERIFY(!only_password.offers_no_auth);
    QCOMPARE(parse_socks5_greeting(std::string("\x04\x01\x00", 3)).status, ParseStatus::kMalformed);
    QCOMPARE(parse_socks5_greeting(std::string("\x05\x00", 2)).status, ParseStatus::kMalformed);
  }

  void socks5_requests_carry_command_type_host_and_port() {
    std::string req = std::string("\x05\x01\x00\x03\x0b", 5) + "example.com" + std::string("\x01\xbb", 2);
    for (size_t i = 0; i < req.size(); ++i)
      QCOMPARE(parse_socks5_request(req.substr(0, i)).status, ParseStatus::kNeedMore);
    Socks5Request r = parse_socks5_request(req + "extra");
    QCOMPARE(r.status, ParseStatus::kOk);
    QCOMPARE(r.command, std::uint8_t{1});
    QCOMPARE(QString::fromStdString(r.host), QString("example.com"));
    QCOMPARE(r.port, 443);
    QCOMPARE(r.consumed, req.size());

    Socks5Request v4 = parse_socks5_request(std::string("\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x16", 10));
    QCOMPARE(v4.status, ParseStatus::kOk);
    QCOMPARE(QString::fromStdString(v4.host), QString("127.0.0.1"));
    std::string v6 = std::string("\x05\x01\x00\x04", 4) + std::string(15, '\0') + "\x01" + std::string("\x00\x16", 2);
    QCOMPARE(QString::fromStdString(parse_socks5_request(v6).host), QString("[::1]"));
    Socks5Request bind = parse_socks5_request(std::string("\x05\x02\x00\x03\x01x\x00\x50", 8));
    QCOMPARE(bind.status, ParseStatus::kOk);
    QCOMPARE(bind.command, std::uint8_t{2});
  }

  void malformed_socks5_requests_are_refused() {
    QCOMPARE(parse_socks5_request(std::string("\x05\x01\x01\x03\x01x\x00\x50", 8)).status, ParseStatus::kMalformed);
    QCOMPARE(parse_socks5_request(std::string("\x05\x01\x00\x05\x01x\x00\x50", 8)).status, ParseStatus::kMalformed);
    QCOMPARE(parse_socks5_request(std::string("\x05\x01\x00\x03\x00\x00\x50", 7)).status, ParseStatus::kMalformed);
    QCOMPARE(parse_socks5_request(std::string("\x05\x01\x00\x03\x01x\x00\x00", 8)).status, ParseStatus::kMalformed);
    QCOMPARE(parse_socks5_request(std::string("\x04\x01\x00\x03", 4)).status, ParseStatus::kMalformed);
  }
};

QTEST_GUILESS_MAIN(BrokerParserTest)
#include "broker_parser_test.moc"
