// The git config reader (engine/review/git_config.h): git's syntax as git reads it (sections,
// subsections old and new, quotes, escapes, continued lines, comments, bare booleans), every
// setting that makes git run a program found with the reason, settings that turn a feature off
// left out, and text that is not git config reported, never read past. The config files here are
// also checked against the real git: `git config --file F --get KEY` agrees on each value.
#include <unistd.h>

#include <QtTest>

#include <filesystem>

#include "engine/review/git_config.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_util.h"

using namespace paddock;
using namespace paddock::review;
using namespace paddock::test;

namespace {

std::vector<std::string> keys_of(const std::vector<GitCommandKey>& ks) {
  std::vector<std::string> out;
  for (const auto& k : ks) out.push_back(k.key);
  return out;
}

const GitConfigEntry* entry(const GitConfig& c, const std::string& key) {
  for (const auto& e : c.entries)
    if (e.key == key) return &e;
  return nullptr;
}

// A config that sets every kind of command key, as an agent would write it.
const char* kHostile =
    "[core]\n"
    "\trepositoryformatversion = 0\n"
    "\tFSMonitor = \"sh -c 'touch /tmp/pwned'\"  ; a comment\n"
    "\thooksPath = .githooks\n"
    "\tsshCommand = ssh -o ProxyCommand=evil\n"
    "\tpager = less -R\n"
    "\teditor = vim\n"
    "[alias]\n"
    "\tst = !sh -c 'id' \\\n"
    "  && echo more\n"
    "\tco = checkout\n"
    "[filter \"lfs\"]\n"
    "\tclean = evil-clean %f\n"
    "\tsmudge = evil-smudge %f\n"
    "[diff \"bin\"]\n"
    "\ttextconv = hexdump -C\n"
    "[credential]\n"
    "\thelper = !evil-helper\n"
    "[include]\n"
    "\tpath = ../other.cfg\n"
    "[includeIf \"gitdir:~/work/\"]\n"
    "\tpath = work.cfg\n"
    "[pager]\n"
    "\tlog = false\n"
    "\tdiff = evil-pager\n"
    "[remote \"origin\"]\n"
    "\turl = https://example.invalid/x.git\n"
    "\tuploadpack = evil-upload\n"
    "[gpg]\n"
    "\tprogram = evil-gpg\n"
    "[protocol \"ext\"]\n"
    "\tallow = always\n"
    "[submodule.lib]\n"
    "\tupdate = !evil-update\n";

}  // namespace

class GitConfigTest : public QObject {
  Q_OBJECT
 private slots:
  void every_setting_that_runs_a_program_is_found_with_its_reason() {
    const GitConfig c = parse_git_config(kHostile);
    QCOMPARE(c.problem, std::string());
    const auto keys = git_command_keys(c);
    const std::vector<std::string> want = {"core.fsmonitor",   "core.hookspath",    "core.sshcommand",   "core.pager",
                                           "core.editor",      "alias.st",          "filter.lfs.clean",  "filter.lfs.smudge",
                                           "diff.bin.textconv", "credential.helper", "include.path",      "includeif.gitdir:~/work/.path",
                                           "pager.diff",       "remote.origin.uploadpack", "gpg.program", "protocol.ext.allow",
                                           "submodule.lib.update"};
    QCOMPARE(keys_of(keys), want);
    for (const auto& k : keys) QVERIFY2(!k.why.empty(), k.key.c_str());
    QCOMPARE(keys[0].value, std::string("sh -c 'touch /tmp/pwned'"));
    QVERIFY(keys[0].why.find("git status") != std::string::npos);
    QCOMPARE(keys[5].value, std::string("!sh -c 'id'   && echo more"));
  }

  void settings_that_name_no_program_or_turn_one_off_are_left_out() {
    const GitConfig c = parse_git_config(
        "[core]\n\tfsmonitor = false\n\tpager = false\n\tbare = false\n[alias]\n\tco = checkout\n"
        "[pager]\n\tlog = off\n[protocol \"ext\"]\n\tallow = never\n[submodule \"x\"]\n\tupdate = rebase\n"
        "[credential]\n\thelper =\n");
    QCOMPARE(c.problem, std::string());
    QCOMPARE(keys_of(git_command_keys(c)), std::vector<std::string>());
  }

  void names_compare_without_case_and_subsections_with_it() {
    const GitConfig c = parse_git_config("[CORE]\nFsMonitor = x\n[Filter \"LFS\"]\nClean = y\n[remote.Origin]\nurl = u\n");
    QCOMPARE(c.problem, std::string());
    QVERIFY(entry(c, "core.fsmonitor"));
    QVERIFY(entry(c, "filter.LFS.clean"));
    QVERIFY(entry(c, "remote.origin.url"));  // the old [section.subsection] form is lowercased, as git does
  }

  void a_bare_name_is_true_and_escapes_and_quotes_read_as_git_reads_them() {
    const GitConfig c = parse_git_config("[a]\n\tflag\n\tv = \"x;y\" #c\n\tw = a\\tb\\\"c\\\\d\n\tz =   lead  \"  in \"  trail  \n");
    QCOMPARE(c.problem, std::string());
    QCOMPARE(entry(c, "a.flag")->value, std::string("true"));
    QCOMPARE(entry(c, "a.v")->value, std::string("x;y"));
    QCOMPARE(entry(c, "a.w")->value, std::string("a\tb\"c\\d"));
    QCOMPARE(entry(c, "a.z")->value, std::string("lead    in   trail"));
    QCOMPARE(entry(c, "a.w")->line, 4);
  }

  void text_that_is_not_git_config_stops_the_reading_and_says_where() {
    for (const char* bad : {"fsmonitor = x\n", "[core\nfsmonitor = x\n", "[core]\n\tfsmonitor = \"open\n", "[core]\n\t=x\n",
                            "[core]\n\tx = a\\qb\n", "[core \"unterminated]\n"}) {
      const GitConfig c = parse_git_config(bad);
      QVERIFY2(!c.problem.empty(), bad);
      QVERIFY2(c.problem.rfind("line ", 0) == 0, c.problem.c_str());
    }
    // What came before the error is still read: a caller sees the command keys up to there.
    const GitConfig c = parse_git_config("[core]\n\tfsmonitor = evil\n\tbroken line here\n");
    QVERIFY(!c.problem.empty());
    QCOMPARE(keys_of(git_command_keys(c)), std::vector<std::string>{"core.fsmonitor"});
  }

  void the_descriptions_are_short() {
    const auto keys = git_command_keys(parse_git_config(kHostile));
    QCOMPARE(describe_command_keys(keys, 2), std::string("core.fsmonitor, core.hookspath and 15 more"));
    QCOMPARE(describe_command_keys({}), std::string());
  }

  void git_itself_reads_the_same_values() {
    QVERIFY2(run_process({"/bin/sh", "-c", "command -v git"}).exit_code == 0, "git is missing: scripts/bootstrap installs it");
    const std::string dir = (std::filesystem::temp_directory_path() / ("git-config-test-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    const std::string file = dir + "/config";
    put(file, kHostile);
    const GitConfig c = parse_git_config(kHostile);
    for (const auto& e : c.entries) {
      const ProcessResult r = run_process({"git", "config", "--file", file, "--get", e.key});
      QVERIFY2(r.exit_code == 0, e.key.c_str());
      QCOMPARE(r.out, e.value + "\n");
    }
    std::filesystem::remove_all(dir);
  }
};

QTEST_GUILESS_MAIN(GitConfigTest)
#include "git_config_test.moc"
