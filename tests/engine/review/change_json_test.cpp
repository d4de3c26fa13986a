// A change's streamed JSON (engine/review/change.h, append_json) is byte for byte what its JSON
// value dumps: `paddock review --json` writes the first, the app and the tests read the second.
#include <QtTest>

#include "engine/review/change.h"

using namespace paddock::review;
using nlohmann::json;

namespace {

std::string dumped(const Change& c) { return to_json(c).dump(-1, ' ', false, json::error_handler_t::replace); }

std::string streamed(const Change& c) {
  std::string out = "x";  // appends, never replaces
  append_json(c, out);
  return out.substr(1);
}

Change file_change(std::string path) {
  Change c;
  c.path = std::move(path);
  c.root = "/home/u/project";
  c.kind = ChangeKind::kModified;
  c.before = {EntryType::kFile, 0644, 12, {}};
  c.after = {EntryType::kFile, 0755, 4096, {}};
  return c;
}

}  // namespace

class ChangeJsonTest : public QObject {
  Q_OBJECT
 private slots:
  void a_plain_modified_file_streams_as_its_value_dumps() {
    Change c = file_change("/home/u/project/src/main.cpp");
    QCOMPARE(streamed(c), dumped(c));
    c.content_changed = true;
    c.binary = true;
    QCOMPARE(streamed(c), dumped(c));
  }

  void every_kind_type_and_optional_field_streams_as_its_value_dumps() {
    for (ChangeKind k : {ChangeKind::kAdded, ChangeKind::kModified, ChangeKind::kDeleted, ChangeKind::kRenamed})
      for (EntryType before : {EntryType::kNone, EntryType::kFile, EntryType::kDir, EntryType::kSymlink, EntryType::kOther})
        for (EntryType after : {EntryType::kNone, EntryType::kFile, EntryType::kDir, EntryType::kSymlink, EntryType::kOther}) {
          Change c = file_change("/home/u/project/a");
          c.kind = k;
          c.before = {before, 0700, -1, "../t"};
          c.after = {after, 04755, std::int64_t{1} << 40, "/etc/passwd"};
          if (k == ChangeKind::kRenamed) c.renamed_from = "/home/u/project/b";
          c.git = k == ChangeKind::kAdded ? GitRole::kObject : k == ChangeKind::kDeleted ? GitRole::kMetadata : GitRole::kNone;
          c.decision = k == ChangeKind::kModified ? "applied" : "";
          c.conflict = after == EntryType::kDir ? "changed on the host since the session started" : "";
          QCOMPARE(streamed(c), dumped(c));
        }
  }

  void flags_stream_as_their_values_dump() {
    Change c = file_change("/home/u/project/.envrc");
    c.flags.push_back({"tool-executed", "direnv runs it when you enter the directory", "$PROJECT/**/.envrc", "direnv", c.path});
    c.flags.push_back({"new-executable", "a file that becomes executable", "", "a tool, hook or script", c.path});
    QCOMPARE(streamed(c), dumped(c));
  }

  void text_that_json_escapes_or_encodes_streams_as_its_value_dumps() {
    const std::vector<std::string> names = {
        "quote\"d",        "back\\slash",  "tab\there",         "new\nline",         std::string("nul\0x", 5),
        "\x7f" "del",      "caf\xc3\xa9",  "bad\xff" "utf8",    "bytes:looks-coded", "percent%41",
        "\xe2\x80\xa8sep", "\x1b[31mred",  "emoji \xf0\x9f\x90\x8e"};
    for (const auto& n : names) {
      Change c = file_change("/home/u/project/" + n);
      c.root = "/home/u/" + n;
      c.after = {EntryType::kSymlink, 0777, 0, n};
      c.renamed_from = "/home/u/project/old-" + n;
      c.kind = ChangeKind::kRenamed;
      c.conflict = "why " + n;
      c.flags.push_back({"rule " + n, "why " + n, "source " + n, "tool " + n, c.path});
      QCOMPARE(streamed(c), dumped(c));
    }
  }
};

QTEST_APPLESS_MAIN(ChangeJsonTest)
#include "change_json_test.moc"
