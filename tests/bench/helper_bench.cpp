// helper_bench: start-up cost of a full sandbox (net off) running /bin/true, paired in one run
// against bare /bin/true and against bubblewrap with every namespace unshared. Prints medians
// and ratios (goals: helper <= 1.0x bwrap, `paddock run` end to end <= 1.5x bwrap in wall time and
// <= 2x in CPU time, helper peak RSS <= 8 MB). No timing asserts: the numbers are for people, and
// with PADDOCK_BENCH_DOC=docs/cli.md this run's row replaces its uid's row of the table there.
// Two end-to-end lines: the permissive profile (no limits) and the default profile (memory and
// process limits: a cgroup leaf where one is writable, else refused), each labelled with what
// its plan uses. Every variant runs once per round, in the same round, so drift hits all alike.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/session/run_args.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Sample {
  double ms = 0;
  double cpu_ms = 0;  // user + system time of the process and every descendant it waited for
  long max_rss_kb = 0;
  int code = 0;
};

Sample run(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  timespec t0{}, t1{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> a, e;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  int st = 0;
  rusage ru{};
  wait4(pid, &st, 0, &ru);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  Sample s;
  s.ms = static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e3 + static_cast<double>(t1.tv_nsec - t0.tv_nsec) / 1e6;
  s.max_rss_kb = ru.ru_maxrss;
  s.cpu_ms = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
  s.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return s;
}

// What the helper's session files cost on this file system, without the helper: the same three
// new files in a fresh directory (events.jsonl appended; attestation.json and report.json each
// written to a temporary and renamed, as the helper does). On ext4 without a journal each new
// inode alone can cost 0.3-1 ms (the inode allocator's recently-deleted scan).
double session_files_ms(const std::string& dir) {
  ::mkdir(dir.c_str(), 0700);  // outside the timing, as the direct runs' session directories are
  timespec t0{}, t1{};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const std::string line = "{\"event\":\"session_started\"}\n";
  int fd = ::open((dir + "/events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
  }
  for (const char* name : {"attestation.json", "report.json"}) {
    const std::string final_path = dir + "/" + name, tmp = final_path + ".tmp";
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      const std::string body(name[0] == 'a' ? 5000 : 300, ' ');
      (void)!::write(fd, body.data(), body.size());
      ::close(fd);
      ::rename(tmp.c_str(), final_path.c_str());
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return static_cast<double>(t1.tv_sec - t0.tv_sec) * 1e3 + static_cast<double>(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

// Replaces what lies between the lines `begin` and `end` of `file` with `text`; false when either
// marker is missing.
bool replace_between(const std::string& file, const std::string& begin, const std::string& end, const std::string& text) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const auto b = doc.find(begin + "\n");
  const auto e = b == std::string::npos ? b : doc.find(end, b);
  if (e == std::string::npos) return false;
  doc.replace(b + begin.size() + 1, e - (b + begin.size() + 1), text);
  const std::string tmp = file + ".tmp";
  std::ofstream(tmp) << doc;
  return std::rename(tmp.c_str(), file.c_str()) == 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main() {
  const std::string paddock = std::string(PADDOCK_BUILD_BIN) + "/paddock";
  const std::string helper = std::string(PADDOCK_BUILD_LIBEXEC) + "/paddock-helper";
  char tmpl[] = "/tmp/paddock-bench-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  const std::string root = tmpl, home = root + "/home", project = home + "/proj";
  fs::create_directories(project);
  // XDG_RUNTIME_DIR is a tmpfs on every login that has one (/run/user/UID): so here, where
  // /dev/shm is. Session records stay on disk, next to the project, as for a real user; a second
  // end-to-end line puts them on tmpfs too, to separate this disk's cost from Paddock's.
  char shm_tmpl[] = "/dev/shm/paddock-bench-XXXXXX";
  const bool have_shm = ::mkdtemp(shm_tmpl) != nullptr;
  const std::string shm = have_shm ? shm_tmpl : root + "/shm";
  const std::string runtime = shm + "/run";
  fs::create_directories(runtime);
  ::chmod(runtime.c_str(), 0700);
  const std::vector<std::string> env = {"HOME=" + home, "XDG_STATE_HOME=" + root + "/state",
                                        "XDG_RUNTIME_DIR=" + runtime, "XDG_CONFIG_HOME=" + root + "/config",
                                        "PATH=/usr/bin:/bin"};
  std::vector<std::string> env_tmpfs_state = env;
  env_tmpfs_state[1] = "XDG_STATE_HOME=" + shm + "/state";
  // One real session gives the IR, probe and plan hash the direct helper runs reuse.
  if (chdir(project.c_str()) != 0) return 1;
  Sample first = run({paddock, "run", "--profile", "permissive", "--", "/bin/true"}, env);
  if (first.code != 0) {
    std::fprintf(stderr, "helper_bench: paddock run failed (exit %d); cannot measure\n", first.code);
    return 1;
  }
  std::string session;
  for (const auto& e : fs::directory_iterator(root + "/state/paddock/sessions")) session = e.path().string();
  // The default profile needs its limits enforced; where it cannot (no writable cgroup for this
  // uid), `run` refuses and the line says so instead of timing a refusal.
  Sample first_default = run({paddock, "run", "--", "/bin/true"}, env);
  std::string default_label = "default profile";
  if (first_default.code == 0) {
    std::string newest;
    for (const auto& e : fs::directory_iterator(root + "/state/paddock/sessions"))
      if (e.path().string() != session && e.path().string() > newest) newest = e.path().string();
    std::string plan = slurp(newest + "/plan.json");
    // The cgroup step's value follows its name: {"step": "cgroup", "value": {..."mechanism": "v2"...}}.
    auto step = plan.find("\"cgroup\"", plan.find("\"steps\""));
    auto m = step == std::string::npos ? step : plan.find("\"mechanism\"", step);
    if (m != std::string::npos) {
      auto a = plan.find('"', plan.find(':', m) + 1), b = plan.find('"', a + 1);
      default_label += ", cgroup " + plan.substr(a + 1, b - a - 1) + " + rlimits";
    }
  }
  // The probe the direct runs hand the helper: the one the session's plan.json records.
  const json session_plan = json::parse(slurp(session + "/plan.json"));
  const std::string probe_file = root + "/probe.json";
  std::ofstream(probe_file) << session_plan["probe"].dump();
  std::string att = slurp(session + "/attestation.json");
  auto k = att.find("\"plan_hash\"");
  auto q1 = att.find('"', att.find(':', k) + 1), q2 = att.find('"', q1 + 1);
  const std::string plan_hash = att.substr(q1 + 1, q2 - q1 - 1);
  const std::string scratch = root + "/scratch";
  fs::create_directories(scratch);

  const bool have_bwrap = access("/usr/bin/bwrap", X_OK) == 0;
  const std::vector<std::string> bare = {"/bin/true"};
  const std::vector<std::string> bwrap = {"/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                          "--unshare-all", "--die-with-parent", "/bin/true"};
  // A fresh session directory per run, as in real use (replacing files costs more than creating).
  auto direct = [&](int i, const std::string& under) {
    std::string dir = under + "/" + std::to_string(i);
    fs::create_directories(dir);
    paddock::session::HelperRunArgs a;
    a.ir_file = session + "/ir.json";
    a.plan_hash = plan_hash;
    a.session_dir = dir;
    a.session_id = "bench" + std::to_string(i);
    a.probe_file = probe_file;
    a.command = {"/bin/true"};
    std::vector<std::string> argv = {helper};
    for (auto& s : paddock::session::encode_run_args(a)) argv.push_back(std::move(s));
    return argv;
  };
  const std::vector<std::string> e2e = {paddock, "run", "--profile", "permissive", "--", "/bin/true"};
  const std::vector<std::string> e2e_default = {paddock, "run", "--", "/bin/true"};

  const int rounds = 40;
  std::vector<double> t_bare, t_bwrap, t_helper, t_e2e, t_default, t_files, t_e2e_tmpfs, t_helper_tmpfs;
  std::vector<double> c_bwrap, c_helper, c_e2e, c_default;  // CPU time of the same runs
  const std::string shm_scratch = shm + "/scratch";
  if (have_shm) fs::create_directories(shm_scratch);
  long helper_rss = 0;
  int failures = 0;
  for (int i = 0; i < rounds; ++i) {  // interleaved, so drift hits every variant alike
    t_bare.push_back(run(bare, env).ms);
    t_files.push_back(session_files_ms(scratch + "/files" + std::to_string(i)));
    if (have_bwrap) {
      const Sample w = run(bwrap, env);
      t_bwrap.push_back(w.ms);
      c_bwrap.push_back(w.cpu_ms);
    }
    Sample h = run(direct(i, scratch), env);
    failures += h.code != 0;
    t_helper.push_back(h.ms);
    c_helper.push_back(h.cpu_ms);
    helper_rss = std::max(helper_rss, h.max_rss_kb);
    Sample p = run(e2e, env);
    failures += p.code != 0;
    t_e2e.push_back(p.ms);
    c_e2e.push_back(p.cpu_ms);
    if (have_shm) {
      Sample t = run(direct(i, shm_scratch), env);
      failures += t.code != 0;
      t_helper_tmpfs.push_back(t.ms);
      Sample q = run(e2e, env_tmpfs_state);
      failures += q.code != 0;
      t_e2e_tmpfs.push_back(q.ms);
    }
    if (first_default.code == 0) {
      Sample d = run(e2e_default, env);
      failures += d.code != 0;
      t_default.push_back(d.ms);
      c_default.push_back(d.cpu_ms);
    }
  }
  // A real repository is not empty: the profiles' $PROJECT/** deny globs walk it at every run
  // (to mask what they match). A 50,000-file node_modules, on tmpfs, paired with the empty project.
  std::vector<double> t_big, t_small;
  if (have_shm) {
    const std::string big = shm + "/big";
    for (int a = 0; a < 50; ++a)
      for (int b = 0; b < 40; ++b) {
        const std::string dir = big + "/node_modules/pkg" + std::to_string(a) + "/lib/sub" + std::to_string(b);
        fs::create_directories(dir);
        for (int c = 0; c < 25; ++c) std::ofstream(dir + "/f" + std::to_string(c) + ".js");
      }
    std::vector<std::string> in_big = e2e;
    in_big.insert(in_big.begin() + 2, {"--project", big});
    for (int i = 0; i < 5; ++i) {
      Sample b = run(in_big, env_tmpfs_state);
      failures += b.code != 0;
      t_big.push_back(b.ms);
      Sample q = run(e2e, env_tmpfs_state);
      failures += q.code != 0;
      t_small.push_back(q.ms);
    }
  }
  // The walk at scale: a 1,000,000-file project (PADDOCK_BENCH_FILES to change it), on tmpfs,
  // against `find -name` over the same tree in the same run, and the empty project.
  std::vector<double> t_huge, t_find, t_empty;
  long huge_files = 1000000;
  if (const char* n = std::getenv("PADDOCK_BENCH_FILES")) huge_files = std::strtol(n, nullptr, 10);
  const std::vector<std::string>& huge_cmd = first_default.code == 0 ? e2e_default : e2e;
  if (have_shm && huge_files > 0) {
    const std::string huge = shm + "/huge";
    for (long made = 0, d = 0; made < huge_files; ++d) {
      const std::string dir = huge + "/node_modules/pkg" + std::to_string(d / 20) + "/lib" + std::to_string(d % 20);
      fs::create_directories(dir);
      for (int c = 0; c < 500 && made < huge_files; ++c, ++made) {
        const int fd = ::open((dir + "/f" + std::to_string(c) + ".js").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
      }
    }
    std::vector<std::string> in_huge = huge_cmd;
    in_huge.insert(in_huge.begin() + 2, {"--project", huge});
    const std::vector<std::string> find = {"/usr/bin/find", huge, "-name", "*.env"};
    for (int i = 0; i < 5; ++i) {
      Sample h = run(in_huge, env_tmpfs_state);
      failures += h.code != 0;
      t_huge.push_back(h.ms);
      t_find.push_back(run(find, env).ms);
      Sample q = run(huge_cmd, env_tmpfs_state);
      failures += q.code != 0;
      t_empty.push_back(q.ms);
    }
  }
  const double mb = median(t_bare), mw = median(t_bwrap), mh = median(t_helper), me = median(t_e2e),
               md = median(t_default);
  std::printf("helper_bench: %d rounds, medians (ms)\n", rounds);
  std::printf("  /bin/true                                 %8.3f\n", mb);
  if (have_bwrap) std::printf("  bwrap --unshare-all /bin/true             %8.3f  (%.1fx bare)\n", mw, mw / mb);
  std::printf("  paddock-helper (permissive, net off)      %8.3f  (%.1fx bare)\n", mh, mh / mb);
  std::printf("  paddock run (permissive: no limits)       %8.3f  (%.1fx bare)\n", me, me / mb);
  if (first_default.code == 0)
    std::printf("  paddock run (%s) %8.3f  (%.1fx bare)\n", default_label.c_str(), md, md / mb);
  else
    std::printf("  paddock run (default profile): refused here (exit %d), not timed\n", first_default.code);
  const double cw = median(c_bwrap), ch = median(c_helper), ce = median(c_e2e), cd = median(c_default);
  if (have_bwrap) {
    std::printf("  ratio helper / bwrap                      %8.2f  (goal <= 1.0)\n", mh / mw);
    std::printf("  ratio paddock run permissive / bwrap      %8.2f  (goal <= 1.5)\n", me / mw);
    if (first_default.code == 0)
      std::printf("  ratio paddock run default / bwrap         %8.2f  (goal <= 1.5)\n", md / mw);
    std::printf("  CPU (user + system, ms): bwrap %.2f, helper %.2f, run permissive %.2f", cw, ch, ce);
    if (first_default.code == 0) std::printf(", run default %.2f", cd);
    std::printf("\n  CPU ratio paddock run permissive / bwrap  %8.2f  (goal <= 2.0)\n", ce / cw);
  } else {
    std::printf("  bwrap not installed (apt-get install bubblewrap): no bwrap ratios\n");
  }
  // PADDOCK_BENCH_DOC=docs/cli.md: this run's row of the start-up table there, between the
  // markers for this uid (the table is never kept by hand).
  if (const char* doc = std::getenv("PADDOCK_BENCH_DOC"); doc && have_bwrap) {
    const std::string who = ::geteuid() == 0 ? "root" : "uid " + std::to_string(::geteuid());
    const auto fixed = [](double v, const char* format) {
      char b[32];
      std::snprintf(b, sizeof b, format, v);
      return std::string(b);
    };
    const bool dflt = first_default.code == 0;
    const std::string row = "| " + who + " | " + fixed(mw, "%.1f") + " | " + fixed(mh / mw, "%.2f") + " | " +
                            fixed(me / mw, "%.2f") + " | " + (dflt ? fixed(md / mw, "%.2f") : "refused") + " | " +
                            fixed(ce / cw, "%.2f") + " | " + (dflt ? fixed(cd / cw, "%.2f") : "refused") + " |\n";
    if (!replace_between(doc, "<!-- helper_bench " + who + " -->", "<!-- end helper_bench " + who + " -->", row))
      std::fprintf(stderr, "helper_bench: %s has no markers for %s; nothing written\n", doc, who.c_str());
  }
  // Context, not the helper: the file system's price for the session files the helper writes.
  std::printf("  context: its 3 session files, alone         %8.3f  (events.jsonl + 2 via tmp+rename,\n"
              "           in a fresh directory on the file system of %s)\n",
              median(t_files), scratch.c_str());
  if (have_shm && have_bwrap)
    std::printf("  context: paddock-helper, session files on tmpfs %8.3f  (%.2fx bwrap)\n",
                median(t_helper_tmpfs), median(t_helper_tmpfs) / mw);
  if (have_shm && have_bwrap)
    std::printf("  context: paddock run permissive, session records on tmpfs %8.3f  (%.2fx bwrap: what\n"
                "           Paddock costs without this disk's price for a new file)\n",
                median(t_e2e_tmpfs), median(t_e2e_tmpfs) / mw);
  if (!t_big.empty())
    std::printf("  context: paddock run permissive in a 50,000-file project (node_modules), records on tmpfs\n"
                "           %8.3f  (%.1fx the empty project's %.3f, same run)\n",
                median(t_big), median(t_big) / median(t_small), median(t_small));
  if (!t_huge.empty())
    std::printf("  paddock run (%s) in a %ld-file project, records on tmpfs\n"
                "           %8.3f  (%.2fx `find -name` over it, %.3f; the empty project %.3f; goal <= 350 ms)\n",
                first_default.code == 0 ? "default profile" : "permissive", huge_files, median(t_huge),
                median(t_huge) / median(t_find), median(t_find), median(t_empty));
  std::printf("  peak RSS of helper tree                   %8.1f MB  (goal <= 8 MB)\n", static_cast<double>(helper_rss) / 1024.0);
  if (failures) std::printf("  WARNING: %d sandboxed runs did not exit 0\n", failures);
  std::error_code ec;
  fs::remove_all(root, ec);
  if (have_shm) fs::remove_all(shm, ec);
  return failures ? 1 : 0;
}
