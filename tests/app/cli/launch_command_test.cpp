// `run` resolves the launched command on the caller's PATH and grants its installation: npm's
// node_modules tree (hoisted dependencies included), nvm's node version directory, a single-file
// build as itself, and the interpreter its #! line names.
#include <sys/stat.h>

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "app/cli/launch_command.h"

using namespace paddock::cli;
namespace fs = std::filesystem;

namespace {
void script(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
  ::chmod(path.c_str(), 0755);
}
bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }
}  // namespace

class LaunchCommandTest : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  std::string root() const { return fs::canonical(tmp_.path().toStdString()).string(); }

 private slots:
  void an_npm_user_prefix_grants_its_whole_node_modules_tree_and_the_shebangs_node() {
    const std::string r = root() + "/npm";
    script(r + "/lib/node_modules/@acme/agent/cli.js", "#!/usr/bin/env node\nconsole.log(1)\n");
    fs::create_directories(r + "/bin");
    fs::create_symlink("../lib/node_modules/@acme/agent/cli.js", r + "/bin/agent");
    script(r + "/nodebin/node", "");  // a node of its own on PATH, as nvm or a tarball would put there
    auto c = resolve_launch_command("agent", "/nonexistent:" + r + "/bin:" + r + "/nodebin", "/");
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    QCOMPARE(c->found, r + "/bin/agent");
    QCOMPARE(c->executable, r + "/lib/node_modules/@acme/agent/cli.js");
    QCOMPARE(c->interpreter, r + "/nodebin/node");
    QVERIFY(has(c->grants, r + "/lib/node_modules"));
    QVERIFY(has(c->grants, r + "/nodebin/node"));
  }

  void an_nvm_install_grants_its_node_version_directory() {
    const std::string v = root() + "/nvm/versions/node/v20.1.0";
    script(v + "/lib/node_modules/agent/bin/agent.js", "#!/usr/bin/env node\n");
    script(v + "/bin/node", "");
    fs::create_symlink("../lib/node_modules/agent/bin/agent.js", v + "/bin/agent");
    auto c = resolve_launch_command("agent", v + "/bin", "/");
    QVERIFY(c.ok());
    QCOMPARE(installation_of(c->executable), v);
    QCOMPARE(c->interpreter, v + "/bin/node");
    QCOMPARE(installation_of(c->interpreter), v);
  }

  void a_single_file_build_is_granted_as_itself() {
    const std::string r = root() + "/native";
    script(r + "/share/claude/versions/2.0.0", "\x7f" "ELF");
    fs::create_directories(r + "/bin");
    fs::create_symlink(r + "/share/claude/versions/2.0.0", r + "/bin/claude");
    auto c = resolve_launch_command("claude", r + "/bin", "/");
    QVERIFY(c.ok());
    QCOMPARE(c->executable, r + "/share/claude/versions/2.0.0");
    QCOMPARE(c->grants, std::vector<std::string>{r + "/share/claude/versions/2.0.0"});
    QVERIFY(c->interpreter.empty());
  }

  void a_command_that_is_not_on_path_is_127_naming_it() {
    auto c = resolve_launch_command("no-such-agent-xyz", "/usr/bin:/bin", "/");
    QVERIFY(!c.ok());
    QCOMPARE(c.error().exit_code(), 127);
    QVERIFY2(c.error().message.find("no-such-agent-xyz") != std::string::npos, c.error().message.c_str());
    // A relative path is resolved against the caller's directory, as execvp would.
    const std::string r = root() + "/rel";
    script(r + "/tool.sh", "#!/bin/sh\n");
    auto rel = resolve_launch_command("./tool.sh", "/usr/bin", r);
    QVERIFY(rel.ok());
    QCOMPARE(rel->executable, r + "/tool.sh");
    QCOMPARE(rel->interpreter, fs::canonical("/bin/sh").string());
  }
};

QTEST_APPLESS_MAIN(LaunchCommandTest)
#include "launch_command_test.moc"
