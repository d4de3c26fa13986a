#include "tests/helpers/linux/sandbox_fixture.h"
#include "tests/support/test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  put(f.home + "/.ssh/id_rsa", "SECRET-SSH-KEY\n");
  put(f.home + "/.aws/credentials", "SECRET-AWS\n");
  put(f.home + "/notes.txt", "plain notes\n");
  put(f.project + "/.env", "SECRET-DOTENV\n");
  put(f.project + "/src/main.txt", "hello from the project\n");
  put(f.outside + "/readme.txt", "outside but readable\n");
  fs::create_symlink(f.project + "/.env", f.project + "/link-to-env");
  fs::create_symlink(f.home + "/.ssh/id_rsa", f.project + "/link-to-ssh");
  fs::copy_file(std::string(PADDOCK_TEST_TOOLS) + "/sandbox_probe", f.probe_tool());
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

HelperInvocation prepare_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                                const std::vector<std::string>& extra_args) {
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
  h.argv = f.prefix();
  for (const auto& a : std::vector<std::string>{helper_bin(), "run", "--ir", h.session_dir + "/ir.json",
                                                "--plan-hash", h.plan_hash, "--session-dir", h.session_dir,
                                                "--session-id", id, "--control-socket", h.control_socket,
                                                "--probe", f.probe_file})
    h.argv.push_back(a);
  h.argv.insert(h.argv.end(), extra_args.begin(), extra_args.end());
  h.argv.push_back("--");
  h.argv.insert(h.argv.end(), cmd.begin(), cmd.end());
  return h;
}

ProcessResult run_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                         const std::vector<std::string>& extra_args, RunOptions options) {
  HelperInvocation h = prepare_helper(f, ir, cmd, extra_args);
  options.env_override["HOME"] = f.home;
  options.env_override["LANG"] = "C.UTF-8";
  return run_process(h.argv, options);
}

}  // namespace paddock::test
