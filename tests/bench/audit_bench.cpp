// audit_bench: the direct-mode audit of a 100,000-file project where a session changed 100 files,
// against `find DIR -newer MARKER` over the same tree in the same run (docs/audit.md; goal: <=
// 1.0x). Both read a warm page cache: each is run once to warm it, then timed as the best of
// three. No timing asserts: the numbers are for people.
//
// AUDIT_BENCH_FILES (default 100000) scales it.
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "platform/audit/audit.h"

namespace fs = std::filesystem;
using namespace paddock;

namespace {

double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

std::int64_t realtime_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME_COARSE, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// `find` with its output to /dev/null; its wall time.
double time_find(const std::string& dir, const std::string& marker) {
  const double t0 = now_ms();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::execlp("find", "find", dir.c_str(), "-newer", marker.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return now_ms() - t0;
}

}  // namespace

int main() {
  const std::size_t files = std::getenv("AUDIT_BENCH_FILES") ? std::strtoul(std::getenv("AUDIT_BENCH_FILES"), nullptr, 10) : 100000;
  char tmpl[] = "/var/tmp/paddock-audit-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const std::string root = tmpl;
  const std::string project = root + "/proj";
  // 100 files per directory, 10 directories per level: a source tree's shape.
  for (std::size_t i = 0; i < files; ++i) {
    const std::string dir = project + "/d" + std::to_string(i / 1000) + "/s" + std::to_string((i / 100) % 10);
    if (i % 100 == 0) fs::create_directories(dir);
    put(dir + "/f" + std::to_string(i) + ".c", "int x;\n");
  }
  const std::string marker = root + "/marker";
  put(marker, "");
  const std::int64_t start = realtime_ns();
  while (realtime_ns() <= start) ::usleep(1000);
  for (std::size_t i = 0; i < files; i += files / 100) {
    const std::string dir = project + "/d" + std::to_string(i / 1000) + "/s" + std::to_string((i / 100) % 10);
    put(dir + "/f" + std::to_string(i) + ".c", "int y;\n");
  }
  put(project + "/d0/.envrc", "echo hi\n");

  platform::AuditInputs in;
  in.session_id = "bench";
  in.session_dir = root + "/session";
  in.ir.meta.project = project;
  in.ir.meta.home = root;
  in.ir.meta.os = "linux";
  in.ir.fs.write_roots = {project};
  in.start.started_ns = start;
  in.start.project = project;
  in.start.roots = {project};
  in.start.record = "walk";
  in.resources_dir = PADDOCK_SOURCE_DIR "/resources";
  in.by = "bench";

  (void)time_find(project, marker);
  (void)platform::audit_session(in);
  double find_ms = 1e18, audit_ms = 1e18;
  std::size_t findings = 0;
  for (int i = 0; i < 3; ++i) {
    find_ms = std::min(find_ms, time_find(project, marker));
    const double t0 = now_ms();
    auto a = platform::audit_session(in);
    audit_ms = std::min(audit_ms, now_ms() - t0);
    if (!a.ok()) {
      std::fprintf(stderr, "audit failed: %s\n", a.error().message.c_str());
      return 1;
    }
    findings = a->findings.size();
  }
  double load[3] = {0, 0, 0};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::printf("audit of a %zu-file project, 101 changed (%zu finding): %.1f ms; find -newer: %.1f ms; ratio %.2fx "
              "(goal <= 1.0x; %u cores, load %.2f)\n",
              files, findings, audit_ms, find_ms, audit_ms / find_ms, std::thread::hardware_concurrency(), load[0]);
  std::error_code ec;
  fs::remove_all(root, ec);
  return 0;
}
