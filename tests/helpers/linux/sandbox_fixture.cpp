#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <QtTest>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "engine/plan.h"

namespace paddock::test {
namespace fs = std::filesystem;

std::string uid_label(uid_t uid) { return uid == 0 ? "root" : "uid" + std::to_string(uid); }

std::vector<std::string> SandboxFixture::prefix() const { return as_uid(uid); }

SandboxFixture make_fixture(uid_t uid) {
  SandboxFixture f;
  f.uid = uid;
  char tmpl[] = "/tmp/paddock-hs-XXXXXX";
  if (!::mkdtemp(tmpl)) return f;
  f.root = tmpl;
  ::chmod(f.root.c_str(), 0755);
  f.home = f.root + "/home";
  f.project = f.home + "/proj";
  f.outside = f.root + "/outside";
  f.tools = f.root + "/tools";
  f.state = f.root + "/state";
  for (const auto& d : {f.home, f.home + "/.ssh", f.home + "/.aws", f.project, f.project + "/src",
                        f.outside, f.tools, f.state})
    fs::create_directories(d);
  // Paddock's own directories exist before a policy is resolved, as `paddock run` makes them.
  for (const auto& d : {f.home + "/.config/paddock", f.home + "/.local/state/paddock"}) {
    fs::create_directories(d);
    ::chmod(d.c_str(), 0700);
  }
  put(f.home + "/.ssh/id_rsa", "SECRET-SSH-KEY\n");
  put(f.home + "/.aws/credentials", "SECRET-AWS\n");
  put(f.home + "/notes.txt", "plain notes\n");
  put(f.project + "/.env", "SECRET-DOTENV\n");
  put(f.project + "/src/main.txt", "hello from the project\n");
  put(f.outside + "/readme.txt", "outside but readable\n");
  fs::create_symlink(f.project + "/.env", f.project + "/link-to-env");
  fs::create_symlink(f.home + "/.ssh/id_rsa", f.project + "/link-to-ssh");
  fs::copy_file(paddock::test::build_dir() + "/tests/helpers/linux/tools" + "/sandbox_probe", f.probe_tool());
  ::chmod(f.probe_tool().c_str(), 0755);
  chown_tree(f.root, uid);
  f.probe_file = f.root + "/probe.json";
  RunOptions o;
  o.prefix = f.prefix();
  ProcessResult p = run_process({helper_bin(), "probe"}, o);
  if (p.exit_code != 0) {
    f.root.clear();
    return f;
  }
  put(f.probe_file, p.out);
  return f;
}

void remove_fixture(const SandboxFixture& f) {
  if (f.root.empty()) return;
  std::error_code ec;
  fs::remove_all(f.root, ec);
}

bool fixture_for_row(SandboxFixture& f) {
  QFETCH(uint, uid);
  remove_fixture(f);
  f = make_fixture(uid);
  return !f.root.empty();
}

FrozenIr base_ir(const SandboxFixture& f) {
  FrozenIr ir;
  ir.meta.project = f.project;
  ir.meta.home = f.home;
  ir.meta.os = "linux";
  ir.meta.source_layers = {{"cli-flags", "cli:flags", ""}};
  ir.fs.read_roots = {"/usr", "/etc", f.home, f.outside, f.tools};
  ir.fs.write_roots = {f.project};
  ir.fs.deny = {{f.home + "/.ssh", PathKind::kDir},
                {f.home + "/.aws", PathKind::kDir},
                {f.project + "/.env", PathKind::kFile},
                {"/etc/shadow", PathKind::kFile}};
  ir.env.pass_through = {"LANG", "PATH"};
  ir.env.passed_names = {"LANG"};
  ir.env.set = {{"HOME", f.home}, {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"TMPDIR", "/tmp"}};
  normalize(ir);
  return ir;
}

std::vector<std::string> HelperInvocation::helper_argv() const {
  std::vector<std::string> out = {helper_bin()};
  for (auto& a : session::encode_run_args(args)) out.push_back(std::move(a));
  return out;
}

std::vector<std::string> HelperInvocation::argv() const {
  std::vector<std::string> out = prefix;
  for (auto& a : helper_argv()) out.push_back(std::move(a));
  return out;
}

HelperInvocation prepare_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                                const ArgsTweak& tweak) {
  static std::atomic<int> counter{0};
  HelperInvocation h;
  std::string id = "t" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  h.session_dir = f.state + "/" + id;
  h.control_socket = f.state + "/" + id + ".sock";
  fs::create_directories(h.session_dir);
  ::chown(h.session_dir.c_str(), f.uid, f.uid);
  put(h.session_dir + "/ir.json", canonical_bytes(ir));
  auto probe = linux_backend::probe_from_json(nlohmann::json::parse(slurp(f.probe_file)));
  if (probe) {
    auto plan = linux_backend::compile_linux(ir, *probe);
    if (plan) h.plan_hash = plan_hash(*plan);
  }
  h.prefix = f.prefix();
  h.args.ir_file = h.session_dir + "/ir.json";
  h.args.plan_hash = h.plan_hash;
  h.args.session_dir = h.session_dir;
  h.args.session_id = id;
  h.args.control_socket = h.control_socket;
  h.args.probe_file = f.probe_file;
  h.args.command = cmd;
  if (tweak) tweak(h.args);
  return h;
}

ProcessResult run_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                         const ArgsTweak& tweak, RunOptions options) {
  HelperInvocation h = prepare_helper(f, ir, cmd, tweak);
  options.env_override["HOME"] = f.home;
  options.env_override["LANG"] = "C.UTF-8";
  return run_process(h.argv(), options);
}

ProcessResult run_sh(const SandboxFixture& f, const FrozenIr& ir, const std::string& script) {
  RunOptions o;
  o.cwd = f.project;
  return run_helper(f, ir, {"/bin/sh", "-c", script}, {}, o);
}

}  // namespace paddock::test
