// CanonicalWriter (engine/canonical_writer.h) must give exactly the bytes canonical_bytes() gives
// for the same data as a json tree: plan_hash depends on it, and a helper and a CLI that
// disagreed by one byte would refuse every session with 103.
#include <QtTest>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engine/canonical_writer.h"
#include "engine/ir.h"
#include "engine/json_text.h"

using namespace paddock;
using nlohmann::json;

class CanonicalWriterTest : public QObject {
  Q_OBJECT
 private slots:
  void strings_are_escaped_exactly_as_the_canonical_dump_escapes_them() {
    const std::vector<std::string> samples = {
        "",           "plain",          "with \"quotes\"", "back\\slash", "/etc/pass wd",
        "tab\there",  "new\nline",      std::string("nul\0byte", 8),  "\x01\x1f\x7f",
        "caf\xc3\xa9", "\xe2\x82\xac/\xf0\x9f\x98\x80", "\b\f\r", "'single' & <angle>",
        // escapes first, last, adjacent and alone (the writer appends the runs between them)
        "\"", "\\", "\"\"", "\\\\\"", "a\\\"b\\", "\"lead", "trail\\", "x\"y\"z"};
    for (const auto& s : samples) {
      CanonicalWriter w;
      w.value(s);
      QCOMPARE(w.bytes(), canonical_bytes(json(s)));
    }
  }

  // Bytes that are not UTF-8 (a file name from the disk) are written encoded, exactly as the
  // json tree of the encoded string dumps (engine/json_text.h), in keys and values alike.
  void bytes_that_are_not_utf8_are_written_encoded() {
    for (const std::string& bad : {std::string("bad\xff"), std::string("/p/caf\xe9.pem"), std::string("bytes:x"),
                                  std::string("\xe9\n\"")}) {
      CanonicalWriter w;
      w.value(bad);
      QCOMPARE(w.bytes(), canonical_bytes(json(encode_json_text(bad))));
    }
    const std::map<std::string, std::string> m = {{"b", "1"}, {"a\xff", "2"}, {"bytes:", "3"}, {"c", "\xe9"}};
    json tree = json::object();
    for (const auto& [k, v] : m) tree[encode_json_text(k)] = encode_json_text(v);
    CanonicalWriter w;
    w.value(m);
    QCOMPARE(w.bytes(), canonical_bytes(tree));
  }

  void numbers_booleans_and_null_match_the_canonical_dump() {
    CanonicalWriter w;
    w.begin_array()
        .value(0)
        .value(-1)
        .value(std::numeric_limits<std::int64_t>::min())
        .value(std::numeric_limits<std::int64_t>::max())
        .value(std::numeric_limits<std::uint64_t>::max())
        .value(true)
        .value(false)
        .null()
        .end_array();
    json j = json::array({0, -1, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                          std::numeric_limits<std::uint64_t>::max(), true, false, nullptr});
    QCOMPARE(w.bytes(), canonical_bytes(j));
  }

  void nested_objects_arrays_and_maps_match_the_canonical_dump() {
    const std::map<std::string, std::string> env = {{"HOME", "/h"}, {"PATH", "/bin"}, {"a", ""}};
    const std::map<std::string, std::vector<std::string>> resolve = {{"x.test", {"127.0.0.1", "::1"}},
                                                                     {"y.test", {}}};
    const json probe = {{"z", 1}, {"a", {{"b", json::array()}}}};
    CanonicalWriter w;
    w.begin_object();
    w.key("a").begin_array().begin_object().end_object().begin_array().end_array().end_array();
    w.key("env").value(env);
    w.key("list").value(std::vector<std::string>{"x", "y"});
    w.key("probe").value(probe);
    w.key("resolve").value(resolve);
    w.key("z").begin_object().key("k").value(1).end_object();
    w.end_object();
    json j = {{"a", json::array({json::object(), json::array()})},
              {"env", env},
              {"list", {"x", "y"}},
              {"probe", probe},
              {"resolve", resolve},
              {"z", {{"k", 1}}}};
    QCOMPARE(w.bytes(), canonical_bytes(j));
  }

  // The writer does not sort: keys out of byte order give bytes that are not canonical. This is
  // what the plan tests' round trip (parse, canonical dump, compare) would catch.
  void keys_written_out_of_order_are_not_canonical() {
    CanonicalWriter w;
    w.begin_object().key("b").value(1).key("a").value(2).end_object();
    QVERIFY(w.bytes() != canonical_bytes(json::parse(w.bytes())));
  }
};

QTEST_APPLESS_MAIN(CanonicalWriterTest)
#include "canonical_writer_test.moc"
