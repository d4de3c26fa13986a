// Direct mode's audit as a user meets it from the command line, as root and as uid 65534: `paddock
// run` (the CLI's default, no review) of an agent that leaves a .envrc ends with the finding on
// stderr; the next `paddock run` on the same project starts with a one-line reminder, and
// `paddock sessions` lists the undecided finding; after `paddock quarantine` neither does, and the
// file is in the session's directory.
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_home.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

namespace fs = std::filesystem;
using namespace paddock::test;
using nlohmann::json;

class AuditCliTest : public QObject {
  Q_OBJECT
  CliHome h_;

  bool setup_row() {
    QFETCH(uint, uid);
    if (!h_.create(uid, "audit", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"})) return false;
    fs::create_directories(h_.project + "/src");
    put(h_.project + "/src/main.txt", "hello\n");
    h_.chown_all();
    return true;
  }

  ProcessResult paddock(std::vector<std::string> args) { return h_.paddock(std::move(args)); }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void a_finding_is_said_at_the_end_reminded_at_the_next_start_and_gone_once_quarantined_data() { add_uid_rows(); }
  void a_finding_is_said_at_the_end_reminded_at_the_next_start_and_gone_once_quarantined() {
    QVERIFY(setup_row());
    ProcessResult r = paddock({"run", "--", "/bin/sh", "-c", "echo 'echo hi' > .envrc; echo more >> src/main.txt"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const std::string id = h_.new_session({});
    QVERIFY2(r.err.find("/.envrc created during the session: direnv would run it") != std::string::npos, dump(r).constData());
    QVERIFY2(r.err.find("paddock quarantine " + id) != std::string::npos, dump(r).constData());

    r = paddock({"sessions"});
    QVERIFY2(r.out.find("1 finding for a tool on this machine to run, undecided: paddock audit " + id) != std::string::npos,
             dump(r).constData());
    const json listed = json::parse(paddock({"sessions", "--json"}).out);
    QCOMPARE(listed[0]["audit"]["pending"].get<int>(), 1);

    // The next session on the project starts with the reminder, before the agent runs.
    r = paddock({"run", "--", "/bin/true"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const std::string reminder = "session " + id + " left 1 finding in this project for a tool on this machine to run, "
                                 "undecided: paddock audit " + id;
    QVERIFY2(r.err.find(reminder) != std::string::npos, dump(r).constData());

    r = paddock({"audit", id});
    QVERIFY2(r.exit_code == 0 && r.out.find("! A .envrc") != std::string::npos, dump(r).constData());
    r = paddock({"quarantine", id});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(!fs::exists(h_.project + "/.envrc"));
    QCOMPARE(slurp(h_.project + "/src/main.txt"), std::string("hello\nmore\n"));  // no finding: untouched
    const json a = json::parse(paddock({"audit", id, "--json"}).out);
    QCOMPARE(slurp(h_.sessions_dir() + "/" + id + "/audit/" + a["findings"][0]["moved_to"].get<std::string>()),
             std::string("echo hi\n"));
    r = paddock({"run", "--", "/bin/true"});
    QVERIFY2(r.err.find("undecided") == std::string::npos, dump(r).constData());
    QVERIFY(paddock({"sessions"}).out.find("undecided") == std::string::npos);
  }
};

QTEST_GUILESS_MAIN(AuditCliTest)
#include "audit_cli_test.moc"
