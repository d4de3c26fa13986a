// Engine benchmarks (not a timed test: prints numbers and ratios measured in the same run).
//  1. `$PROJECT/**/*.pem` over a generated 100,000-file tree vs `find -name '*.pem'` on the same
//     tree (goal: <= 1.2x).
//  2. The whole evaluate() pipeline for a typical profile + agent + repository layer, against
//     the GUI's per-keystroke budget of 16 ms.
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/glob.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double best_ms(int runs, F&& f) {
  double best = 1e18;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return best;
}

double median_ms(int runs, const std::function<void()>& f) {
  std::vector<double> v;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    v.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  QTemporaryDir tmp;
  const std::string root = std::filesystem::canonical(tmp.path().toStdString()).string() + "/tree";
  // 100 top dirs x 10 subdirs x 100 files = 100,000 files; every 97th is a .pem.
  int n = 0, pem = 0;
  for (int a = 0; a < 100; ++a)
    for (int b = 0; b < 10; ++b) {
      const std::string dir = root + "/d" + std::to_string(a) + "/s" + std::to_string(b);
      std::filesystem::create_directories(dir);
      for (int c = 0; c < 100; ++c, ++n) {
        const bool is_pem = n % 97 == 0;
        pem += is_pem;
        std::ofstream(dir + "/f" + std::to_string(c) + (is_pem ? ".pem" : ".txt"));
      }
    }
  std::printf("tree: %d files, %d .pem\n", n, pem);

  const std::string find_cmd = "find '" + root + "' -name '*.pem' > /dev/null";
  const double find_ms = best_ms(5, [&] { (void)std::system(find_cmd.c_str()); });
  std::size_t matches = 0;
  const double glob_ms = best_ms(5, [&] {
    std::vector<paddock::GlobJob> jobs = {{root + "/**/*.pem", "bench", {}}};
    if (!paddock::expand_globs(jobs).ok()) std::abort();
    matches = jobs[0].matches.size();
  });
  std::printf("glob $PROJECT/**/*.pem: %.2f ms (%zu matches); find -name '*.pem': %.2f ms; ratio %.2fx (goal <= 1.2x)\n",
              glob_ms, matches, find_ms, glob_ms / find_ms);
  if (matches != static_cast<std::size_t>(pem)) {
    std::printf("ERROR: glob found %zu, expected %d\n", matches, pem);
    return 1;
  }

  // A typical project: a few dozen files, a repository layer, the default profile, an agent.
  const std::string base = std::filesystem::canonical(tmp.path().toStdString()).string();
  const std::string project = base + "/project", home = base + "/home";
  std::filesystem::create_directories(home + "/.claude");
  for (int i = 0; i < 40; ++i) {
    std::filesystem::create_directories(project + "/src/m" + std::to_string(i % 5));
    std::ofstream(project + "/src/m" + std::to_string(i % 5) + "/f" + std::to_string(i) + ".rs");
  }
  std::ofstream(project + "/.env") << "X=1\n";
  std::filesystem::create_directories(project + "/.paddock");
  std::ofstream(project + "/.paddock/policy.yaml")
      << "version: 1\nfilesystem: {deny: [$PROJECT/secrets]}\nnetwork: {presets: [cargo]}\nlimits: {memory: 4GiB}\n";
  paddock::Inputs in;
  in.project = project;
  in.agent = "claude-code";
  in.resources_dir = PADDOCK_SOURCE_DIR "/resources";
  in.environment = {{"HOME", home}, {"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"}, {"PADDOCK_SYSTEM_DIR", base + "/etc"}};
  std::string hash;
  const double eval_ms = median_ms(50, [&] {
    auto r = paddock::evaluate(in);
    if (!r.ok()) std::abort();
    hash = r->ir_hash;
  });
  const double explain_ms = median_ms(50, [&] {
    auto r = paddock::evaluate(in);
    if (!r.ok()) std::abort();
    (void)paddock::explain_json(*r).dump(2);
  });
  std::printf("evaluate (default + claude-code + repository layer): median %.2f ms, %.2fx of the 16 ms budget\n",
              eval_ms, eval_ms / 16.0);
  std::printf("explain --json for the same project: median %.2f ms, %.2fx of the 16 ms budget\n", explain_ms,
              explain_ms / 16.0);
  std::printf("ir_hash %s\n", hash.c_str());
  return 0;
}
