#include <QtTest>

#include "engine/limits.h"

using namespace paddock;

class LimitsTest : public QObject {
  Q_OBJECT
 private slots:
  void the_full_spec_parses_with_decimal_and_binary_suffixes() {
    auto r = parse_limits_spec("cpu=300,mem=4GiB,procs=256,nofile=1024,fsize=2M,wall=2h");
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
    QCOMPARE(*(*r)[0], std::int64_t(300));
    QCOMPARE(*(*r)[1], std::int64_t(4) << 30);
    QCOMPARE(*(*r)[2], std::int64_t(256));
    QCOMPARE(*(*r)[3], std::int64_t(1024));
    QCOMPARE(*(*r)[4], std::int64_t(2000000));
    QCOMPARE(*(*r)[5], std::int64_t(7200));
  }
  void k_m_g_are_thousands_and_kib_mib_gib_are_1024s() {
    QCOMPARE(*parse_size("3k"), std::int64_t(3000));
    QCOMPARE(*parse_size("3KiB"), std::int64_t(3072));
    QCOMPARE(*parse_size("1g"), std::int64_t(1000000000));
    QCOMPARE(*parse_size("1MiB"), std::int64_t(1048576));
  }
  void an_unknown_key_an_empty_pair_or_a_bad_suffix_is_an_error() {
    QVERIFY(parse_limits_spec("disk=1G").error().message.find("unknown key 'disk'") != std::string::npos);
    QVERIFY(parse_limits_spec("cpu=1,,mem=1G").error().message.find("empty pair") != std::string::npos);
    QVERIFY(parse_limits_spec("cpu=1,").error().message.find("empty pair") != std::string::npos);
    QVERIFY(parse_limits_spec("mem=4GB").error().message.find("unknown suffix") != std::string::npos);
    QVERIFY(!parse_limits_spec("mem=").ok());
    QVERIFY(!parse_limits_spec("").ok());
    QCOMPARE(parse_limits_spec("disk=1G").error().code, ErrorCode::kBadInput);
  }
  void overflow_is_detected_not_wrapped() {
    QVERIFY(!parse_size("9223372036854775807KiB").ok());
    QVERIFY(!parse_size("99999999999999999999").ok());
    QVERIFY(!parse_duration("9223372036854775807d").ok());
  }
  void a_key_given_twice_keeps_the_strictest_value() {
    auto r = parse_limits_spec("mem=8GiB,mem=1GiB");
    QCOMPARE(*(*r)[1], std::int64_t(1) << 30);
  }
};

QTEST_APPLESS_MAIN(LimitsTest)
#include "limits_test.moc"
