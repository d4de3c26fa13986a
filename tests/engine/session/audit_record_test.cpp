// The direct-mode audit's records (engine/session/audit_record.h): each file's one encoder and
// decoder round-trip, a path that is not UTF-8 survives byte for byte, a name that would leave the
// audit directory is refused, and anything else in the files is an error naming the file.
#include <QtTest>

#include "engine/session/audit_record.h"
#include "tests/support/member_count.h"

using namespace paddock::session;

class AuditRecordTest : public QObject {
  Q_OBJECT
 private slots:
  void the_start_record_round_trips_with_a_path_that_is_not_utf8() {
    AuditStart s;
    s.started_ns = 1796364654201302890;
    s.project = std::string("/home/u/caf\xe9");
    s.roots = {s.project, "/home/u/.cache/x"};
    s.record = "walk";
    s.preserved = {{s.project + "/.git/index", {12, 3400, 1796364654000000000}}};
    auto back = decode_audit_start(encode_audit_start(s));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == s);
  }

  void the_audit_round_trips_sorted_by_path_and_finds_a_finding() {
    AuditRecord a;
    a.session_id = "s1";
    a.audited = "2026-12-04T09:00:00.000Z";
    a.by = "helper";
    a.method = "walk";
    a.complete = false;
    a.problems = {"the walk of /p stopped after 10 entries (its budget): what lies beyond was not audited"};
    a.entries = 10;
    a.duration_ms = 3;
    AuditFinding envrc{"/p/.envrc", FindingKind::kAdded, "file", {{"tool-executed", "direnv", "direnv runs it", "$PROJECT/**/.envrc"}},
                       0, {5, 6, 7}, "", ""};
    AuditFinding index{"/p/.git/index", FindingKind::kChanged, "file", {{"gitlink", "git", "the index gains a gitlink", ""}},
                       0, {8, 9, 10}, "preserved/0", ""};
    a.findings = {index, envrc};
    auto back = decode_audit(encode_audit(a));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->findings.size(), std::size_t{2});
    QCOMPARE(back->findings[0].path, std::string("/p/.envrc"));
    QVERIFY(back->find("/p/.git/index"));
    QCOMPARE(back->find("/p/.git/index")->previous, std::string("preserved/0"));
    QVERIFY(!back->find("/p/other"));
    QVERIFY(!back->complete);
    QCOMPARE(back->problems, a.problems);
  }

  void decisions_round_trip_the_latest_per_path_wins_and_pending_counts_the_rest() {
    AuditRecord a;
    a.findings = {{"/p/a", FindingKind::kAdded, "file", {{"tool-executed", "x", "y", ""}}, 0, {}, "", ""},
                  {"/p/b", FindingKind::kAdded, "file", {{"tool-executed", "x", "y", ""}}, 0, {}, "", ""}};
    AuditState s;
    QCOMPARE(pending_findings(a, s), std::size_t{2});
    s.set({"/p/b", AuditDecision::kKept, "", false, "t1"});
    s.set({"/p/b", AuditDecision::kQuarantined, "quarantine/0/b", false, "t2"});
    QCOMPARE(s.decisions.size(), std::size_t{1});
    QCOMPARE(pending_findings(a, s), std::size_t{1});
    auto back = decode_audit_state(encode_audit_state(s));
    QVERIFY(back.ok());
    QVERIFY(*back == s);
    QVERIFY(back->find("/p/b")->decision == AuditDecision::kQuarantined);
  }

  void the_journal_round_trips() {
    QuarantineJournal j{"/p/.git/index", "quarantine/3/index", "preserved/0", {1, 2, 3}, "2026-12-04T09:00:00.000Z"};
    auto back = decode_quarantine_journal(encode_quarantine_journal(j));
    QVERIFY(back.ok());
    QVERIFY(*back == j);
  }

  void a_name_that_leaves_the_audit_directory_is_refused() {
    for (const char* to : {"../../x", "/etc/passwd", "quarantine/../../x", "quarantine/.."}) {
      QuarantineJournal j{"/p/x", to, "", {1, 2, 3}, "t"};
      auto back = decode_quarantine_journal(encode_quarantine_journal(j));
      QVERIFY2(!back.ok(), to);
      QVERIFY(back.error().message.find("journal.json") != std::string::npos);
    }
  }

  void records_that_are_not_what_paddock_writes_are_errors_naming_the_file() {
    for (const char* bad : {"", "[]", "{\"version\":1}",
                            "{\"version\":2,\"started_ns\":1,\"project\":\"/p\",\"roots\":[],\"record\":\"walk\",\"preserved\":[]}",
                            "{\"version\":1,\"started_ns\":1,\"project\":\"/p\",\"roots\":[\"rel\"],\"record\":\"walk\",\"preserved\":[]}",
                            "{\"version\":1,\"started_ns\":1,\"project\":\"/p\",\"roots\":[],\"record\":\"guess\",\"preserved\":[]}",
                            "{\"version\":1,\"started_ns\":1,\"project\":\"/p\",\"roots\":[],\"record\":\"walk\",\"preserved\":[],\"x\":1}"}) {
      auto r = decode_audit_start(bad);
      QVERIFY2(!r.ok(), bad);
      QVERIFY(r.error().message.find("start.json") != std::string::npos);
    }
    AuditRecord a;
    a.findings = {{"/p/a", FindingKind::kAdded, "file", {{"r", "t", "w", ""}}, 0, {}, "", ""}};
    std::string bytes = encode_audit(a);
    bytes.replace(bytes.find("\"added\""), 7, "\"moved\"");
    QVERIFY(!decode_audit(bytes).ok());
    a.findings[0].flags.clear();
    auto empty_flags = decode_audit(encode_audit(a));
    QVERIFY(!empty_flags.ok());
    QVERIFY(empty_flags.error().message.find("audit.json") != std::string::npos);
  }

  void a_name_the_agent_chose_cannot_drive_the_terminal_or_forge_a_line() {
    QCOMPARE(terminal_safe("/p/\x1b]0;pwned\x07x\nforged\\"), std::string("/p/\\x1b]0;pwned\\x07x\\x0aforged\\\\"));
    QCOMPARE(terminal_safe("/p/caf\xc3\xa9"), std::string("/p/caf\xc3\xa9"));
  }
  // Declared once (engine/schema.h): a member without its line fails here, and the files keep the
  // bytes they had when they were written by hand (a session audited by an older Paddock reads).
  void every_member_has_its_line_and_the_files_keep_their_bytes() {
    QCOMPARE(paddock::test::member_count<AuditStart>(), paddock::schema::field_count<AuditStart>);
    QCOMPARE(paddock::test::member_count<AuditFinding>(), paddock::schema::field_count<AuditFinding>);
    QCOMPARE(paddock::test::member_count<AuditFlag>(), paddock::schema::field_count<AuditFlag>);
    QCOMPARE(paddock::test::member_count<AuditDecisionRecord>(), paddock::schema::field_count<AuditDecisionRecord>);
    QCOMPARE(paddock::test::member_count<QuarantineJournal>(), paddock::schema::field_count<QuarantineJournal>);
    AuditState st;
    st.set({"/p/b", AuditDecision::kKept, "", false, "2026-12-04T09:00:02Z"});
    st.set({"/p/a", AuditDecision::kQuarantined, "quarantine/0/a", true, "2026-12-04T09:00:01Z"});
    QCOMPARE(QString::fromStdString(encode_audit_state(st)),
             QString("{\n \"decisions\": [\n  {\n   \"decision\": \"quarantined\",\n   \"moved_to\": \"quarantine/0/a\",\n"
                     "   \"path\": \"/p/a\",\n   \"restored\": true,\n   \"ts\": \"2026-12-04T09:00:01Z\"\n  },\n  {\n"
                     "   \"decision\": \"kept\",\n   \"moved_to\": \"\",\n   \"path\": \"/p/b\",\n   \"restored\": false,\n"
                     "   \"ts\": \"2026-12-04T09:00:02Z\"\n  }\n ],\n \"version\": 1\n}\n"));
    const QuarantineJournal j{"/p/a", "quarantine/0/a", "preserved/1", {1, 2, 3}, "2026-12-04T09:00:03Z"};
    QCOMPARE(QString::fromStdString(encode_quarantine_journal(j)),
             QString("{\n \"path\": \"/p/a\",\n \"previous\": \"preserved/1\",\n \"stamp\": {\n  \"ctime_ns\": 3,\n"
                     "  \"ino\": 1,\n  \"size\": 2\n },\n \"started\": \"2026-12-04T09:00:03Z\",\n"
                     " \"to\": \"quarantine/0/a\",\n \"version\": 1\n}\n"));
  }
};

QTEST_GUILESS_MAIN(AuditRecordTest)
#include "audit_record_test.moc"
