// Line diffs for the review (engine/review/text_diff.h): the edit script is minimal and complete
// (applying the hunks to the old text gives the new one), context lines frame each change, and
// inputs too far apart are reported as too large instead of being diffed slowly.
#include <QtTest>

#include <random>

#include "engine/review/text_diff.h"

using namespace paddock::review;

namespace {

// Rebuilds the new text from the old one and the hunks, as patch(1) would.
std::string patch(const std::string& before, const TextDiff& d) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < before.size()) {
    const auto nl = before.find('\n', at);
    lines.push_back(before.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  std::vector<std::string> out;
  int next = 1;
  for (const auto& h : d.hunks) {
    const int start = h.old_count == 0 ? h.old_start + 1 : h.old_start;
    while (next < start) out.push_back(lines[static_cast<std::size_t>(next++ - 1)]);
    for (const auto& l : h.lines) {
      if (l.op != '-') out.push_back(l.text);
      if (l.op != '+') ++next;
    }
  }
  while (next <= static_cast<int>(lines.size())) out.push_back(lines[static_cast<std::size_t>(next++ - 1)]);
  std::string s;
  for (const auto& l : out) s += l + "\n";
  return s;
}

}  // namespace

class TextDiffTest : public QObject {
  Q_OBJECT
 private slots:
  void equal_texts_have_no_hunks() {
    const auto d = diff_lines("a\nb\n", "a\nb\n");
    QVERIFY(d.hunks.empty());
    QCOMPARE(unified(d, "a", "b"), std::string());
  }

  void one_changed_line_is_one_hunk_with_its_context() {
    const auto d = diff_lines("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n");
    QCOMPARE(d.hunks.size(), std::size_t{1});
    QCOMPARE(d.added, 1);
    QCOMPARE(d.removed, 1);
    QCOMPARE(unified(d, "a/f", "b/f"), std::string("--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"));
  }

  void a_new_and_a_deleted_file_are_one_hunk_from_and_to_nothing() {
    QCOMPARE(unified(diff_lines("", "x\ny\n"), "/dev/null", "b/n"), std::string("--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n"));
    QCOMPARE(unified(diff_lines("x\n", ""), "a/n", "/dev/null"), std::string("--- a/n\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n"));
  }

  void random_edits_are_reproduced_exactly_by_their_hunks() {
    std::mt19937 rng(12345);
    for (int round = 0; round < 200; ++round) {
      std::string a, b;
      const int n = static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) {
        const std::string line = std::to_string(rng() % 8);
        a += line + "\n";
        const int r = static_cast<int>(rng() % 6);
        if (r == 0) continue;                           // deleted
        if (r == 1) b += std::to_string(rng() % 8) + "x\n";  // replaced
        else b += line + "\n";
        if (r == 2) b += "ins\n";                        // inserted
      }
      const auto d = diff_lines(a, b, 2);
      QVERIFY(!d.too_large);
      QCOMPARE(patch(a, d), b);
    }
  }

  void texts_too_far_apart_are_reported_not_diffed() {
    std::string a, b;
    for (int i = 0; i < 3000; ++i) {
      a += "a" + std::to_string(i) + "\n";
      b += "b" + std::to_string(i) + "\n";
    }
    QVERIFY(diff_lines(a, b, 3, 1000).too_large);
  }

  void a_nul_byte_in_the_head_makes_content_binary() {
    QVERIFY(looks_binary(std::string("ab\0c", 4)));
    QVERIFY(!looks_binary("plain text\n"));
    QVERIFY(!looks_binary(std::string(9000, 'a') + std::string(1, '\0')));
  }
};

QTEST_APPLESS_MAIN(TextDiffTest)
#include "text_diff_test.moc"
