// The direct-mode audit's platform side (platform/audit): the walk finds exactly what changed since
// the session's start, wherever it is and behind no symlink; a walk over its budget or too deep
// says what it did not look at instead of skipping it; the audit of a project larger than its
// budget is recorded as incomplete with the reason; the preserver keeps the content of a file
// that is replaced during the session and says when one written in place is gone; the
// pending-findings marker names the project until every finding is decided; a session whose
// audit lock is held is left to its holder.
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "engine/session/audit_record.h"
#include "platform/audit/audit.h"
#include "platform/audit/audit_walk.h"
#include "platform/audit/preserve.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::platform;
using namespace paddock::test;
namespace fs = std::filesystem;

namespace {

std::int64_t now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// A ctime strictly after `since`: the coarse clock has moved on.
void wait_past(std::int64_t since) {
  while (now_ns() <= since) ::usleep(1000);
}

std::vector<std::string> paths_of(const AuditWalkResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.changed) out.push_back(e.path);
  return out;
}

FrozenIr ir_for(const std::string& project) {
  FrozenIr ir;
  ir.meta.project = project;
  ir.meta.home = fs::path(project).parent_path().string();
  ir.meta.os = "linux";
  ir.fs.write_roots = {project};
  normalize(ir);
  return ir;
}

}  // namespace

class AuditPlatformTest : public QObject {
  Q_OBJECT
  std::string root_;

 private slots:
  void init() {
    char tmpl[] = "/tmp/paddock-audit-XXXXXX";
    QVERIFY(::mkdtemp(tmpl));
    root_ = tmpl;
  }
  void cleanup() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  void the_walk_finds_exactly_what_changed_since_the_start() {
    const std::string p = root_ + "/proj";
    fs::create_directories(p + "/old/deep");
    put(p + "/old/deep/a", "a");
    put(p + "/old/b", "b");
    fs::create_symlink("/etc", p + "/link");
    // What was written before the start has an older ctime, and what is written after it a newer
    // one. A file's ctime can be ahead of CLOCK_REALTIME_COARSE (the kernel hands out fine-grained
    // stamps to files whose times were looked at): the start waits past the newest old ctime.
    std::int64_t newest = now_ns();
    for (const std::string& old : {p, p + "/old", p + "/old/deep", p + "/old/deep/a", p + "/old/b", p + "/link"}) {
      struct stat st {};
      QVERIFY(::lstat(old.c_str(), &st) == 0);
      newest = std::max<std::int64_t>(newest, static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec);
    }
    wait_past(newest);
    const std::int64_t start = now_ns();
    wait_past(start);
    put(p + "/old/deep/new", "n");
    fs::create_directories(p + "/made/inner");
    put(p + "/made/inner/x", "x");
    fs::rename(p + "/old/b", p + "/old/b2");  // a rename changes the ctime of what moved
    AuditWalkOptions o;
    o.since_ns = start;
    const AuditWalkResult r = walk_changed({p}, o);
    QVERIFY2(r.complete(), r.problems.empty() ? "" : r.problems.front().c_str());
    const std::vector<std::string> want = {p, p + "/made", p + "/made/inner", p + "/made/inner/x", p + "/old",
                                           p + "/old/b2", p + "/old/deep", p + "/old/deep/new"};
    QCOMPARE(paths_of(r), want);
  }

  void a_walk_over_its_budget_or_too_deep_says_what_it_did_not_look_at() {
    const std::string p = root_ + "/proj";
    fs::create_directories(p + "/a/b/c/d");
    for (int i = 0; i < 300; ++i) put(p + "/f" + std::to_string(i), "");
    AuditWalkOptions o;
    o.since_ns = INT64_MIN;
    o.budget = 100;
    AuditWalkResult r = walk_changed({p}, o);
    QVERIFY(!r.complete());
    QVERIFY2(r.problems.front().find("stopped after 100 entries (its budget)") != std::string::npos, r.problems.front().c_str());
    o.budget = kGlobWalkBudget;
    o.depth = 2;
    r = walk_changed({p}, o);
    QVERIFY(!r.complete());
    QVERIFY2(r.problems.front().find("deeper than 2 levels") != std::string::npos, r.problems.front().c_str());
  }

  void an_audit_of_a_project_larger_than_its_budget_is_recorded_as_not_complete() {
    const std::string p = root_ + "/proj";
    fs::create_directories(p);
    const std::int64_t start = now_ns();
    wait_past(start);
    for (int i = 0; i < 3000; ++i) put(p + "/f" + std::to_string(i), "");
    put(p + "/.envrc", "x");
    AuditInputs in;
    in.session_id = "s";
    in.session_dir = root_ + "/session";
    in.ir = ir_for(p);
    in.start.started_ns = start;
    in.start.project = p;
    in.start.roots = {p};
    in.start.record = "walk";
    in.resources_dir = source_dir() + "/resources";
    in.by = "test";
    in.budget = 1000;
    auto a = audit_session(in);
    QVERIFY2(a.ok(), a.ok() ? "" : a.error().message.c_str());
    QVERIFY(!a->complete);
    QCOMPARE(a->problems.size(), std::size_t{1});
    QVERIFY(a->problems[0].find("not audited") != std::string::npos);
    // Within its budget the same project is audited whole.
    in.budget = kGlobWalkBudget;
    a = audit_session(in);
    QVERIFY(a.ok());
    QVERIFY(a->complete);
    QCOMPARE(a->entries, std::int64_t{3002});
    QCOMPARE(a->findings.size(), std::size_t{1});
    QCOMPARE(a->findings[0].path, p + "/.envrc");
  }

  void the_preserver_keeps_what_a_file_held_at_the_start_however_it_is_changed_and_says_when_it_did_not() {
    const std::string p = root_ + "/proj";
    fs::create_directories(p);
    const std::string big(std::size_t{3} << 20, 'b');
    put(p + "/in-place", "in place before");
    put(p + "/replaced", "replaced before");
    put(p + "/unchanged", "same");
    put(p + "/big", big);
    Preserver pr = Preserver::open({p + "/in-place", p + "/replaced", p + "/unchanged", p + "/big", p + "/absent"},
                                   /*file_max=*/std::size_t{1} << 20);
    QCOMPARE(pr.stamps().size(), std::size_t{4});
    wait_past(now_ns());
    put(p + "/in-place", "in place after");  // truncated and rewritten, same inode
    put(p + "/replaced.tmp", "new");          // git's way: a new file renamed over the old
    fs::rename(p + "/replaced.tmp", p + "/replaced");
    put(p + "/big", "overwritten");
    const std::string session = root_ + "/session";
    const auto out = pr.save_changed(session);
    QCOMPARE(out.size(), std::size_t{3});  // the unchanged file is not in it
    QCOMPARE(slurp(session + "/audit/" + out.at(p + "/in-place").name), std::string("in place before"));
    QCOMPARE(slurp(session + "/audit/" + out.at(p + "/replaced").name), std::string("replaced before"));
    QVERIFY(out.at(p + "/big").name.empty());
    QVERIFY(out.at(p + "/big").note.find("was not kept") != std::string::npos);
  }

  // The helper holds the audit lock from before its control socket closes until its audit is
  // written: a front end that finds the session without its helper then leaves the audit to it,
  // and audits it itself once nobody holds the lock (the helper died).
  void a_session_whose_audit_lock_is_held_is_not_audited_by_a_front_end_until_it_is_let_go() {
    session::Layout layout;
    layout.home = root_;
    layout.state_dir = root_ + "/state";
    layout.runtime_dir = root_ + "/run";
    const std::string id = "s-finishing";
    const std::string dir = layout.session_dir(id);
    fs::create_directories(dir + "/audit");
    session::AuditStart start;
    start.project = root_ + "/proj";
    start.roots = {start.project};
    start.record = "walk";
    put(session::audit_start_file(dir), session::encode_audit_start(start));
    {
      UniqueFd held = try_lock_audit(dir);
      QVERIFY(held.valid());
      QVERIFY(!try_lock_audit(dir).valid());
      auto r = audit_if_abandoned(layout, id, build_data(), "a front end");
      QVERIFY(r.ok());
      QVERIFY(!*r);
      QVERIFY(!fs::exists(session::audit_file(dir)));
    }
    auto r = audit_if_abandoned(layout, id, build_data(), "a front end");
    QVERIFY(r.ok());
    QVERIFY(*r);
    const LoadedAudit a = load_audit(dir);
    QVERIFY(a.record);
    QCOMPARE(a.record->by, std::string("a front end"));
    QVERIFY(!a.record->complete);  // it has no ir.json: said, not guessed
  }

  void the_pending_marker_names_the_project_until_every_finding_is_decided() {
    session::Layout layout;
    layout.home = root_;
    layout.state_dir = root_ + "/state";
    const std::string id = "s1";
    const std::string dir = layout.session_dir(id);
    fs::create_directories(dir + "/audit");
    session::AuditStart start;
    start.project = "/home/u/proj";
    start.roots = {start.project};
    start.record = "walk";
    put(session::audit_start_file(dir), session::encode_audit_start(start));
    session::AuditRecord a;
    a.session_id = id;
    a.findings = {{"/home/u/proj/.envrc", session::FindingKind::kAdded, "file", {{"tool-executed", "direnv", "w", ""}}, 0, {}, "", ""}};
    QVERIFY(write_audit(layout, dir, a, start.project).ok());
    auto pending = pending_audits_of(layout, "/home/u/proj");
    QCOMPARE(pending.size(), std::size_t{1});
    QCOMPARE(pending[0].session_id, id);
    QCOMPARE(pending[0].pending, std::size_t{1});
    QVERIFY(pending_audits_of(layout, "/home/u/other").empty());
    session::AuditState s;
    s.set({"/home/u/proj/.envrc", session::AuditDecision::kKept, "", false, "t"});
    put(session::audit_state_file(dir), session::encode_audit_state(s));
    QVERIFY(refresh_pending_marker(layout, dir, id).ok());
    QVERIFY(pending_audits_of(layout, "/home/u/proj").empty());
    QVERIFY(!fs::exists(layout.audit_pending_dir() + "/" + id));
  }
};

QTEST_GUILESS_MAIN(AuditPlatformTest)
#include "audit_test.moc"
