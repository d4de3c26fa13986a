#include <QtTest>

#include "helpers/windows/command_line.h"

using namespace paddock::winhelper;

namespace {

// A reference parser with the MSVC runtime's rules (2n backslashes + quote -> n and toggle;
// 2n+1 backslashes + quote -> n and a literal quote), to check that quoting round-trips.
std::vector<std::u16string> parse(const std::u16string& line) {
  std::vector<std::u16string> out;
  std::u16string cur;
  bool in_quotes = false, have = false;
  for (std::size_t i = 0; i < line.size();) {
    char16_t c = line[i];
    if (c == u'\\') {
      std::size_t n = 0;
      while (i < line.size() && line[i] == u'\\') { ++n; ++i; }
      if (i < line.size() && line[i] == u'"') {
        cur.append(n / 2, u'\\');
        if (n % 2) { cur.push_back(u'"'); ++i; }
      } else {
        cur.append(n, u'\\');
      }
      have = true;
      continue;
    }
    if (c == u'"') { in_quotes = !in_quotes; have = true; ++i; continue; }
    if ((c == u' ' || c == u'\t') && !in_quotes) {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
      ++i;
      continue;
    }
    cur.push_back(c);
    have = true;
    ++i;
  }
  if (have) out.push_back(cur);
  return out;
}

std::u16string u16(const std::string& s) {
  std::u16string out;
  if (!utf8_to_utf16(s, out)) qFatal("bad utf-8 in test");
  return out;
}

}  // namespace

class CommandLineTest : public QObject {
  Q_OBJECT
 private slots:
  void plain_arguments_are_left_alone() {
    QVERIFY(quote_argument(u"node.exe") == u"node.exe");
  }

  void awkward_arguments_survive_a_round_trip_through_the_runtime_rules() {
    std::vector<std::u16string> args = {u"C:\\Program Files\\node\\node.exe", u"", u"a\"b",
                                        u"ends with\\", u"\\\\server\\share\\", u"x\\\"y",
                                        u"tab\there", u16("caf\xC3\xA9 \xF0\x9F\x90\x8E")};
    QVERIFY(parse(join_command_line(args)) == args);
  }

  void utf8_conversion_round_trips_and_rejects_invalid_bytes() {
    const std::string s = "p\xC3\xA4th \xE2\x82\xAC \xF0\x9F\x90\x8E";
    std::u16string w;
    QVERIFY(utf8_to_utf16(s, w));
    QCOMPARE(w.size(), std::size_t{9});  // 7 BMP characters + the horse as a surrogate pair
    QCOMPARE(utf16_to_utf8(w), s);
    QVERIFY(!utf8_to_utf16("\xC0\xAF", w));        // overlong '/'
    QVERIFY(!utf8_to_utf16("\xED\xA0\x80", w));    // surrogate
    QVERIFY(!utf8_to_utf16("\xE2\x82", w));        // truncated
  }
};

QTEST_APPLESS_MAIN(CommandLineTest)
#include "command_line_test.moc"
