// review_bench: review mode's costs, each paired with a baseline measured in the same run
// (docs/review.md, "What it costs"). No timing asserts: the numbers are for people.
//
//   start    `paddock run --review` vs `paddock run` on a 1,000,000-file project (goal: 1.0x, the
//            overlay costs O(1) at start)
//   listing  `paddock review --json` of a session that changed 10,000 files vs `git status` of a
//            clone where the same 10,000 files were changed directly (goal <= 1.0x), printed apart
//            for a session's first listing (each round's fresh session: it reads the head of
//            every changed file and writes the session's facts cache) and for the listings after
//            it (which read only what changed since), each paired with a `git status` run next
//            to it
//   apply    `paddock apply` of those 10,000 files vs `cp -a` of the same files over a copy of the
//            project (goal <= 1.5x), and vs `cp -a` then `sync` (apply lists the change set first
//            and syncs its batch to disk twice, before and after the renames; cp does neither)
//
// REVIEW_BENCH_FILES (default 1000000) and REVIEW_BENCH_CHANGED (10000) scale it down;
// REVIEW_BENCH_ROUNDS (3) is how many sessions are listed and applied (one first listing each).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

const std::string kBin = PADDOCK_BUILD_BIN;

double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

struct Run {
  double ms = 0;
  int code = 0;
  std::string out;
};

// Runs argv with env added to this process's environment; stdout captured, stderr dropped.
Run run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}, const std::string& cwd = "") {
  int pipefd[2];
  if (::pipe(pipefd) != 0) return {0, -1, ""};
  const double t0 = now_ms();
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(126);
    ::dup2(pipefd[1], 1);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    ::close(pipefd[0]);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execvp(a[0], a.data());
    _exit(127);
  }
  ::close(pipefd[1]);
  Run r;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  r.ms = now_ms() - t0;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

// The median of a[i] / b[i]: each pair ran side by side, so a burst of load on the shared machine
// moves both sides of one pair rather than one side of the ratio of medians.
double paired(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) r.push_back(b[i] > 0 ? a[i] / b[i] : 0);
  std::sort(r.begin(), r.end());
  return r.empty() ? 0 : r[r.size() / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::size_t env_size(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoul(v, nullptr, 10) : fallback;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// dirs of 1,000 files each, "line <n>\n" in each.
void make_tree(const std::string& root, std::size_t files) {
  for (std::size_t i = 0; i < files; ++i) {
    const std::string dir = root + "/d" + std::to_string(i / 1000);
    if (i % 1000 == 0) fs::create_directories(dir);
    write_file(dir + "/f" + std::to_string(i % 1000) + ".txt", "line " + std::to_string(i) + "\n");
  }
}

// The same change, in the sandbox and directly: one line appended to the first `changed` files.
std::string change_script(std::size_t changed) {
  return "i=0; while [ $i -lt " + std::to_string(changed) +
         " ]; do echo more >> d$((i / 1000))/f$((i % 1000)).txt; i=$((i + 1)); done";
}

std::string last_session(const std::vector<std::string>& env) {
  const Run r = run({kBin + "/paddock", "sessions", "--json"}, env);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (!j.is_array() || j.empty()) return {};
  return j.back()["id"].get<std::string>();
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each result as it comes, also into a file
  const std::size_t files = env_size("REVIEW_BENCH_FILES", 1000000);
  const std::size_t changed = std::min(env_size("REVIEW_BENCH_CHANGED", 10000), files);
  char tmpl[] = "/var/tmp/paddock-review-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const std::string root = tmpl, home = root + "/home", big = root + "/big", proj = root + "/proj";
  fs::create_directories(home);
  fs::create_directories(root + "/run");
  const std::vector<std::string> env = {"HOME=" + home, "XDG_RUNTIME_DIR=" + root + "/run", "XDG_STATE_HOME=" + home + "/state",
                                        "XDG_CONFIG_HOME=" + home + "/config"};
  std::printf("review_bench: %zu-file project for start-up, %zu changed files for listing and apply (%s)\n", files,
              changed, root.c_str());
  std::fflush(stdout);

  // --- start-up on a big project ---------------------------------------------------------------
  {
    const double t0 = now_ms();
    make_tree(big, files);
    std::printf("  made the %zu-file project in %.1f s\n", files, (now_ms() - t0) / 1e3);
    const std::vector<std::string> base = {kBin + "/paddock", "run", "--profile", "permissive", "--project", big};
    std::vector<double> direct, review;
    for (int round = 0; round < 5; ++round) {
      std::vector<std::string> d = base, rv = base;
      d.insert(d.end(), {"--", "/bin/true"});
      rv.insert(rv.end(), {"--review", "--", "/bin/true"});
      const Run a = run(d, env), b = run(rv, env);
      if (a.code != 0 || b.code != 0) {
        std::printf("  start-up: a run failed (direct %d, review %d)\n", a.code, b.code);
        break;
      }
      direct.push_back(a.ms);
      review.push_back(b.ms);
    }
    if (!direct.empty())
      std::printf("  start-up, %zu files: run %.0f ms, run --review %.0f ms  -> %.2fx (goal 1.0x)\n", files, median(direct),
                  median(review), median(review) / median(direct));
    fs::remove_all(big);
  }

  // --- listing and apply of a 10,000-file change -------------------------------------------------
  std::vector<double> git_first_ms;  // git status's own first run after the change
  std::vector<double> first_ms, first_status_ms, list_ms, status_ms, apply_ms, cp_ms, cp_sync_ms;
  const std::size_t project_files = std::max<std::size_t>(changed * 2, 20000);
  make_tree(proj, project_files);
  run({"git", "-C", proj, "init", "-q"});
  run({"git", "-C", proj, "add", "-A"});
  run({"git", "-C", proj, "-c", "user.email=b@e.invalid", "-c", "user.name=b", "commit", "-qm", "base"});
  const std::size_t rounds = std::max<std::size_t>(env_size("REVIEW_BENCH_ROUNDS", 3), 1);
  for (std::size_t round = 0; round < rounds; ++round) {
    const Run session = run({kBin + "/paddock", "run", "--profile", "permissive", "--project", proj, "--review", "--",
                             "/bin/sh", "-c", change_script(changed)},
                            env, proj);
    const std::string id = last_session(env);
    if (session.code != 0 || id.empty()) {
      std::printf("  the review session failed (%d)\n", session.code);
      break;
    }
    // Listing: the review of the session vs git status of a clone changed the same way directly.
    const std::string clone = root + "/clone";
    fs::remove_all(clone);
    run({"git", "clone", "-q", proj, clone});
    run({"/bin/sh", "-c", change_script(changed)}, {}, clone);
    // git's own first status after the change refreshes its index (it re-reads what the change
    // touched): timed as context, while the goal's comparison is with the status after it.
    git_first_ms.push_back(run({"git", "-C", clone, "status", "--porcelain"}).ms);
    // The session's first listing: nothing listed it before (no facts cache in its directory).
    first_ms.push_back(run({kBin + "/paddock", "review", id, "--json"}, env).ms);
    first_status_ms.push_back(run({"git", "-C", clone, "status", "--porcelain"}).ms);
    std::printf("  round %zu, the session's first listing: paddock review %.0f ms, git status %.0f ms\n", round + 1,
                first_ms.back(), first_status_ms.back());
    for (int i = 0; i < 3; ++i) {
      list_ms.push_back(run({kBin + "/paddock", "review", id, "--json"}, env).ms);
      status_ms.push_back(run({"git", "-C", clone, "status", "--porcelain"}).ms);
    }
    // Apply vs cp -a of the same files over a copy of the project.
    const std::string upper = home + "/state/paddock/sessions/" + id + "/review/0/upper";
    const std::string copy = root + "/copy";
    fs::remove_all(copy);
    run({"cp", "-a", proj, copy});
    run({"sync"});
    cp_ms.push_back(run({"cp", "-a", upper + "/.", copy + "/"}).ms);
    cp_sync_ms.push_back(cp_ms.back() + run({"sync"}).ms);
    const Run applied = run({kBin + "/paddock", "apply", id}, env);
    apply_ms.push_back(applied.ms);
    if (applied.code != 0) std::printf("  apply failed (%d)\n", applied.code);
    // Back to the base for the next round.
    run({"git", "-C", proj, "checkout", "-q", "--", "."});
    fs::remove_all(clone);
    fs::remove_all(copy);
  }
  if (!first_ms.empty())
    std::printf("  listing, %zu changed of %zu files, a session's first: paddock review %.0f ms, git status %.0f ms  -> %.2fx "
                "(goal <= 1.0x; paired %.2fx)\n",
                changed, project_files, median(first_ms), median(first_status_ms), median(first_ms) / median(first_status_ms),
                paired(first_ms, first_status_ms));
  if (!first_ms.empty())
    std::printf("  context: git status's own first run after the change (refreshing its index) %.0f ms; a session's first "
                "listing is %.2fx that (paired %.2fx)\n",
                median(git_first_ms), median(first_ms) / median(git_first_ms), paired(first_ms, git_first_ms));
  if (!list_ms.empty())
    std::printf("  listing, %zu changed of %zu files, repeated: paddock review %.0f ms, git status %.0f ms  -> %.2fx "
                "(goal <= 1.0x; paired %.2fx)\n",
                changed, project_files, median(list_ms), median(status_ms), median(list_ms) / median(status_ms),
                paired(list_ms, status_ms));
  if (!apply_ms.empty())
    std::printf("  apply, %zu files: paddock apply %.0f ms, cp -a %.0f ms  -> %.2fx (goal <= 1.5x); cp -a + sync %.0f ms "
                "-> %.2fx\n",
                changed, median(apply_ms), median(cp_ms), median(apply_ms) / median(cp_ms), median(cp_sync_ms),
                median(apply_ms) / median(cp_sync_ms));
  fs::remove_all(root);
  return 0;
}
