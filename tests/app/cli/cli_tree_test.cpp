// `paddock run` registers only the run subcommand (CliTree::kForArgs) to start faster; every
// command line that starts with `run` must parse, print and exit exactly as with the whole tree.
#include <QtTest>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/commands.h"

using namespace paddock::cli;

namespace {

struct Outcome {
  int code = 0;
  std::string out, err;
};

// In process, with an empty environment: any run that gets past parsing stops at "HOME is not
// set" (exit 2) long before a helper could be started, so the battery can include command lines
// that a sibling subcommand could have claimed.
Outcome invoke(std::vector<std::string> args, CliTree tree) {
  args.insert(args.begin(), "paddock");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  CliContext ctx;
  ctx.exe_dir = "/nonexistent-paddock-prefix/bin";
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  Outcome o;
  o.code = run_cli(static_cast<int>(args.size()), argv.data(), ctx, tree);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

}  // namespace

class CliTreeTest : public QObject {
  Q_OBJECT
 private slots:
  void run_command_lines_behave_the_same_with_only_run_registered() {
    const std::vector<std::vector<std::string>> battery = {
        {"run"},
        {"run", "--help"},
        {"run", "-h"},
        {"run", "--help-all"},
        {"run", "--version"},
        {"run", "--bogus", "--", "/bin/true"},
        {"run", "--profile"},
        {"run", "--net", "nope", "--", "/bin/true"},
        {"run", "--timeout", "zz", "--", "/bin/true"},
        {"run", "--", "/bin/true"},
        {"run", "/bin/echo", "sessions"},
        {"run", "sessions"},
        {"run", "x", "verify", "--session", "y"},
        {"run", "--", "stop", "1"},
        {"run", "doctor"},
        {"run", "--allow-domain", "a.example", "--", "plan"},
        {"run", "--allow-tainted", "--agent", "codex", "explain"},
    };
    int helps = 0;
    for (const auto& args : battery) {
      const Outcome whole = invoke(args, CliTree::kWhole);
      const Outcome only_run = invoke(args, CliTree::kForArgs);
      std::string line;
      for (const auto& a : args) line += " " + a;
      QVERIFY2(whole.code == only_run.code, (line + ": exit " + std::to_string(whole.code) + " vs " +
                                             std::to_string(only_run.code)).c_str());
      QVERIFY2(whole.out == only_run.out, (line + ": stdout differs:\n" + whole.out + "\nvs\n" + only_run.out).c_str());
      QVERIFY2(whole.err == only_run.err, (line + ": stderr differs:\n" + whole.err + "\nvs\n" + only_run.err).c_str());
      helps += whole.out.find("--allow-tainted") != std::string::npos;
    }
    // The battery reaches the help text and the run callback, not only parse errors.
    QVERIFY(helps >= 2);
    QCOMPARE(invoke({"run", "--", "/bin/true"}, CliTree::kForArgs).err,
             std::string("paddock: HOME is not set to an absolute path; Paddock resolves ~, $HOME and its own "
                         "directories from it\n"));
  }

  // A repeatable option of run takes one value per occurrence: none swallows the "--" that starts
  // the agent's command line, or the command's own options after it (the parse then reaches the
  // run callback, which here stops at the unset HOME).
  void no_repeatable_run_option_swallows_the_agents_command_line() {
    const std::vector<std::pair<std::string, std::string>> options = {
        {"--policy", "/x.yaml"},       {"--allow-domain", "a.example"}, {"--allow-read", "/x"},
        {"--allow-write", "/x"},       {"--publish", "1455"}};
    for (const auto& [opt, value] : options) {
      for (const std::vector<std::string>& args :
           {std::vector<std::string>{"run", opt, value, "--", "sh", "-c", "exit 3"},
            std::vector<std::string>{"run", opt, value, opt, value, "--", "sh", "-c", "exit 3"}}) {
        const Outcome o = invoke(args, CliTree::kForArgs);
        QVERIFY2(o.err.find("HOME is not set") != std::string::npos, (opt + ": " + o.err).c_str());
      }
    }
  }

  void other_commands_still_see_the_whole_tree() {
    const Outcome help = invoke({"--help"}, CliTree::kForArgs);
    QCOMPARE(help.code, 0);
    for (const char* cmd : {"doctor", "explain", "plan", "run", "sessions", "verify"})
      QVERIFY2(help.out.find(cmd) != std::string::npos, cmd);
    QCOMPARE(invoke({"sessions", "--bogus"}, CliTree::kForArgs).code, 2);
  }
};

QTEST_APPLESS_MAIN(CliTreeTest)
#include "cli_tree_test.moc"
