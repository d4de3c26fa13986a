// The mount view against an agent that fights it: protected paths and masks cannot be renamed
// away, raced by a second session, or replaced between the policy walk and the mounts; absent
// protected paths stay absent. The real paddock-helper on the real kernel, as root and as uid
// 65534. Every case failed before the view pinned and resolved its targets race-free.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <atomic>
#include <filesystem>
#include <thread>

#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;

class HelperViewTest : public QObject {
  Q_OBJECT

 private:
  SandboxFixture fixture_;

  // A git repository in the project as git leaves it, owned by the row's uid.
  void make_git_dir() {
    const std::string g = fixture_.project + "/.git";
    fs::create_directories(g + "/hooks");
    fs::create_directories(g + "/objects");
    fs::create_directories(g + "/refs/heads");
    put(g + "/HEAD", "ref: refs/heads/main\n");
    put(g + "/config", "[core]\n\trepositoryformatversion = 0\n");
    put(g + "/hooks/pre-commit.sample", "#!/bin/sh\n");
    chown_tree(g, fixture_.uid);
  }

  FrozenIr git_ir() {
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny_write = {{fixture_.project + "/.git/hooks", PathKind::kDir},
                        {fixture_.project + "/.git/config", PathKind::kFile}};
    normalize(ir);
    return ir;
  }

 private slots:
  void cleanup() {
    remove_fixture(fixture_);
    fixture_ = {};
  }

  void git_metadata_cannot_be_renamed_away_and_replaced_data() { add_uid_rows(); }
  void git_metadata_cannot_be_renamed_away_and_replaced() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    make_git_dir();
    const std::string p = fixture_.project;
    // The attack: move the real .git aside (its read-only binds go with it), plant a fresh one
    // whose config the user's next `git status` on the host would run.
    auto r = run_sh(fixture_, git_ir(), "cd " + p + "; mv .git .git-moved && echo moved; mkdir -p .git/hooks; "
                           "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > .git/config && echo planted; "
                           "mv .git/hooks .git/hooks-moved && echo hooks-moved; "
                           "echo evil > .git/hooks/post-checkout && echo hook; true");
    QCOMPARE(r.exit_code, 0);
    QVERIFY2(r.out.find("moved") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("planted") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("hook") == std::string::npos, dump(r));
    QVERIFY(!fs::exists(p + "/.git-moved"));
    QVERIFY(!fs::exists(p + "/.git/hooks-moved"));
    QVERIFY(!fs::exists(p + "/.git/hooks/post-checkout"));
    QCOMPARE(slurp(p + "/.git/config"), std::string("[core]\n\trepositoryformatversion = 0\n"));
    // git itself still works where it writes (objects, refs, the index).
    auto w = run_sh(fixture_, git_ir(), "cd " + p + "; echo x > .git/objects/probe && mkdir .git/refs/heads/topic && echo ok");
    QVERIFY2(w.out.find("ok") != std::string::npos, dump(w));
  }

  void a_masked_files_directory_cannot_be_renamed_away_data() { add_uid_rows(); }
  void a_masked_files_directory_cannot_be_renamed_away() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string p = fixture_.project;
    fs::create_directories(p + "/sub");
    put(p + "/sub/.env", "SECRET-SUB\n");
    chown_tree(p + "/sub", fixture_.uid);
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny.push_back({p + "/sub/.env", PathKind::kFile});
    normalize(ir);
    auto r = run_sh(fixture_, ir, "cd " + p + "; mv sub sub2 && echo moved; rmdir sub 2>/dev/null; cat sub/.env sub2/.env; true");
    QVERIFY2(r.out.find("moved") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY(fs::exists(p + "/sub/.env"));
  }

  void a_second_session_cannot_carry_a_secret_away_from_under_a_launching_ones_mask_data() { add_uid_rows(); }
  void a_second_session_cannot_carry_a_secret_away_from_under_a_launching_ones_mask() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string p = fixture_.project;
    fs::create_directories(p + "/sub");
    put(p + "/sub/.env", "SECRET-SUB\n");
    chown_tree(p + "/sub", fixture_.uid);
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny.push_back({p + "/sub/.env", PathKind::kFile});
    normalize(ir);
    // Session A, the attacker: for 6 s, moves the secret's directory aside and leaves a decoy
    // of the same name and kind in its place, then puts it back, over and over.
    std::atomic<bool> done{false};
    ProcessResult attacker;
    std::thread a([&] {
      attacker = run_sh(fixture_, ir, "cd " + p + "; end=$(($(date +%s) + 6)); n=0; "
                        "while [ $(date +%s) -lt $end ]; do "
                        "  if mv sub hidden 2>/dev/null; then n=$((n+1)); mkdir sub; : > sub/.env; "
                        "    rm -f sub/.env; rmdir sub; mv hidden sub; fi; "
                        "done; echo moves=$n");
      done = true;
    });
    // Session B launches again and again meanwhile, reading both names.
    int launches = 0;
    std::string leaked;
    while (!done && launches < 60) {
      auto b = run_sh(fixture_, ir, "cat " + p + "/sub/.env " + p + "/hidden/.env 2>/dev/null; true");
      ++launches;
      if (b.out.find("SECRET") != std::string::npos) leaked = b.out;
    }
    a.join();
    QVERIFY2(leaked.empty(), ("launch " + std::to_string(launches) + " read the secret:\n" + leaked).c_str());
    QVERIFY2(attacker.out.find("moves=0") != std::string::npos, dump(attacker));
    QVERIFY(launches > 3);
  }

  void a_deny_target_that_changed_since_the_policy_walk_fails_the_session_data() { add_uid_rows(); }
  void a_deny_target_that_changed_since_the_policy_walk_fails_the_session() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string p = fixture_.project;
    // The IR recorded a file; a directory stands there now.
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny.push_back({p + "/creds", PathKind::kFile});
    normalize(ir);
    fs::create_directories(p + "/creds");
    put(p + "/creds/token", "SECRET-TOKEN\n");
    chown_tree(p + "/creds", fixture_.uid);
    auto r = run_sh(fixture_, ir, "cat " + p + "/creds/token; echo ran");
    QCOMPARE(r.exit_code, 125);
    QVERIFY2(r.out.find("ran") == std::string::npos, dump(r));
    QVERIFY2(r.err.find(p + "/creds") != std::string::npos && r.err.find("directory") != std::string::npos, dump(r));
    // A recorded file that is gone.
    FrozenIr gone = base_ir(fixture_);
    gone.fs.deny.push_back({p + "/vanished.env", PathKind::kFile});
    normalize(gone);
    auto g = run_sh(fixture_, gone, "echo ran");
    QCOMPARE(g.exit_code, 125);
    QVERIFY2(g.err.find(p + "/vanished.env") != std::string::npos, dump(g));
    // A parent replaced by a symlink that would carry the mask elsewhere.
    fs::create_directories(fixture_.outside + "/real");
    put(fixture_.outside + "/real/.env", "SECRET-ELSEWHERE\n");
    fs::create_symlink(fixture_.outside + "/real", p + "/linked");
    FrozenIr sym = base_ir(fixture_);
    sym.fs.deny.push_back({p + "/linked/.env", PathKind::kFile});
    normalize(sym);
    auto s = run_sh(fixture_, sym, "echo ran");
    QCOMPARE(s.exit_code, 125);
    QVERIFY2(s.err.find("symlink") != std::string::npos, dump(s));
    // A denied path that was absent and appeared.
    FrozenIr appeared = base_ir(fixture_);
    appeared.fs.deny.push_back({p + "/late.env", PathKind::kAbsent});
    normalize(appeared);
    put(p + "/late.env", "SECRET-LATE\n");
    auto l = run_sh(fixture_, appeared, "cat " + p + "/late.env; echo ran");
    QCOMPARE(l.exit_code, 125);
    QVERIFY2(l.out.find("SECRET") == std::string::npos, dump(l));
  }

  void an_absent_protected_path_is_kept_absent_and_its_placeholder_removed_data() { add_uid_rows(); }
  void an_absent_protected_path_is_kept_absent_and_its_placeholder_removed() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    make_git_dir();
    fs::remove_all(fixture_.project + "/.git/hooks");
    const std::string p = fixture_.project;
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny_write = {{p + "/.paddock", PathKind::kAbsentDir},
                        {p + "/.mcp.json", PathKind::kAbsent},
                        {p + "/.vscode/tasks.json", PathKind::kAbsent},
                        {p + "/.deep/a/b/c/d/settings.json", PathKind::kAbsent},
                        {p + "/.git/hooks", PathKind::kAbsentDir},
                        {p + "/.git/config", PathKind::kFile}};
    normalize(ir);
    auto r = run_sh(fixture_, ir, "cd " + p + "; mkdir -p .paddock && echo made-paddock; echo x > .paddock/policy.yaml && echo wrote-policy; "
                    "echo '{}' > .mcp.json && echo wrote-mcp; mkdir -p .vscode && echo x > .vscode/tasks.json && echo wrote-tasks; "
                    "echo hook > .git/hooks/pre-commit && echo wrote-hook; rm -rf .paddock .mcp.json .vscode .git/hooks; "
                    "ls -a; true");
    QCOMPARE(r.exit_code, 0);
    for (const char* word : {"wrote-policy", "wrote-mcp", "wrote-tasks", "wrote-hook"})
      QVERIFY2(r.out.find(word) == std::string::npos, dump(r));
    // Nothing is left on the host once the session is over, however deep the placeholders nest.
    for (const char* name : {"/.paddock", "/.mcp.json", "/.vscode", "/.deep", "/.git/hooks"})
      QVERIFY2(!fs::exists(p + name), (p + name).c_str());
    QVERIFY(fs::is_directory(p + "/.git"));
  }

  // A root caller's agent is uid 0 in its namespace: it must not read what only root may read
  // (here a 0600 file in a read root, and /etc's shadow files), which nothing masks by name.
  void root_only_files_in_the_read_roots_stay_closed_even_to_a_root_caller_data() { add_uid_rows(); }
  void root_only_files_in_the_read_roots_stay_closed_even_to_a_root_caller() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string secret = fixture_.outside + "/root-only.key";
    put(secret, "SECRET-ROOT-ONLY\n");
    QVERIFY(::chown(secret.c_str(), 0, 0) == 0 && ::chmod(secret.c_str(), 0600) == 0);
    std::string script = "cat " + secret + " /etc/gshadow /etc/shadow- 2>/dev/null; cat " + fixture_.outside +
                         "/readme.txt; ls -d /etc/ssl/private/* 2>/dev/null; echo done";
    auto r = run_sh(fixture_, base_ir(fixture_), script);
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("root:") == std::string::npos, dump(r));  // no shadow line
    QVERIFY2(r.out.find("outside but readable") != std::string::npos, dump(r));
    // What the agent writes stays the caller's: the project is not idmapped.
    auto w = run_sh(fixture_, base_ir(fixture_), "echo mine > " + fixture_.project + "/mine.txt && echo wrote");
    QVERIFY2(w.out.find("wrote") != std::string::npos, dump(w));
    struct stat st {};
    QVERIFY(::stat((fixture_.project + "/mine.txt").c_str(), &st) == 0);
    QCOMPARE(st.st_uid, static_cast<uid_t>(fixture_.uid));
  }

  void a_placeholder_in_use_by_another_session_is_kept_until_the_last_one_ends_data() { add_uid_rows(); }
  void a_placeholder_in_use_by_another_session_is_kept_until_the_last_one_ends() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string p = fixture_.project;
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny_write = {{p + "/.vscode", PathKind::kAbsentDir}};
    normalize(ir);
    // A long session holds the placeholder; a short one on the same project ends meanwhile.
    ProcessResult longer;
    std::thread a([&] { longer = run_sh(fixture_, ir, "sleep 2; mkdir .vscode/x && echo made; true"); });
    QVERIFY(eventually([&] { return fs::exists(p + "/.vscode"); }, 10));
    FrozenIr present = base_ir(fixture_);
    // It makes a placeholder of its own, so it holds the registry and sweeps when it ends.
    present.fs.deny_write = {{p + "/.vscode", PathKind::kDir}, {p + "/.idea", PathKind::kAbsentDir}};
    normalize(present);
    auto shorter = run_sh(fixture_, present, "true");
    QCOMPARE(shorter.exit_code, 0);
    QVERIFY2(fs::exists(p + "/.vscode"), "the short session removed a placeholder the long one still uses");
    // Its own goes with it: no other session relies on that one.
    QVERIFY2(!fs::exists(p + "/.idea"), "a placeholder no running session uses outlived its session");
    a.join();
    QVERIFY2(longer.out.find("made") == std::string::npos, dump(longer));
    QVERIFY(!fs::exists(p + "/.vscode"));
  }

  // A nested repository whose .git the user made read-only (0555) still gets placeholders for its
  // absent config and hooks (the sandbox's uid 0 may create there); they go with the session, and
  // the directory's mode is what it was.
  void placeholders_in_a_read_only_git_dir_are_removed_and_its_mode_kept_data() { add_uid_rows(); }
  void placeholders_in_a_read_only_git_dir_are_removed_and_its_mode_kept() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string g = fixture_.project + "/nested/.git";
    fs::create_directories(g + "/objects");
    put(g + "/HEAD", "ref: refs/heads/main\n");
    chown_tree(fixture_.project + "/nested", fixture_.uid);
    QVERIFY(::chmod(g.c_str(), 0555) == 0);
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny_write = {{g + "/config", PathKind::kAbsent}, {g + "/hooks", PathKind::kAbsentDir}};
    normalize(ir);
    auto r = run_sh(fixture_, ir, "ls -a " + g + "; echo x > " + g + "/config && echo wrote; true");
    QVERIFY2(r.exit_code == 0 && r.out.find("hooks") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("wrote") == std::string::npos, dump(r));
    QVERIFY2(!fs::exists(g + "/config") && !fs::exists(g + "/hooks"), "a placeholder stayed in the read-only .git");
    struct stat st {};
    QVERIFY(::stat(g.c_str(), &st) == 0);
    QCOMPARE(st.st_mode & 07777, static_cast<mode_t>(0555));
    QVERIFY2(r.err.find("placeholder") == std::string::npos, dump(r));
  }

  // A placeholder that something filled while the session ran (here the user's own `git init`
  // on the host, in the empty .git kept for a project without a repository) is not Paddock's to
  // remove and never left silently: the session's record and its stderr name it.
  void a_placeholder_filled_during_the_session_is_kept_and_reported_data() { add_uid_rows(); }
  void a_placeholder_filled_during_the_session_is_kept_and_reported() {
    QVERIFY2(fixture_for_row(fixture_), "fixture/probe failed");
    const std::string p = fixture_.project;
    FrozenIr ir = base_ir(fixture_);
    ir.fs.deny_write = {{p + "/.git", PathKind::kAbsentDir}};
    normalize(ir);
    ProcessResult r;
    std::thread a([&] { r = run_sh(fixture_, ir, "sleep 2; true"); });
    QVERIFY(eventually([&] { return fs::exists(p + "/.git"); }, 20));
    put(p + "/.git/HEAD", "ref: refs/heads/main\n");
    a.join();
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(fs::exists(p + "/.git/HEAD"), "something the user wrote was removed");
    QVERIFY2(r.err.find(p + "/.git") != std::string::npos && r.err.find("repository") != std::string::npos, dump(r));
    bool noticed = false;
    for (const auto& e : fs::directory_iterator(fixture_.state))
      if (fs::exists(e.path() / "events.jsonl") && slurp((e.path() / "events.jsonl").string()).find("placeholder") != std::string::npos)
        noticed = true;
    QVERIFY2(noticed, "no session record names the kept placeholder");
  }
};

QTEST_GUILESS_MAIN(HelperViewTest)
#include "helper_view_test.moc"
