#include "helpers/linux/tree_usage.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/read_file.h"

namespace paddock::helper {
namespace {

struct ProcStat {
  pid_t ppid = 0;
  std::int64_t ticks = 0;  // utime + stime + cutime + cstime
  std::int64_t threads = 0;
  std::int64_t rss_pages = 0;
};

// /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so the
// fields are counted from the last ')'. Field numbers as in proc(5).
std::optional<ProcStat> read_stat(const char* pid) {
  auto text = platform::read_file(std::string("/proc/") + pid + "/stat", {.max_bytes = 4096, .prefix = true});
  if (!text) return std::nullopt;
  const auto close = text->rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::int64_t> f(25, 0);  // f[n] = field n; field 3 (state) is a letter, skipped
  const char* p = text->c_str() + close + 2;
  for (int n = 3; n <= 24 && *p; ++n) {
    if (n != 3) f[static_cast<std::size_t>(n)] = std::strtoll(p, nullptr, 10);
    const char* space = std::strchr(p, ' ');
    if (!space) break;
    p = space + 1;
  }
  ProcStat s;
  s.ppid = static_cast<pid_t>(f[4]);
  s.ticks = f[14] + f[15] + f[16] + f[17];
  s.threads = f[20];
  s.rss_pages = f[24];
  return s;
}

std::optional<std::int64_t> rlimit_of(const std::vector<linux_backend::Rlimit>& rlimits,
                                      linux_backend::RlimitResource resource) {
  for (const auto& r : rlimits)
    if (r.resource == resource) return static_cast<std::int64_t>(r.value);
  return std::nullopt;
}

}  // namespace

ProcTreeUsage proc_tree_usage(pid_t root, bool include_root) {
  std::map<pid_t, ProcStat> all;
  std::multimap<pid_t, pid_t> children;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      if (auto s = read_stat(e->d_name)) {
        const pid_t pid = static_cast<pid_t>(std::atol(e->d_name));
        children.emplace(s->ppid, pid);
        all.emplace(pid, *s);
      }
    }
    ::closedir(d);
  }
  ProcTreeUsage u;
  if (!all.count(root)) return u;
  const long tick = ::sysconf(_SC_CLK_TCK), page = ::sysconf(_SC_PAGESIZE);
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t pid = todo.back();
    todo.pop_back();
    if (pid != root || include_root) {
      const ProcStat& s = all.at(pid);
      u.cpu_ms += s.ticks * 1000 / (tick > 0 ? tick : 100);
      u.rss_bytes += s.rss_pages * page;
      u.tasks += s.threads;
    }
    auto [from, to] = children.equal_range(pid);
    for (auto it = from; it != to; ++it)
      if (all.count(it->second)) todo.push_back(it->second);
  }
  return u;
}

session::LiveUsage measure_usage(const CgroupLeaf& leaf, pid_t root, bool include_root,
                                 const linux_backend::CgroupPlan& cgroup, const std::vector<linux_backend::Rlimit>& rlimits) {
  session::LiveUsage u;
  CgroupLeaf::Counters c = leaf.active() ? leaf.counters() : CgroupLeaf::Counters{};
  // The leaf's memory charge (page cache and tmpfs included) is what memory.max counts; where
  // the limit is RLIMIT_DATA or there is none, resident memory is the closer measure.
  if (!cgroup.memory_max) c.memory_bytes.reset();
  std::optional<ProcTreeUsage> tree;
  if (!c.cpu_usec || !c.memory_bytes || !c.tasks) tree = proc_tree_usage(root, include_root);
  u.cpu_ms = c.cpu_usec ? *c.cpu_usec / 1000 : tree->cpu_ms;
  u.memory_bytes = c.memory_bytes ? *c.memory_bytes : tree->rss_bytes;
  u.processes = c.tasks ? *c.tasks : tree->tasks;
  if (auto cpu = rlimit_of(rlimits, linux_backend::RlimitResource::kCpu)) u.limits.cpu_ms = *cpu * 1000;
  u.limits.memory_bytes = cgroup.memory_max ? cgroup.memory_max : rlimit_of(rlimits, linux_backend::RlimitResource::kData);
  u.limits.processes = cgroup.pids_max ? cgroup.pids_max : rlimit_of(rlimits, linux_backend::RlimitResource::kNproc);
  return u;
}

}  // namespace paddock::helper
