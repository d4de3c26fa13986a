// Review mode against the real helper on the real kernel, as root and as uid 65534: the write
// root is an overlay, so an agent that wipes the project changes nothing on the host until the
// user applies it; an apply reproduces the session's view byte for byte (modes and symlinks too);
// what a tool on the host would run (a nested repository, a gitlink in the index) is flagged and
// never applied by "apply all"; a file the user changed meanwhile is a conflict, never
// overwritten, also between two sessions on one project; an apply killed half-way leaves every
// file old or new and the next apply finishes it; the change set is there while the agent runs,
// and a file applied meanwhile is the host's own copy (the agent's later writes stay in the
// session); an ended session's files reach the host as files of their own (no link between two,
// none of the overlay's attributes); a disk that fills ends the session with limit_hit disk_space
// and the project as it was.
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/session/event.h"
#include "engine/session/report.h"
#include "engine/session/review_record.h"
#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/skip.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string review_tool() { return build_dir() + "/tests/helpers/linux/tools/review_tool"; }
std::string resources() { return source_dir() + "/resources"; }

// Type, mode, link target and content digest of every entry below $1, sorted: what a
// byte-for-byte comparison of two trees needs. Run inside the sandbox and on the host alike.
const char* kManifest =
    "cd \"$1\" || exit 1\n"
    "find . -mindepth 1 \\( -path ./.env -o -path ./.git \\) -prune -o -printf '%y %m %p -> %l\\n' | LC_ALL=C sort\n"
    "find . -mindepth 1 \\( -path ./.env -o -path ./.git \\) -prune -o -type f -print0 | LC_ALL=C sort -z | "
    "xargs -0 -r sha256sum\n";

}  // namespace

class HelperReviewTest : public QObject {
  Q_OBJECT
  SandboxFixture f_;

  FrozenIr review_ir() {
    FrozenIr ir = base_ir(f_);
    ir.fs.review_roots = ir.fs.write_roots;
    normalize(ir);
    return ir;
  }

  // Runs the agent's script in a review-mode session; returns the session's directory.
  std::string session(const std::string& script, ProcessResult* out = nullptr, const FrozenIr* ir = nullptr) {
    const FrozenIr use = ir ? *ir : review_ir();
    HelperInvocation h = prepare_helper(f_, use, {"/bin/sh", "-c", script});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    o.timeout_ms = 60000;
    ProcessResult r = run_process(h.argv(), o);
    if (out) *out = r;
    return h.session_dir;
  }

  ProcessResult tool(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {review_tool()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions o;
    o.prefix = f_.prefix();
    o.timeout_ms = 120000;
    return run_process(argv, o);
  }

  json list(const std::string& dir, bool running = false) {
    std::vector<std::string> args = {"list", dir, resources()};
    if (running) args.push_back("--running");
    const ProcessResult r = tool(args);
    if (r.exit_code != 0) return json();
    return json::parse(r.out, nullptr, false);
  }

  json act(const std::string& verb, const std::string& dir, const std::vector<std::string>& paths = {},
           bool running = false) {
    std::vector<std::string> args = {verb, dir, resources()};
    for (const auto& p : paths) args.push_back(p);
    if (running) args.push_back("--running");
    const ProcessResult r = tool(args);
    if (r.exit_code != 0) {
      qWarning("%s", dump(r).constData());
      return json();
    }
    return json::parse(r.out, nullptr, false);
  }

  const json* change(const json& set, const std::string& path) {
    for (const auto& c : set["changes"])
      if (c["path"] == path) return &c;
    return nullptr;
  }

  std::string manifest_on_host() {
    return run_process({"/bin/sh", "-c", kManifest, "sh", f_.project}).out;
  }

 private slots:
  void cleanup() {
    remove_fixture(f_);
    f_ = {};
  }

  void the_kernel_probe_says_an_overlay_mounts_in_a_user_namespace_data() { add_uid_rows(); }
  void the_kernel_probe_says_an_overlay_mounts_in_a_user_namespace() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const json probe = json::parse(slurp(f_.probe_file));
    QCOMPARE(probe["overlay_userns_error"].get<std::string>(), std::string());
  }

  void an_agent_that_removes_the_whole_project_changes_nothing_until_applied_data() { add_uid_rows(); }
  void an_agent_that_removes_the_whole_project_changes_nothing_until_applied() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    fs::create_directories(f_.project + "/lib/deep");
    put(f_.project + "/lib/deep/x.c", "int x;\n");
    chown_tree(f_.project, f_.uid);
    const std::string before = manifest_on_host();
    ProcessResult r;
    const std::string dir = session("rm -rf ./* ./.[!.]* 2>/dev/null; ls -A; echo listed", &r);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    // Inside, the project is empty but for the masked .env (a mount point the agent cannot remove).
    QCOMPARE(r.out, std::string(".env\nlisted\n"));
    QCOMPARE(manifest_on_host(), before);
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("hello from the project\n"));
    const json set = list(dir);
    QVERIFY2(set.is_object(), "list failed");
    QVERIFY(change(set, f_.project + "/lib/deep/x.c"));
    QCOMPARE((*change(set, f_.project + "/lib/deep/x.c"))["kind"].get<std::string>(), std::string("deleted"));
    QVERIFY(!change(set, f_.project + "/.env"));  // masked: never the agent's to change
    const json out = act("apply", dir);
    QVERIFY(out.is_object());
    QVERIFY(!fs::exists(f_.project + "/lib"));
    QVERIFY(!fs::exists(f_.project + "/src/main.txt"));
    QVERIFY(fs::exists(f_.project + "/.env"));
    QVERIFY(out["freed"].get<bool>());
    QVERIFY(!fs::exists(session::review_upper(dir, 0)));
    QVERIFY(fs::exists(session::review_roots_file(dir)));
  }

  void masks_protections_and_placeholders_hold_over_the_overlay_data() { add_uid_rows(); }
  void masks_protections_and_placeholders_hold_over_the_overlay() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    fs::create_directories(f_.project + "/.git/hooks");
    put(f_.project + "/.git/config", "[core]\n");
    chown_tree(f_.project, f_.uid);
    FrozenIr ir = review_ir();
    ir.fs.deny_write = {{f_.project + "/.git/config", PathKind::kFile},
                        {f_.project + "/.git/hooks", PathKind::kDir},
                        {f_.project + "/.vscode", PathKind::kAbsentDir}};
    normalize(ir);
    ProcessResult r;
    const std::string dir = session(
        "printf 'env:%s\\n' \"$(cat .env)\"; echo x > .git/hooks/pre-commit 2>/dev/null && echo hook-written; "
        "echo y >> .git/config 2>/dev/null && echo config-written; mv .git .git-moved 2>/dev/null && echo moved; "
        "mkdir -p .vscode/x 2>/dev/null && echo vscode-made; ls -d .vscode",
        &r, &ir);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    QCOMPARE(r.out, std::string("env:\n.vscode\n"));
    // The placeholder for .vscode lives in the session's layer, not on the host, and is no change.
    QVERIFY(!fs::exists(f_.project + "/.vscode"));
    const json set = list(dir);
    QVERIFY(set.is_object());
    QCOMPARE(set["changes"].size(), std::size_t{0});
  }

  void applying_a_mixed_change_set_equals_the_merged_view_byte_for_byte_data() { add_uid_rows(); }
  void applying_a_mixed_change_set_equals_the_merged_view_byte_for_byte() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    fs::create_directories(f_.project + "/old/sub");
    put(f_.project + "/old/sub/a.txt", "old a\n");
    put(f_.project + "/old/b.txt", "old b\n");
    put(f_.project + "/tomove.txt", "move me, same bytes\n");
    put(f_.project + "/mode.txt", "mode only\n");
    fs::create_directories(f_.project + "/locked");
    chown_tree(f_.project, f_.uid);
    put(f_.tools + "/manifest.sh", kManifest);
    ProcessResult r;
    const std::string dir = session(
        "set -e; echo more >> src/main.txt; mkdir -p new/deep; printf 'x' > new/deep/f; "
        "head -c 3000 /dev/urandom > new/deep/rand.bin; printf '#!/bin/sh\\necho hi\\n' > run.sh; chmod 755 run.sh; "
        "chmod 600 mode.txt; ln -s src/main.txt rel-link; ln -s /etc/hostname abs-link; rm link-to-env; "
        "mv tomove.txt moved.txt; mkdir empty-dir; rm -rf old; mkdir old; echo fresh > old/c.txt; chmod 700 locked; "
        "rm link-to-ssh; mkdir link-to-ssh; echo dir-now > link-to-ssh/f; sh " +
            f_.tools + "/manifest.sh " + f_.project,
        &r);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const std::string inside = r.out;
    const json set = list(dir);
    QVERIFY(set.is_object());
    // The rename is found: the same bytes under a new name.
    const json* moved = change(set, f_.project + "/moved.txt");
    QVERIFY(moved);
    QCOMPARE((*moved)["kind"].get<std::string>(), std::string("renamed"));
    QCOMPARE((*moved)["renamed_from"].get<std::string>(), f_.project + "/tomove.txt");
    QVERIFY((*change(set, f_.project + "/new/deep/rand.bin"))["binary"].get<bool>());
    // Apply all: the two flagged changes stay; then each on its own.
    json out = act("apply", dir);
    QVERIFY(out.is_object());
    QVERIFY(!fs::exists(f_.project + "/run.sh"));
    QVERIFY(!fs::is_symlink(f_.project + "/abs-link"));
    out = act("apply", dir, {f_.project + "/run.sh", f_.project + "/abs-link"});
    QVERIFY(out.is_object());
    QCOMPARE(out["done"].size(), std::size_t{2});
    QVERIFY(out["freed"].get<bool>());
    QCOMPARE(manifest_on_host(), inside);
    struct stat st {};
    QVERIFY(::lstat((f_.project + "/new/deep/f").c_str(), &st) == 0);
    QCOMPARE(st.st_uid, f_.uid);  // the user's own file, as if the agent had written it there
  }

  void a_nested_repository_and_a_gitlink_are_flagged_and_not_applied_by_apply_all_data() { add_uid_rows(); }
  void a_nested_repository_and_a_gitlink_are_flagged_and_not_applied_by_apply_all() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const auto git = [&](const std::string& args) {
      RunOptions o;
      o.prefix = f_.prefix();
      o.cwd = f_.project;
      o.env_override["HOME"] = f_.home;
      return run_process({"/bin/sh", "-c", "git -c user.email=t@e.invalid -c user.name=t " + args}, o);
    };
    chown_tree(f_.project, f_.uid);
    QVERIFY(git("init -q .").exit_code == 0);
    QVERIFY(git("add src && git -c user.email=t@e.invalid -c user.name=t commit -qm one").exit_code == 0);
    const std::string index_before = slurp(f_.project + "/.git/index");
    // The attack: a repository whose config runs a program on `git status`, entered as a
    // submodule through a gitlink the agent adds to the project's own index.
    ProcessResult r;
    const std::string dir = session(
        "set -e; git init -q vendor/evil; git -C vendor/evil config core.fsmonitor 'touch /tmp/pwned'; "
        "git -c user.email=t@e.invalid -c user.name=t -C vendor/evil commit -q --allow-empty -m x; "
        "git update-index --add --cacheinfo 160000,$(git -C vendor/evil rev-parse HEAD),vendor/evil; "
        "echo ok > plain.txt",
        &r);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const json set = list(dir);
    QVERIFY(set.is_object());
    const json* index = change(set, f_.project + "/.git/index");
    QVERIFY(index);
    QCOMPARE((*index)["flags"][0]["rule"].get<std::string>(), std::string("gitlink"));
    const json* config = change(set, f_.project + "/vendor/evil/.git/config");
    QVERIFY(config);
    QCOMPARE((*config)["flags"][0]["rule"].get<std::string>(), std::string("nested-repository"));
    const json out = act("apply", dir);
    QVERIFY(out.is_object());
    QCOMPARE(slurp(f_.project + "/plain.txt"), std::string("ok\n"));
    QVERIFY(!fs::exists(f_.project + "/vendor/evil/.git"));
    QCOMPARE(slurp(f_.project + "/.git/index"), index_before);
    QVERIFY(!out["freed"].get<bool>());  // the flagged ones are still held
  }

  void a_file_changed_on_the_host_meanwhile_is_a_conflict_never_overwritten_data() { add_uid_rows(); }
  void a_file_changed_on_the_host_meanwhile_is_a_conflict_never_overwritten() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const std::string dir = session("echo agent > src/main.txt; echo new > other.txt");
    put(f_.project + "/src/main.txt", "the user's edit\n");
    const json set = list(dir);
    const json* c = change(set, f_.project + "/src/main.txt");
    QVERIFY(c);
    QVERIFY(!(*c)["conflict"].get<std::string>().empty());
    const json out = act("apply", dir);
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("the user's edit\n"));
    QCOMPARE(slurp(f_.project + "/other.txt"), std::string("new\n"));
    // Named, it is still not applied: a conflict is left to the user.
    act("apply", dir, {f_.project + "/src/main.txt"});
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("the user's edit\n"));
    QVERIFY(!out["freed"].get<bool>());
  }

  void two_sessions_on_one_project_see_each_others_applies_as_conflicts_data() { add_uid_rows(); }
  void two_sessions_on_one_project_see_each_others_applies_as_conflicts() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    const std::string a = session("echo A > src/main.txt; echo a > only-a.txt");
    const std::string b = session("echo B > src/main.txt; echo b > only-b.txt");
    act("apply", a);
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("A\n"));
    const json set = list(b);
    const json* c = change(set, f_.project + "/src/main.txt");
    QVERIFY(c && !(*c)["conflict"].get<std::string>().empty());
    act("apply", b);
    QCOMPARE(slurp(f_.project + "/src/main.txt"), std::string("A\n"));
    QCOMPARE(slurp(f_.project + "/only-b.txt"), std::string("b\n"));
  }

  void an_apply_killed_half_way_leaves_every_file_old_or_new_and_is_finished_by_the_next_data() { add_uid_rows(); }
  void an_apply_killed_half_way_leaves_every_file_old_or_new_and_is_finished_by_the_next() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    for (int i = 0; i < 40; ++i) put(f_.project + "/f" + std::to_string(i), "old " + std::to_string(i) + "\n");
    chown_tree(f_.project, f_.uid);
    const std::string dir = session("for i in $(seq 0 39); do echo new $i > f$i; done");
    const ProcessResult killed = tool({"apply", dir, resources(), "--kill-after", "15"});
    QCOMPARE(killed.exit_code, 128 + SIGKILL);
    int fresh = 0;
    for (int i = 0; i < 40; ++i) {
      const std::string text = slurp(f_.project + "/f" + std::to_string(i));
      const bool is_new = text == "new " + std::to_string(i) + "\n", is_old = text == "old " + std::to_string(i) + "\n";
      QVERIFY2(is_new || is_old, text.c_str());
      fresh += is_new ? 1 : 0;
    }
    QCOMPARE(fresh, 15);
    QVERIFY(fs::exists(session::review_journal_file(dir)));
    QVERIFY(list(dir)["interrupted_apply"].get<bool>());
    const json out = act("apply", dir);
    QVERIFY(out.is_object());
    for (int i = 0; i < 40; ++i) QCOMPARE(slurp(f_.project + "/f" + std::to_string(i)), "new " + std::to_string(i) + "\n");
    QVERIFY(!fs::exists(session::review_journal_file(dir)));
    // No temporary is left behind.
    for (const auto& e : fs::directory_iterator(f_.project))
      QVERIFY2(e.path().filename().string().find("paddock-apply") == std::string::npos, e.path().c_str());
  }

  void the_change_set_is_there_while_the_agent_runs_data() { add_uid_rows(); }
  void the_change_set_is_there_while_the_agent_runs() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    HelperInvocation h = prepare_helper(f_, review_ir(), {"/bin/sh", "-c", "echo early > early.txt; sleep 30"});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    const pid_t pid = spawn_process(h.argv(), "", o);
    QVERIFY(eventually([&] {
      const json set = list(h.session_dir, true);
      return set.is_object() && change(set, f_.project + "/early.txt") != nullptr;
    }));
    QVERIFY(!fs::exists(f_.project + "/early.txt"));
    // Applied while it runs: on the host at once.
    act("apply", h.session_dir, {}, /*running=*/true);
    QCOMPARE(slurp(f_.project + "/early.txt"), std::string("early\n"));
    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})").find("\"ok\":true") != std::string::npos, true);
    wait_exit(pid);
  }

  void a_file_applied_while_the_agent_runs_is_the_hosts_own_copy_data() { add_uid_rows(); }
  void a_file_applied_while_the_agent_runs_is_the_hosts_own_copy() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    put(f_.project + "/kept.txt", "host\n");
    chown_tree(f_.project, f_.uid);
    // The agent keeps the file open and writes to it again once the apply is done.
    const std::string go = f_.tools + "/go";
    HelperInvocation h = prepare_helper(
        f_, review_ir(),
        {"/bin/sh", "-c", "exec 3>>kept.txt; echo agent >&3; while [ ! -e " + go + " ]; do sleep 0.1; done; echo later >&3; "
                          "echo later > wrote; sleep 30"});
    RunOptions o;
    o.cwd = f_.project;
    o.env_override["HOME"] = f_.home;
    const pid_t pid = spawn_process(h.argv(), "", o);
    QVERIFY(eventually([&] {
      const json set = list(h.session_dir, true);
      return set.is_object() && change(set, f_.project + "/kept.txt") != nullptr;
    }));
    const json out = act("apply", h.session_dir, {f_.project + "/kept.txt"}, /*running=*/true);
    QVERIFY(out.is_object());
    QCOMPARE(slurp(f_.project + "/kept.txt"), std::string("host\nagent\n"));
    const std::string upper = session::review_upper(h.session_dir, 0);
    put(go, "");
    QVERIFY(eventually([&] { return fs::exists(upper + "/wrote"); }));
    QCOMPARE(slurp(f_.project + "/kept.txt"), std::string("host\nagent\n"));
    QCOMPARE(control_line(h.control_socket, R"({"cmd":"stop"})").find("\"ok\":true") != std::string::npos, true);
    wait_exit(pid);
  }

  void an_ended_sessions_files_reach_the_host_as_files_of_their_own_data() { add_uid_rows(); }
  void an_ended_sessions_files_reach_the_host_as_files_of_their_own() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    put(f_.project + "/mod.txt", "host\n");
    chown_tree(f_.project, f_.uid);
    ProcessResult r;
    const std::string dir = session("set -e; echo agent >> mod.txt; echo one > one; ln one two", &r);
    QVERIFY2(r.exit_code == 0, dump(r).constData());
    const json out = act("apply", dir);
    QVERIFY(out.is_object());
    QVERIFY(out["freed"].get<bool>());
    QCOMPARE(slurp(f_.project + "/mod.txt"), std::string("host\nagent\n"));
    QCOMPARE(slurp(f_.project + "/one"), std::string("one\n"));
    QCOMPARE(slurp(f_.project + "/two"), std::string("one\n"));
    struct stat one {}, two {}, mod {};
    QVERIFY(::lstat((f_.project + "/one").c_str(), &one) == 0 && ::lstat((f_.project + "/two").c_str(), &two) == 0 &&
            ::lstat((f_.project + "/mod.txt").c_str(), &mod) == 0);
    // Two names the agent linked are two files on the host, each with one link; the file the overlay
    // copied up keeps none of the overlay's attributes; all are the user's.
    QVERIFY(one.st_ino != two.st_ino);
    QCOMPARE(one.st_nlink, nlink_t{1});
    QCOMPARE(two.st_nlink, nlink_t{1});
    QCOMPARE(mod.st_nlink, nlink_t{1});
    for (const char* name : {"/mod.txt", "/one", "/two"}) {
      char names[1024];
      const ssize_t n = ::llistxattr((f_.project + name).c_str(), names, sizeof names);
      QVERIFY2(n == 0, (std::string(name) + ": " + std::string(names, n > 0 ? static_cast<std::size_t>(n) : 0)).c_str());
    }
    QCOMPARE(mod.st_uid, f_.uid);
    QCOMPARE(one.st_uid, f_.uid);
  }

  void a_disk_that_fills_ends_the_session_and_leaves_the_project_as_it_was_data() { add_uid_rows(); }
  void a_disk_that_fills_ends_the_session_and_leaves_the_project_as_it_was() {
    QVERIFY2(fixture_for_row(f_), "fixture/probe failed");
    if (::geteuid() != 0) PADDOCK_SKIP_USER("mounting the small file system for the session's directory needs root");
    // The session's directory on a 192 MiB file system: its reserve is 64 MiB, so an agent that
    // writes 200 MiB is stopped once fewer than 64 MiB are left.
    fs::create_directories(f_.state);
    QVERIFY(::mount("tmpfs", f_.state.c_str(), "tmpfs", 0, "size=192m,mode=0755") == 0);
    struct Unmount {
      std::string p;
      ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{f_.state};
    ::chown(f_.state.c_str(), f_.uid, f_.uid);
    const std::string before = manifest_on_host();
    ProcessResult r;
    const std::string dir = session("for i in $(seq 1 200); do head -c 1048576 /dev/zero > big$i || exit 3; sleep 0.02; done", &r);
    auto report = session::decode_report(slurp(dir + "/report.json"));
    QVERIFY2(report.ok(), dump(r).constData());
    QVERIFY2(std::find(report->limits_hit.begin(), report->limits_hit.end(), "disk_space") != report->limits_hit.end(),
             dump(r).constData());
    QVERIFY(r.err.find("held for review") != std::string::npos || r.err.find("only") != std::string::npos);
    QCOMPARE(manifest_on_host(), before);
    bool event = false;
    for (const auto& line : QString::fromStdString(slurp(dir + "/events.jsonl")).split('\n'))
      if (auto e = session::decode_event(line.toStdString()); e.ok() && e->type == session::EventType::kLimitHit &&
                                                              e->fields.value("limit", "") == "disk_space")
        event = e->fields.contains("free_bytes");
    QVERIFY(event);
  }
};

QTEST_GUILESS_MAIN(HelperReviewTest)
#include "helper_review_test.moc"
