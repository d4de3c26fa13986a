// The vetting function over the forbidden ranges of docs/network.md and their allowed neighbours,
// the host-name normaliser (lookalikes, IP literals in every spelling) and domain matching.
#include <QtTest>

#include "helpers/broker/address_vetting.h"
#include "helpers/broker/egress_policy.h"
#include "helpers/broker/host_name.h"

using namespace paddock;
using namespace paddock::broker;

namespace {

std::optional<std::string> reason_of(const char* text) {
  auto a = IpAddress::parse(text);
  if (!a) qFatal("bad test address %s", text);
  return forbidden_reason(*a);
}

IrEgress egress(NetMode mode, std::vector<std::string> domains) {
  IrEgress e;
  e.mode = mode;
  e.domains = std::move(domains);
  return e;
}

}  // namespace

class BrokerVettingTest : public QObject {
  Q_OBJECT
 private slots:
  void every_forbidden_address_is_refused_with_its_class() {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"0.0.0.0", "unspecified"}, {"0.1.2.3", "0.0.0.0/8"}, {"10.0.0.5", "private (RFC 1918)"},
        {"10.255.255.255", "private"}, {"100.64.0.0", "carrier-grade NAT"}, {"100.127.255.255", "carrier-grade NAT"},
        {"127.0.0.1", "loopback"}, {"127.255.255.254", "loopback"}, {"169.254.0.1", "link-local"},
        {"169.254.169.254", "metadata"}, {"100.100.100.200", "metadata"}, {"172.16.0.1", "private"},
        {"172.31.255.255", "private"}, {"192.0.0.8", "IETF protocol"}, {"192.0.2.1", "documentation"},
        {"192.88.99.1", "6to4 relay"}, {"192.168.1.1", "private"}, {"198.18.0.1", "benchmarking"},
        {"198.19.255.255", "benchmarking"}, {"198.51.100.7", "documentation"}, {"203.0.113.9", "documentation"},
        {"224.0.0.1", "multicast"}, {"239.255.255.255", "multicast"}, {"240.0.0.1", "reserved"},
        {"255.255.255.254", "reserved"}, {"255.255.255.255", "broadcast"},
        {"::", "unspecified"}, {"::1", "loopback"}, {"::ffff:127.0.0.1", "IPv4-mapped"},
        {"::ffff:8.8.8.8", "IPv4-mapped"}, {"::127.0.0.1", "IPv4-compatible"},
        {"64:ff9b::10.0.0.1", "NAT64"}, {"64:ff9b::7f00:1", "loopback"}, {"64:ff9b::a9fe:a9fe", "metadata"},
        {"64:ff9b:1::8.8.8.8", "local-use NAT64"}, {"2002:0a00:0001::1", "6to4"}, {"2002:7f00:1::", "loopback"},
        {"2002:a9fe:a9fe::1", "metadata"}, {"2001::1", "Teredo"}, {"2001:0:4136:e378::1", "Teredo"},
        {"2001:2::1", "benchmarking"}, {"2001:10::1", "IETF protocol assignments"}, {"2001:db8::1", "documentation"},
        {"3fff::1", "documentation"}, {"fc00::1", "unique local"}, {"fd12:3456::1", "unique local"},
        {"fd00:ec2::254", "metadata"}, {"fe80::1", "link-local"}, {"febf:ffff::1", "link-local"},
        {"fec0::1", "site-local"}, {"ff02::1", "multicast"}, {"ff0e::1", "multicast"}, {"100::1", "discard-only"},
        {"4000::1", "reserved"}, {"::2", "IPv4-compatible"}, {"1::", "reserved"},
    };
    for (const auto& [addr, expect] : cases) {
      auto why = reason_of(addr);
      QVERIFY2(why.has_value(), addr);
      QVERIFY2(why->find(expect) != std::string::npos, (std::string(addr) + " -> " + *why).c_str());
    }
  }

  void the_neighbours_of_every_forbidden_range_are_allowed() {
    for (const char* addr : {"1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
                             "126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255",
                             "172.32.0.0", "191.255.255.255", "192.0.1.0", "192.0.3.0", "192.88.98.255",
                             "192.88.100.0", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
                             "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "223.255.255.255",
                             "8.8.8.8", "1.1.1.1", "1.0.0.1",
                             "2000::1", "2001:200::1", "2001:4860:4860::8888", "2001:db7:ffff::1", "2001:db9::1",
                             "2606:4700::1111", "3ffe::1", "3ffe:ffff::1", "2002:0808:0808::1",
                             "64:ff9b::8.8.8.8", "3fff:f000::1"}) {
      auto why = reason_of(addr);
      QVERIFY2(!why.has_value(), (std::string(addr) + " refused: " + why.value_or("")).c_str());
    }
  }

  void one_forbidden_address_refuses_the_whole_answer_set() {
    std::vector<IpAddress> set = {*IpAddress::parse("8.8.8.8"), *IpAddress::parse("10.0.0.5")};
    AnswerVerdict v = vet_answer_set(set);
    QVERIFY(!v.ok);
    QCOMPARE(QString::fromStdString(v.reason), QString("vetting: 10.0.0.5 is private (RFC 1918)"));
    QVERIFY(vet_answer_set({*IpAddress::parse("8.8.8.8"), *IpAddress::parse("2606:4700::1111")}).ok);
    QVERIFY(!vet_answer_set({}).ok);
  }

  void the_loopback_test_seam_lets_only_loopback_through() {
    VettingOptions unsafe;
    unsafe.unsafe_allow_loopback = true;
    QVERIFY(vet_answer_set({*IpAddress::parse("127.0.0.1")}, unsafe).ok);
    QVERIFY(vet_answer_set({*IpAddress::parse("::1")}, unsafe).ok);
    QVERIFY(!vet_answer_set({*IpAddress::parse("127.0.0.1")}).ok);
    QVERIFY(!vet_answer_set({*IpAddress::parse("10.0.0.1")}, unsafe).ok);
    QVERIFY(!vet_answer_set({*IpAddress::parse("169.254.169.254")}, unsafe).ok);
    QVERIFY(!vet_answer_set({*IpAddress::parse("::ffff:127.0.0.1")}, unsafe).ok);
  }

  void the_session_seam_lets_loopback_through_only_for_the_names_it_lists() {
    VettingOptions seam;
    seam.loopback_hosts = {"api.example.test"};
    const auto loop = *IpAddress::parse("127.0.0.1");
    QVERIFY(vet_answer_set({loop}, seam, "api.example.test").ok);
    QVERIFY(vet_answer_set({*IpAddress::parse("::1")}, seam, "api.example.test").ok);
    // Any other name, a lookalike, or no name: loopback is refused as always.
    for (const char* other : {"other.example.test", "api.example.test.evil.test", "example.test", ""}) {
      auto v = vet_answer_set({loop}, seam, other);
      QVERIFY2(!v.ok && v.reason.find("loopback") != std::string::npos, other);
    }
    // Only loopback is excused: the rest of the forbidden list still applies to the seam's names.
    QVERIFY(!vet_answer_set({*IpAddress::parse("10.0.0.1")}, seam, "api.example.test").ok);
    QVERIFY(!vet_answer_set({loop, *IpAddress::parse("169.254.169.254")}, seam, "api.example.test").ok);
  }

  void host_names_are_lowercased_and_lose_one_trailing_dot() {
    QCOMPARE(QString::fromStdString(normalize_host("EXAMPLE.COM.").host), QString("example.com"));
    QCOMPARE(QString::fromStdString(normalize_host("Api.Example.Com").host), QString("api.example.com"));
    QVERIFY(!normalize_host("example.com..").ok);
    QVERIFY(!normalize_host(".").ok);
    QVERIFY(!normalize_host("").ok);
  }

  void ip_literals_are_refused_in_every_spelling() {
    for (const char* lit : {"127.0.0.1", "10.0.0.5", "2130706433", "0x7f.1", "0x7f000001", "0177.0.0.1",
                            "127.1", "[::1]", "::1", "[fe80::1%25eth0]", "::ffff:127.0.0.1", "1.2.3.4.",
                            "0X7F.0.0.1", "foo.0x10", "example.123", "8.8.8.8"}) {
      HostCheck c = normalize_host(lit);
      QVERIFY2(!c.ok, lit);
      QVERIFY2(c.reason.find("IP literal") != std::string::npos, (std::string(lit) + ": " + c.reason).c_str());
    }
    QVERIFY(normalize_host("0x7f.com").ok);
    QVERIFY(normalize_host("123.example.com").ok);
    QVERIFY(normalize_host("1password.com").ok);
  }

  void non_ldh_names_are_refused_not_guessed() {
    for (const char* bad : {"exa mple.com", "ex_ample.com", "-example.com", "example-.com", "bücher.de",
                            "a..b", "example.com/evil", "example.com:443", "user@example.com", "*.example.com",
                            "exam\rple.com"}) {
      QVERIFY2(!normalize_host(bad).ok, bad);
    }
    QVERIFY(!normalize_host(std::string("exa\0mple.com", 12)).ok);
    QVERIFY(!normalize_host(std::string(64, 'a') + ".com").ok);
    QVERIFY(normalize_host(std::string(63, 'a') + ".com").ok);
    std::string long_name;
    for (int i = 0; i < 64; ++i) long_name += "abc.";
    QVERIFY(!normalize_host(long_name + "com").ok);
  }

  void exact_rules_match_only_the_name_and_wildcards_only_subdomains() {
    auto p = EgressPolicy::create(egress(NetMode::kAllowlist, {"example.com", "*.github.com"}));
    QVERIFY(p.ok());
    QCOMPARE(p->decide("example.com", 443).verdict, Verdict::kAllow);
    QCOMPARE(p->decide("example.com", 8443).verdict, Verdict::kAllow);  // allowlist: any port
    for (const char* lookalike : {"notexample.com", "example.com.evil.com", "sub.example.com", "example.co",
                                  "github.com", "evilgithub.com", "github.com.evil.org"}) {
      PolicyDecision d = p->decide(lookalike, 443);
      QVERIFY2(d.verdict == Verdict::kDeny, lookalike);
      QCOMPARE(QString::fromStdString(d.rule), QString("egress.domains: %1 not listed").arg(lookalike));
    }
    PolicyDecision sub = p->decide("api.github.com", 443);
    QCOMPARE(sub.verdict, Verdict::kAllow);
    QCOMPARE(QString::fromStdString(sub.rule), QString("egress.domains: *.github.com"));
    QCOMPARE(p->decide("a.b.github.com", 443).verdict, Verdict::kAllow);
  }

  void strict_mode_opens_only_443_unless_strict_ports_lists_others() {
    IrEgress e = egress(NetMode::kStrict, {"example.com", "github.com"});
    e.strict_ports["github.com"] = {22, 443};
    auto p = EgressPolicy::create(e);
    QVERIFY(p.ok());
    QCOMPARE(p->decide("example.com", 443).verdict, Verdict::kAllow);
    PolicyDecision d = p->decide("example.com", 80);
    QCOMPARE(d.verdict, Verdict::kDeny);
    QVERIFY2(d.rule.find("egress.strict_ports: example.com allows port(s) 443, not 80") == 0, d.rule.c_str());
    QCOMPARE(p->decide("github.com", 22).verdict, Verdict::kAllow);
    QCOMPARE(p->decide("github.com", 2222).verdict, Verdict::kDeny);
  }

  void mode_off_refuses_everything_and_ask_asks_for_unknown_domains() {
    auto off = EgressPolicy::create(egress(NetMode::kOff, {"example.com"}));
    QVERIFY(off.ok());
    QCOMPARE(QString::fromStdString(off->decide("example.com", 443).rule), QString("mode off"));
    QCOMPARE(off->decide("example.com", 443).verdict, Verdict::kDeny);
    auto ask = EgressPolicy::create(egress(NetMode::kAsk, {"example.com"}));
    QVERIFY(ask.ok());
    QCOMPARE(ask->decide("example.com", 443).verdict, Verdict::kAllow);
    QCOMPARE(ask->decide("other.org", 443).verdict, Verdict::kAsk);
  }

  void malformed_policy_entries_are_errors_not_ignored() {
    QVERIFY(!EgressPolicy::create(egress(NetMode::kAllowlist, {"Example.com"})).ok());
    QVERIFY(!EgressPolicy::create(egress(NetMode::kAllowlist, {"10.0.0.1"})).ok());
    QVERIFY(!EgressPolicy::create(egress(NetMode::kAllowlist, {"*"})).ok());
    QVERIFY(!EgressPolicy::create(egress(NetMode::kAllowlist, {"a.*.com"})).ok());
    IrEgress bad_port = egress(NetMode::kStrict, {"example.com"});
    bad_port.strict_ports["example.com"] = {0};
    QVERIFY(!EgressPolicy::create(bad_port).ok());
    IrEgress bad_quota = egress(NetMode::kAllowlist, {"example.com"});
    bad_quota.quotas["example.com"] = -1;
    QVERIFY(!EgressPolicy::create(bad_quota).ok());
  }

  void quotas_apply_to_the_most_specific_matching_key() {
    IrEgress e = egress(NetMode::kAllowlist, {"*.example.com"});
    e.quotas["*.example.com"] = 100;
    e.quotas["big.example.com"] = 1000;
    auto p = EgressPolicy::create(e);
    QVERIFY(p.ok());
    QCOMPARE(QString::fromStdString(p->quota_key("a.example.com").value_or("")), QString("*.example.com"));
    QCOMPARE(QString::fromStdString(p->quota_key("big.example.com").value_or("")), QString("big.example.com"));
    QVERIFY(!p->quota_key("example.com").has_value());
  }
};

QTEST_GUILESS_MAIN(BrokerVettingTest)
#include "broker_vetting_test.moc"
