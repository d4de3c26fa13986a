// paddock-helper (macOS): applies a macOS plan (backends/macos) and runs one command inside it.
//   paddock-helper run --plan PLAN.json -- COMMAND [ARGS...]
// The plan is re-checked (fail closed: a refused plan never runs). The child applies rlimits,
// then the Seatbelt profile with sandbox_init_with_parameters (user paths arrive as parameters,
// SESSION_TMPDIR is a fresh directory made here), then execs with the plan's environment only.
// The parent stays outside the sandbox, enforces wall time and kills the process group.
// Not built on Linux (macOS cannot be compiled here); kept small on purpose.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "engine/plan.h"
#include "engine/main_guard.h"

extern "C" {
// libsandbox (private but stable since 10.5; what sandbox-exec uses). params: NULL-terminated
// key, value, key, value, ... list.
int sandbox_init_with_parameters(const char* profile, uint64_t flags, const char* const parameters[],
                                 char** errorbuf);
void sandbox_free_error(char* errorbuf);
}

namespace {

using nlohmann::json;
using paddock::ErrorCode;

constexpr int kRefused = static_cast<int>(ErrorCode::kRefused);

int fail(int code, const std::string& line) {
  std::fprintf(stderr, "paddock-helper: %s\n", line.c_str());
  return code;
}

const json* step(const json& steps, const char* name) {
  for (const auto& s : steps)
    if (s.value("step", "") == name) return &s["value"];
  return nullptr;
}

int rlimit_id(const std::string& name) {
  if (name == "cpu") return RLIMIT_CPU;
  if (name == "nproc") return RLIMIT_NPROC;
  if (name == "nofile") return RLIMIT_NOFILE;
  if (name == "fsize") return RLIMIT_FSIZE;
  if (name == "core") return RLIMIT_CORE;
  return -1;
}

// Runs in the child, before exec; any failure exits 125 so nothing runs unconfined.
[[noreturn]] void child(const json& seatbelt, const json& rlimits, const json& env,
                        const std::string& tmpdir, const std::vector<std::string>& command) {
  setpgid(0, 0);
  // Only stdin, stdout and stderr cross into the sandbox: a descriptor the caller left open would
  // reach the agent past Seatbelt, which judges a path only when it is opened. (No close_range on
  // macOS; descriptors stay usable here until exec.)
  for (int fd = 3, n = getdtablesize(); fd < n; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  for (const auto& r : rlimits) {
    const int id = rlimit_id(r["resource"].get<std::string>());
    const rlim_t v = r["value"].get<rlim_t>();
    struct rlimit rl = {v, v};
    if (id < 0 || setrlimit(id, &rl) != 0) {
      fail(kRefused, "setrlimit " + r["resource"].get<std::string>() + ": " + std::strerror(errno));
      _exit(kRefused);
    }
  }
  std::vector<std::string> kv;
  for (auto it = seatbelt["params"].begin(); it != seatbelt["params"].end(); ++it) {
    kv.push_back(it.key());
    kv.push_back(it.value().get<std::string>());
  }
  kv.push_back("SESSION_TMPDIR");
  kv.push_back(tmpdir);
  std::vector<const char*> params;
  for (const auto& s : kv) params.push_back(s.c_str());
  params.push_back(nullptr);
  char* error = nullptr;
  const std::string profile = seatbelt["profile"].get<std::string>();
  if (sandbox_init_with_parameters(profile.c_str(), 0, params.data(), &error) != 0) {
    fail(kRefused, std::string("sandbox_init_with_parameters: ") + (error ? error : "failed"));
    if (error) sandbox_free_error(error);
    _exit(kRefused);
  }
  std::vector<std::string> envs;
  for (auto it = env["set"].begin(); it != env["set"].end(); ++it)
    if (it.key() != "TMPDIR")  // the session's private directory below replaces it
      envs.push_back(it.key() + "=" + it.value().get<std::string>());
  for (const auto& name : env["pass"])
    if (name != "TMPDIR")
      if (const char* v = getenv(name.get<std::string>().c_str())) envs.push_back(name.get<std::string>() + "=" + v);
  envs.push_back("TMPDIR=" + tmpdir);
  std::vector<char*> envp, argv;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // A bare name is looked up in the sandbox's PATH (never the helper's, never the cwd).
  if (std::strchr(argv[0], '/') != nullptr) {
    execve(argv[0], argv.data(), envp.data());
  } else {
    std::string path;
    for (const auto& e : envs)
      if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
    std::stringstream dirs(path);
    std::string dir;
    int err = ENOENT;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      const std::string full = dir + "/" + argv[0];
      execve(full.c_str(), argv.data(), envp.data());
      if (errno != ENOENT) err = errno;
    }
    errno = err;
  }
  const int code = static_cast<int>(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kPolicyBlocked);
  fail(code, "cannot execute " + command[0] + ": " + std::strerror(errno));
  _exit(code);
}

}  // namespace

static int program_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 5 || args[0] != "run" || args[1] != "--plan" || args[3] != "--")
    return fail(2, "usage: paddock-helper run --plan PLAN.json -- COMMAND [ARGS...]");
  std::ifstream in(args[2], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (!in || j.is_discarded()) return fail(kRefused, "cannot read the plan " + args[2]);
  auto plan = paddock::plan_from_json(j);
  if (!plan.ok()) return fail(kRefused, plan.error().message);
  if (plan->backend != "macos") return fail(kRefused, "the plan is for " + plan->backend + ", not macos");
  if (auto s = paddock::backends::check(*plan); !s.ok()) return fail(kRefused, s.error().message);
  const json* seatbelt = step(plan->steps, "seatbelt");
  const json* rlimits = step(plan->steps, "rlimits");
  const json* env = step(plan->steps, "env");
  const json* wall = step(plan->steps, "wall_time_secs");
  if (!seatbelt || !rlimits || !env || !wall) return fail(kRefused, "the plan lacks a macOS step");

  char tmpl[] = "/private/tmp/paddock-session.XXXXXX";
  if (!mkdtemp(tmpl)) return fail(kRefused, std::string("mkdtemp: ") + std::strerror(errno));
  const std::string tmpdir = tmpl;
  std::vector<std::string> command(args.begin() + 4, args.end());

  const pid_t pid = fork();
  if (pid < 0) return fail(kRefused, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) child(*seatbelt, *rlimits, *env, tmpdir, command);
  setpgid(pid, pid);

  const auto deadline = wall->is_null() ? std::chrono::steady_clock::time_point::max()
                                        : std::chrono::steady_clock::now() + std::chrono::seconds(wall->get<long long>());
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return fail(kRefused, std::string("waitpid: ") + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) {
      killpg(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return static_cast<int>(ErrorCode::kTimeout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  killpg(pid, SIGKILL);  // lifecycle kill_tree: whatever the agent left in its group
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// No exception leaves main: one line and a fail-closed exit code instead (engine/main_guard.h).
int main(int argc, char** argv) {
  return paddock::guarded_main("paddock-helper", [&] { return program_main(argc, argv); });
}
