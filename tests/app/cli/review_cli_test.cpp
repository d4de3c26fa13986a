// Review mode as a user runs it from the command line, as root and as uid 65534: `paddock run
// --review` (and the strict profile) holds the agent's writes, `paddock explain` says so,
// `paddock review` lists them with the flagged ones apart, `paddock apply` applies the safe ones
// and a flagged one only when named, `paddock discard` throws the rest away and the session
// shrinks to its records; `paddock sessions` marks a session that holds changes, and `--prune`
// keeps it while removing old records.
#include <sys/stat.h>
#include <utime.h>

#include <QtTest>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/app/cli/cli_home.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

namespace fs = std::filesystem;
using namespace paddock::test;
using nlohmann::json;

class ReviewCliTest : public QObject {
  Q_OBJECT
  CliHome h_;

  bool setup_row() {
    QFETCH(uint, uid);
    if (!h_.create(uid, "review", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"})) return false;
    fs::create_directories(h_.project + "/src");
    put(h_.project + "/src/main.txt", "hello\n");
    h_.chown_all();
    return true;
  }

  ProcessResult paddock(std::vector<std::string> args) { return h_.paddock(std::move(args)); }
  std::vector<std::string> session_ids() { return h_.session_ids(); }
  std::string new_session(const std::vector<std::string>& before) { return h_.new_session(before); }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  void explain_says_the_writes_are_held_in_review_mode_and_the_strict_profile_data() { add_uid_rows(); }
  void explain_says_the_writes_are_held_in_review_mode_and_the_strict_profile() {
    QVERIFY(setup_row());
    for (const auto& args : {std::vector<std::string>{"explain", "--json", "--review"},
                             std::vector<std::string>{"explain", "--json", "--profile", "strict"}}) {
      const ProcessResult r = paddock(args);
      QVERIFY2(r.exit_code == 0, dump(r).constData());
      const json j = json::parse(r.out);
      QVERIFY(j["ir"]["fs"]["review_roots"].size() >= 1);
      QCOMPARE(j["ir"]["fs"]["review_roots"], j["ir"]["fs"]["write_roots"]);
    }
    const json plain = json::parse(paddock({"explain", "--json"}).out);
    QVERIFY(plain["ir"]["fs"]["review_roots"].empty());
  }

  // The policy key, in a --policy file: it turns review mode on; a later layer's false does not
  // turn it off (it only narrows); a granted write root that is a file cannot be held and is
  // refused before anything starts.
  void the_policy_key_turns_review_mode_on_and_nothing_turns_it_off_data() { add_uid_rows(); }
  void the_policy_key_turns_review_mode_on_and_nothing_turns_it_off() {
    QVERIFY(setup_row());
    put(h_.root + "/review.yaml", "version: 1\nfilesystem:\n  review: true\n");
    put(h_.root + "/direct.yaml", "version: 1\nfilesystem:\n  review: false\n");
    put(h_.root + "/typo.yaml", "version: 1\nfilesystem:\n  review: maybe\n");
    put(h_.root + "/notes.txt", "a file\n");  // outside the project, whose root would hold it
    h_.chown_all();
    ProcessResult r = paddock({"explain", "--json", "--policy", h_.root + "/review.yaml", "--policy", h_.root + "/direct.yaml"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    json j = json::parse(r.out);
    QVERIFY(!j["ir"]["fs"]["review_roots"].empty());
    QCOMPARE(j["ir"]["fs"]["review_roots"], j["ir"]["fs"]["write_roots"]);
    r = paddock({"explain", "--json", "--policy", h_.root + "/typo.yaml"});
    QVERIFY2(r.exit_code != 0 && r.err.find("typo.yaml:3:") != std::string::npos, dump(r).constData());
    r = paddock({"explain", "--review", "--allow-write", h_.root + "/notes.txt"});
    QVERIFY2(r.exit_code == 125, dump(r).constData());
    QVERIFY2(r.err.find("is a file") != std::string::npos, dump(r).constData());
    r = paddock({"run", "--review", "--allow-write", h_.root + "/notes.txt", "--", "/bin/sh", "-c",
                 "echo x > " + h_.root + "/notes.txt"});
    QCOMPARE(r.exit_code, 125);
    QCOMPARE(slurp(h_.root + "/notes.txt"), std::string("a file\n"));
  }

  // Where no overlay can hold the writes (macOS and Windows here), the plan refuses review mode
  // with its reason, never falling back to direct writes.
  void review_mode_is_refused_with_its_reason_where_no_backend_can_hold_the_writes_data() { add_uid_rows(); }
  void review_mode_is_refused_with_its_reason_where_no_backend_can_hold_the_writes() {
    QVERIFY(setup_row());
    for (const std::string os : {"macos", "windows"}) {
      const ProcessResult r = paddock({"plan", "--backend", os, "--review", "--json"});
      QVERIFY2(r.exit_code == 125, dump(r).constData());
      const json j = json::parse(r.out);
      QCOMPARE(j["check"]["ok"].get<bool>(), false);
      bool named = false;
      for (const auto& line : j["plan"]["refusals"])
        named |= line.get<std::string>().find("review mode is refused on") != std::string::npos;
      QVERIFY2(named, r.out.c_str());
    }
    const ProcessResult linux_plan = paddock({"plan", "--backend", "linux", "--review", "--json"});
    const json j = json::parse(linux_plan.out);
    bool overlay = false;
    for (const auto& step : j["plan"]["steps"]) overlay |= step.dump().find("overlay") != std::string::npos;
    QVERIFY2(overlay, linux_plan.out.c_str());
  }

  void a_review_session_is_listed_applied_and_discarded_from_the_cli_data() { add_uid_rows(); }
  void a_review_session_is_listed_applied_and_discarded_from_the_cli() {
    QVERIFY(setup_row());
    ProcessResult r = paddock({"run", "--review", "--", "/bin/sh", "-c",
                               "echo changed >> src/main.txt; echo new > new.txt; echo tmp > scratch.txt; "
                               "printf 'export PATH=/evil:$PATH\\n' > .envrc"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(r.err.find("held for review") != std::string::npos);
    QCOMPARE(slurp(h_.project + "/src/main.txt"), std::string("hello\n"));
    QVERIFY(!fs::exists(h_.project + "/new.txt"));
    const std::string id = new_session({});

    r = paddock({"review", id, "--json"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    json set = json::parse(r.out);
    QCOMPARE(set["pending"].get<int>(), 4);
    QCOMPARE(set["flagged"].get<int>(), 1);
    r = paddock({"review", id});
    QVERIFY(r.out.find("tool-executed") != std::string::npos);
    QVERIFY(r.out.find(".envrc") != std::string::npos);
    r = paddock({"review", id, "--diff", "src/main.txt"});
    QVERIFY2(r.out.find("+changed") != std::string::npos, dump(r).constData());

    r = paddock({"sessions"});
    QVERIFY(r.out.find("changes held for review: paddock review " + id) != std::string::npos);

    // Discard one, apply the safe rest: the flagged .envrc stays out.
    QCOMPARE(paddock({"discard", id, "scratch.txt"}).exit_code, 0);
    r = paddock({"apply", id});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(r.out.find("flagged") != std::string::npos);
    QCOMPARE(slurp(h_.project + "/src/main.txt"), std::string("hello\nchanged\n"));
    QCOMPARE(slurp(h_.project + "/new.txt"), std::string("new\n"));
    QVERIFY(!fs::exists(h_.project + "/scratch.txt"));
    QVERIFY(!fs::exists(h_.project + "/.envrc"));
    // A path that names no change is an error, not a silent no-op.
    QCOMPARE(paddock({"apply", id, "no-such-file"}).exit_code, 2);
    // The flagged one, named: applied; nothing is left and the session keeps only its records.
    r = paddock({"apply", id, ".envrc"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(fs::exists(h_.project + "/.envrc"));
    QVERIFY(r.out.find("nothing is left to review") != std::string::npos);
    QVERIFY(!fs::exists(h_.sessions_dir() + "/" + id + "/review/0"));
    QVERIFY(fs::exists(h_.sessions_dir() + "/" + id + "/review/roots.json"));
    set = json::parse(paddock({"sessions", "--json"}).out);
    QCOMPARE(set.back()["review"].get<std::string>(), std::string("reviewed"));
  }

  void a_direct_session_has_nothing_to_review_data() { add_uid_rows(); }
  void a_direct_session_has_nothing_to_review() {
    QVERIFY(setup_row());
    QCOMPARE(paddock({"run", "--", "/bin/true"}).exit_code, 0);
    const ProcessResult r = paddock({"review", new_session({})});
    QCOMPARE(r.exit_code, 2);
    QVERIFY(r.err.find("did not run in review mode") != std::string::npos);
  }

  void prune_removes_old_records_and_keeps_held_changes_data() { add_uid_rows(); }
  void prune_removes_old_records_and_keeps_held_changes() {
    QVERIFY(setup_row());
    auto before = session_ids();
    QCOMPARE(paddock({"run", "--", "/bin/true"}).exit_code, 0);
    const std::string direct = new_session(before);
    before = session_ids();
    QCOMPARE(paddock({"run", "--review", "--", "/bin/sh", "-c", "echo x > held.txt"}).exit_code, 0);
    const std::string held = new_session(before);
    QVERIFY(!direct.empty() && !held.empty());
    // Nothing is old enough yet.
    ProcessResult r = paddock({"sessions", "--prune"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(fs::exists(h_.sessions_dir() + "/" + direct));
    // With no grace at all: the direct session goes, the one holding a change stays (ended at
    // least a second ago: the retention counts whole seconds).
    QTest::qSleep(1100);
    r = paddock({"sessions", "--prune", "--older-than", "0"});
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QVERIFY(!fs::exists(h_.sessions_dir() + "/" + direct));
    QVERIFY(fs::exists(h_.sessions_dir() + "/" + held));
    QVERIFY(r.out.find("kept 1") != std::string::npos);
    QCOMPARE(paddock({"sessions", "--older-than", "3"}).exit_code, 2);
  }
};

QTEST_GUILESS_MAIN(ReviewCliTest)
#include "review_cli_test.moc"
