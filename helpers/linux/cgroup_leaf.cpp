#include "helpers/linux/cgroup_leaf.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "helpers/linux/sys_error.h"
#include "platform/read_file.h"

namespace paddock::helper {
namespace {

// Small kernel files (mountinfo, cgroup.procs, *.events): one buffer, no iostream (start-up cost).
std::string slurp(const std::string& path) {
  auto text = platform::read_file(path);
  return text ? *text : std::string();
}

Status write_value(const std::string& path, const std::string& value) {
  FILE* f = std::fopen(path.c_str(), "we");
  if (!f) return sys_error("cgroup: cannot open", path);
  bool ok = std::fputs(value.c_str(), f) >= 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return sys_error("cgroup: cannot write '" + value + "' to", path);
  return Status::Ok();
}

// v1: controller -> "<mount point><own path>" for this process.
std::map<std::string, std::string> v1_dirs() {
  std::map<std::string, std::string> mounts, own, out;
  std::istringstream mi(slurp("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(mi, line)) {
    std::istringstream f(line);
    std::string a, b, c, d, mp, tok;
    f >> a >> b >> c >> d >> mp;
    while (f >> tok && tok != "-") {}
    std::string fstype, source, opts;
    f >> fstype >> source >> opts;
    if (fstype != "cgroup") continue;
    std::istringstream o(opts);
    std::string opt;
    while (std::getline(o, opt, ',')) mounts.emplace(opt, mp);
  }
  std::istringstream cg(slurp("/proc/self/cgroup"));
  while (std::getline(cg, line)) {
    auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    std::istringstream ctrls(line.substr(c1 + 1, c2 - c1 - 1));
    std::string ctrl;
    while (std::getline(ctrls, ctrl, ',')) own[ctrl] = line.substr(c2 + 1);
  }
  for (const auto& [ctrl, mp] : mounts)
    if (auto it = own.find(ctrl); it != own.end())
      out[ctrl] = mp + (it->second == "/" ? "" : it->second);
  return out;
}

// The first cgroup2 mount point in mountinfo ("<id> <parent> <dev> <root> <mount point> <opts>
// [optional fields] - <fstype> <source> <super opts>"), scanned without a stream per line.
std::string v2_mount_point(const std::string& mountinfo) {
  for (std::size_t pos = 0; pos < mountinfo.size();) {
    std::size_t eol = mountinfo.find('\n', pos);
    if (eol == std::string::npos) eol = mountinfo.size();
    const std::string_view line(mountinfo.data() + pos, eol - pos);
    pos = eol + 1;
    const std::size_t sep = line.find(" - ");
    if (sep == std::string_view::npos || line.substr(sep + 3, 8) != "cgroup2 ") continue;
    std::size_t start = 0;
    for (int field = 0; field < 4 && start != std::string_view::npos; ++field) {
      start = line.find(' ', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start == std::string_view::npos) continue;
    return std::string(line.substr(start, line.find(' ', start) - start));
  }
  return {};
}

std::string v2_own_dir() {
  const std::string mount = v2_mount_point(slurp("/proc/self/mountinfo"));
  if (mount.empty()) return {};
  std::string line;
  std::istringstream cg(slurp("/proc/self/cgroup"));
  while (std::getline(cg, line))
    if (line.rfind("0::", 0) == 0) {
      std::string own = line.substr(3);
      return mount + (own == "/" ? "" : own);
    }
  return {};
}

}  // namespace

Result<CgroupLeaf> CgroupLeaf::create(const linux_backend::CgroupPlan& plan, const std::string& name) {
  CgroupLeaf leaf;
  using linux_backend::CgroupMechanism;
  if (plan.mechanism == CgroupMechanism::kNone) return leaf;
  const std::string leaf_name = "paddock-" + name;
  if (plan.mechanism == CgroupMechanism::kV2) {
    std::string parent = v2_own_dir();
    if (parent.empty()) return refused("cgroup v2 is not mounted; the plan needs it for limits");
    std::string dir = parent + "/" + leaf_name;
    if (::mkdir(dir.c_str(), 0755) != 0) return sys_error("cgroup: cannot create leaf", dir);
    leaf.dirs_.push_back(dir);
    leaf.v2_ = true;
    if (plan.memory_max) {
      if (auto s = write_value(dir + "/memory.max", std::to_string(*plan.memory_max)); !s) return s.error();
      // No swap escape hatch: the memory limit means memory.
      (void)write_value(dir + "/memory.swap.max", "0");
    }
    if (plan.pids_max)
      if (auto s = write_value(dir + "/pids.max", std::to_string(*plan.pids_max)); !s) return s.error();
    return leaf;
  }
  auto dirs = v1_dirs();
  auto make = [&](const std::string& ctrl) -> Result<std::string> {
    auto it = dirs.find(ctrl);
    if (it == dirs.end()) return refused("cgroup v1 controller '" + ctrl + "' is not mounted");
    std::string dir = it->second + "/" + leaf_name;
    if (::mkdir(dir.c_str(), 0755) != 0) return sys_error("cgroup: cannot create leaf", dir);
    leaf.dirs_.push_back(dir);
    return dir;
  };
  // pids always: it is also the kill tree's membership list.
  auto pids = make("pids");
  if (!pids) return pids.error();
  if (plan.pids_max)
    if (auto s = write_value(*pids + "/pids.max", std::to_string(*plan.pids_max)); !s) return s.error();
  if (plan.memory_max) {
    auto mem = make("memory");
    if (!mem) return mem.error();
    if (auto s = write_value(*mem + "/memory.limit_in_bytes", std::to_string(*plan.memory_max)); !s)
      return s.error();
  }
  return leaf;
}

Status CgroupLeaf::add(pid_t pid) {
  for (const auto& dir : dirs_)
    if (auto s = write_value(dir + "/cgroup.procs", std::to_string(pid)); !s) return s;
  return Status::Ok();
}

Result<std::vector<platform::UniqueFd>> CgroupLeaf::open_v1_tasks_files(bool of_parent) const {
  std::vector<platform::UniqueFd> fds;
  if (v2_) return fds;
  for (const auto& leaf_dir : dirs_) {
    const std::string dir = of_parent ? leaf_dir.substr(0, leaf_dir.rfind('/')) : leaf_dir;
    platform::UniqueFd fd(::open((dir + "/tasks").c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return sys_error("cgroup: cannot open", dir + "/tasks");
    fds.push_back(std::move(fd));
  }
  return fds;
}

namespace {

// "paddock-20261130T001445Z-..." -> that time; nullopt for any other name (left alone).
std::optional<time_t> leaf_started(const char* name) {
  constexpr std::string_view prefix = "paddock-";
  std::string_view n(name);
  if (n.substr(0, prefix.size()) != prefix || n.size() < prefix.size() + 16) return std::nullopt;
  tm t{};
  const char* end = ::strptime(name + prefix.size(), "%Y%m%dT%H%M%SZ", &t);
  if (!end) return std::nullopt;
  return ::timegm(&t);
}

}  // namespace

void CgroupLeaf::sweep_stale_siblings() const {
  const time_t now = ::time(nullptr);
  for (const auto& dir : dirs_) {
    const auto slash = dir.rfind('/');
    DIR* d = ::opendir(dir.substr(0, slash).c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      if (e->d_type != DT_DIR || dir.compare(slash + 1, std::string::npos, e->d_name) == 0) continue;
      auto started = leaf_started(e->d_name);
      if (!started || now - *started < 60) continue;
      (void)::unlinkat(::dirfd(d), e->d_name, AT_REMOVEDIR);  // EBUSY while anything is inside
    }
    ::closedir(d);
  }
}

void CgroupLeaf::kill_all() {
  if (dirs_.empty()) return;
  // Nothing left (the usual case once init is gone): writing cgroup.kill would still cost a
  // synchronisation round in the kernel.
  if (process_count() == 0) return;
  if (v2_ && write_value(dirs_[0] + "/cgroup.kill", "1")) return;
  // v1 (or v2 before 5.14): kill every member until none is left; new forks land in the same
  // group, so loop until a pass finds it empty.
  for (int pass = 0; pass < 1000; ++pass) {
    std::istringstream procs(slurp(dirs_[0] + "/cgroup.procs"));
    pid_t pid;
    bool any = false;
    while (procs >> pid) {
      any = true;
      ::kill(pid, SIGKILL);
    }
    if (!any) return;
    ::usleep(1000);
  }
}

std::vector<std::string> CgroupLeaf::limits_hit() const {
  std::vector<std::string> out;
  auto counter = [&](const std::string& file, const std::string& key) -> long {
    std::istringstream in(slurp(file));
    std::string k;
    long v = 0;
    while (in >> k >> v)
      if (k == key) return v;
    return 0;
  };
  for (const auto& dir : dirs_) {
    if (v2_) {
      if (counter(dir + "/memory.events", "oom_kill") > 0) out.push_back("memory");
      if (counter(dir + "/pids.events", "max") > 0) out.push_back("processes");
    } else if (dir.find("/memory/") != std::string::npos || dir.find("/memory,") != std::string::npos) {
      std::istringstream in(slurp(dir + "/memory.failcnt"));
      long v = 0;
      if (in >> v && v > 0) out.push_back("memory");
    } else if (dir.find("pids") != std::string::npos) {
      if (counter(dir + "/pids.events", "max") > 0) out.push_back("processes");
    }
  }
  return out;
}

long CgroupLeaf::process_count() const {
  if (dirs_.empty()) return 0;
  std::istringstream procs(slurp(dirs_[0] + "/cgroup.procs"));
  long n = 0;
  pid_t pid;
  while (procs >> pid) ++n;
  return n;
}

CgroupLeaf::Counters CgroupLeaf::counters() const {
  Counters c;
  // One number in a file ("max" or an absent file: none).
  auto number = [](const std::string& path) -> std::optional<std::int64_t> {
    auto text = platform::read_file(path);
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    std::int64_t v = 0;
    if (in >> v) return v;
    return std::nullopt;
  };
  for (const auto& dir : dirs_) {
    if (v2_) {
      std::istringstream stat(slurp(dir + "/cpu.stat"));  // core file of every v2 cgroup
      std::string k;
      std::int64_t v = 0;
      while (stat >> k >> v)
        if (k == "usage_usec") c.cpu_usec = v;
    }
    if (!c.memory_bytes) c.memory_bytes = number(dir + (v2_ ? "/memory.current" : "/memory.usage_in_bytes"));
    if (!c.tasks) c.tasks = number(dir + "/pids.current");
  }
  return c;
}

void CgroupLeaf::remove() {
  if (dirs_.empty()) return;
  kill_all();
  for (const auto& dir : dirs_)
    for (int i = 0; i < 200 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i) ::usleep(5000);
  dirs_.clear();
}

}  // namespace paddock::helper
