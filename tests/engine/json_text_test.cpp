// engine/json_text.h: how a path that is not UTF-8 is written into JSON and read back. Valid
// UTF-8 must stay exactly as it is (every hash and golden depends on it); everything else must
// come back byte for byte, with exactly one encoding per byte string.
#include <QtTest>

#include <cstdint>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/json_text.h"

using namespace paddock;

class JsonTextTest : public QObject {
  Q_OBJECT
 private slots:
  void valid_utf8_is_written_unchanged() {
    for (const std::string& s : {std::string(), std::string("/home/u/proj/.env"), std::string("caf\xc3\xa9"),
                                std::string("\xe2\x82\xac/\xf0\x9f\x98\x80"), std::string("tab\tand\nnewline"),
                                std::string("100% sure"), std::string("nul\0byte", 8), std::string("\xf4\x8f\xbf\xbf")}) {
      QVERIFY2(is_utf8(s), s.c_str());
      QCOMPARE(encode_json_text(s), s);
      QCOMPARE(decode_json_text(s), std::optional<std::string>(s));
    }
  }

  void a_latin1_name_is_encoded_readably() {
    QCOMPARE(encode_json_text("/home/u/proj/caf\xe9.pem"), std::string("bytes:/home/u/proj/caf%E9.pem"));
    // '%' is escaped once the string is encoded at all, and valid sequences stay as they are.
    QCOMPARE(encode_json_text("/p/100%\xff/\xc3\xa9"), std::string("bytes:/p/100%25%FF/\xc3\xa9"));
  }

  // Overlong forms, surrogates, code points above U+10FFFF and truncated sequences are not
  // UTF-8: exactly the strings nlohmann::json refuses to dump.
  void what_is_not_utf8_agrees_with_the_json_library() {
    for (const std::string& s : {std::string("\xc0\xaf"), std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80"),
                                std::string("\xe2\x82"), std::string("\x80"), std::string("\xff\xfe"),
                                std::string("ok\xf0\x9f\x98")}) {
      QVERIFY(!is_utf8(s));
      QVERIFY_THROWS_EXCEPTION(nlohmann::json::type_error, nlohmann::json(s).dump());
      const std::string e = encode_json_text(s);
      QVERIFY(is_utf8(e));
      QCOMPARE(decode_json_text(e), std::optional<std::string>(s));
    }
  }

  void a_string_that_starts_with_the_marker_is_encoded_too() {
    QCOMPARE(encode_json_text("bytes:x"), std::string("bytes:bytes:x"));
    QCOMPARE(decode_json_text("bytes:bytes:x"), std::optional<std::string>("bytes:x"));
    QCOMPARE(encode_json_text("byte"), std::string("byte"));
  }

  void every_byte_string_round_trips_and_encodes_to_utf8() {
    std::mt19937 rng(20261201);
    std::uniform_int_distribution<int> len(0, 24), byte(0, 255), pick(0, 5);
    const std::string alphabet[] = {"%", "\xc3\xa9", "bytes:", "/", "\xe9", "a"};
    for (int n = 0; n < 20000; ++n) {
      std::string s;
      for (int i = len(rng); i > 0; --i) {
        if (pick(rng) == 0) s += alphabet[static_cast<std::size_t>(pick(rng))];
        else s += static_cast<char>(byte(rng));
      }
      const std::string e = encode_json_text(s);
      QVERIFY(is_utf8(e));
      QVERIFY(nlohmann::json(e).dump().size() >= 2);  // dumps without throwing
      QCOMPARE(decode_json_text(e), std::optional<std::string>(s));
      QCOMPARE(e == s, json_text_is_plain(s));
    }
  }

  // One encoding per byte string: anything a writer never produces is refused.
  void text_that_no_writer_produces_is_refused() {
    for (const std::string& bad : {std::string("bytes:%e9"), std::string("bytes:%E"), std::string("bytes:%"),
                                  std::string("bytes:%G0"), std::string("bytes:plain"), std::string("bytes:%41"),
                                  std::string("bytes:%C3%A9"), std::string("bytes:\xe9"), std::string("\xe9"),
                                  std::string("bytes:%25")})
      QVERIFY2(!decode_json_text(bad), bad.c_str());
    QCOMPARE(decode_json_text("bytes:%25%E9"), std::optional<std::string>("%\xe9"));
  }
};

QTEST_APPLESS_MAIN(JsonTextTest)
#include "json_text_test.moc"
