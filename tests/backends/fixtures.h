// Hand-built frozen IRs and kernel probes shared by the backend tests (the engine's evaluate()
// is not needed: backends only read the frozen IR).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <QtTest>

#include "backends/linux/kernel_probe.h"
#include "engine/ir.h"
#include "tests/support/test_paths.h"

namespace paddock::test {

// A typical agent session: project writable, toolchain readable, secrets masked.
inline FrozenIr typical_ir() {
  FrozenIr ir;
  ir.meta.project = "/home/dev/proj";
  ir.meta.home = "/home/dev";
  ir.meta.os = "linux";
  ir.meta.source_layers = {{"builtin-profile", "builtin:profiles/default.yaml", "sha256:00"}};
  ir.fs.write_roots = {"/home/dev/.claude", "/home/dev/proj"};
  ir.fs.read_roots = {"/etc", "/home/dev/proj/vendor", "/usr"};
  ir.fs.deny = {{"/home/dev/.ssh", PathKind::kDir},
                {"/home/dev/proj/.env", PathKind::kFile},
                {"/home/dev/proj/secrets", PathKind::kDir},
                {"/usr/share/secret.key", PathKind::kFile}};
  ir.fs.deny_write = {{"/home/dev/proj/.git/hooks", PathKind::kDir}};
  ir.env.passed_names = {"LANG", "TERM"};
  ir.env.set = {{"HOME", "/home/dev"}, {"PATH", "/usr/bin:/bin"}, {"TMPDIR", "/tmp"}};
  ir.env.pass_through = {"LANG", "TERM"};
  ir.resources.cpu_seconds = 3600;
  ir.resources.memory_bytes = 8589934592;
  ir.resources.processes = 512;
  ir.resources.open_files = 4096;
  ir.resources.file_size_bytes = 1073741824;
  ir.resources.wall_time_secs = 14400;
  normalize(ir);
  return ir;
}

// The same session with the egress relay (allowlist mode).
inline FrozenIr relay_ir() {
  FrozenIr ir = typical_ir();
  ir.egress.mode = NetMode::kAllowlist;
  ir.egress.domains = {"*.githubusercontent.com", "api.anthropic.com"};
  normalize(ir);
  return ir;
}

// The smallest IR a backend can run: one write root, no deny inside a write root, no limits
// that need a cgroup. Every backend can enforce it (macOS with its reported losses).
inline FrozenIr minimal_ir(const std::string& os = "linux") {
  FrozenIr ir;
  ir.meta.os = os;
  ir.meta.project = os == "windows" ? "C:\\Users\\dev\\proj" : "/work/proj";
  ir.fs.write_roots = {ir.meta.project};
  ir.env.set = {{"HOME", ir.meta.project}};
  normalize(ir);
  return ir;
}

// A kernel like this machine's at a given Landlock ABI, with a delegated cgroup v2 subtree.
inline linux_backend::KernelProbe probe_abi(int abi) {
  linux_backend::KernelProbe p;
  p.kernel_release = "6.18.0-test";
  p.landlock_abi = abi;
  p.seccomp_filter = true;
  p.user_ns = p.mount_ns = p.pid_ns = p.net_ns = p.ipc_ns = p.uts_ns = true;
  p.unprivileged = true;
  p.rlimit_data = true;
  p.cgroup.version = "v2";
  p.cgroup.v2_mount = "/sys/fs/cgroup";
  p.cgroup.own_v2_path = "/user.slice/user-1000.slice/user@1000.service/app.slice";
  p.cgroup.v2_delegated_writable = true;
  p.cgroup.v2_controllers = {"cpu", "memory", "pids"};
  return p;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares text with tests/data/golden/plans/<name>; PADDOCK_UPDATE_GOLDEN=1 rewrites the file.
inline bool matches_golden(const std::string& name, const std::string& text, std::string& why) {
  const std::string path = paddock::test::test_data() + "/golden/plans/" + name;
  if (qEnvironmentVariableIsSet("PADDOCK_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << text;
    return true;
  }
  const std::string want = read_text(path);
  if (want == text) return true;
  std::istringstream a(want), b(text);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) break;
    if (ea || eb || la != lb) {
      why = path + " differs at line " + std::to_string(line) + ":\n  golden: " + la +
            "\n  actual: " + lb + "\n(run with PADDOCK_UPDATE_GOLDEN=1 after reviewing)";
      return false;
    }
  }
  why = path + " differs";
  return false;
}

}  // namespace paddock::test
