// display_text: what every front end shows of a name someone else chose.
#include <QtTest>

#include "engine/display_text.h"

using paddock::display_text;

class DisplayTextTest : public QObject {
  Q_OBJECT
 private slots:
  void plain_text_and_utf8_are_shown_as_they_are() {
    QCOMPARE(display_text("/home/u/proj/src/main.rs"), std::string("/home/u/proj/src/main.rs"));
    QCOMPARE(display_text("/home/u/café/日本.txt"), std::string("/home/u/café/日本.txt"));
  }

  void controls_line_ends_and_escapes_are_escaped() {
    QCOMPARE(display_text("a\x1b[2Jb"), std::string("a\\x1b[2Jb"));
    QCOMPARE(display_text("line\nFORGED\r\t"), std::string("line\\nFORGED\\r\\t"));
    QCOMPARE(display_text(std::string("nul\0x", 5)), std::string("nul\\x00x"));
    QCOMPARE(display_text("del\x7f"), std::string("del\\x7f"));
    QCOMPARE(display_text("a\\x1b"), std::string("a\\\\x1b"));  // a name that spells an escape
  }

  void c1_controls_bidi_overrides_and_bytes_that_are_not_utf8_are_escaped() {
    QCOMPARE(display_text("csi\xc2\x9b" "2J"), std::string("csi\\u009b2J"));
    QCOMPARE(display_text("evil\xe2\x80\xae" "txt.exe"), std::string("evil\\u202etxt.exe"));
    QCOMPARE(display_text("iso\xe2\x81\xa6x"), std::string("iso\\u2066x"));
    QCOMPARE(display_text("caf\xe9"), std::string("caf\\xe9"));
    QCOMPARE(display_text("\x9b" "2J"), std::string("\\x9b2J"));
    QCOMPARE(display_text("\xe2\x80"), std::string("\\xe2\\x80"));  // a sequence cut short
  }
};

QTEST_APPLESS_MAIN(DisplayTextTest)
#include "display_text_test.moc"
