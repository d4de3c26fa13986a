#include "tests/support/test_util.h"

#include <dirent.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <QtTest>

#include "tests/support/process_runner.h"
#include "tests/support/skip.h"

namespace paddock::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream(path, std::ios::binary) << text;
}

QByteArray dump(const ProcessResult& r) {
  return QByteArray::fromStdString("exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "stderr:\n" + r.err);
}

namespace {

// The users each case runs as: root and uid 65534, or only this uid when the suite is not root.
std::vector<std::pair<std::string, uint>> row_users() {
  const uid_t self = ::geteuid();
  if (self == 0) return {{"root", 0u}, {"uid65534", 65534u}};
  // Not root: this process can neither be root nor become uid 65534. The root row is not run
  // (and says so in the skip record) instead of running as this uid under root's name; the
  // unprivileged row runs as this uid, under its own name.
  record_skip(SkipFact::kUser, "the suite runs as uid " + std::to_string(self) + ", not root", {}, "root");
  return {{"uid" + std::to_string(self), static_cast<uint>(self)}};
}

}  // namespace

void add_uid_rows() {
  QTest::addColumn<uint>("uid");
  for (const auto& [name, uid] : row_users()) QTest::newRow(name.c_str()) << uid;
}

void add_uid_and_tier_rows(bool landlock) {
  QTest::addColumn<uint>("uid");
  QTest::addColumn<QString>("tier");
  const auto users = row_users();
  for (const auto& [name, uid] : users) QTest::newRow(name.c_str()) << uid << QString("namespaces");
  if (landlock)
    for (const auto& [name, uid] : users) QTest::newRow((name + "-landlock").c_str()) << uid << QString("landlock");
}

std::vector<std::string> tier_run_argv(const std::string& tier) {
  auto argv = paddock_run_argv(tier == "landlock");
  if (tier == "landlock") argv.insert(argv.end(), {"--net", "off"});
  return argv;
}

std::vector<std::string> as_uid(uid_t uid) {
  if (uid == 0 || uid == ::geteuid()) return {};
  return {"setpriv", "--reuid=" + std::to_string(uid), "--regid=" + std::to_string(uid), "--clear-groups"};
}

void chown_tree(const std::string& path, uid_t uid) {
  namespace fs = std::filesystem;
  ::lchown(path.c_str(), uid, uid);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, ec); it != fs::recursive_directory_iterator(); ++it)
    ::lchown(it->path().c_str(), uid, uid);
}

namespace {

// Live (non-zombie) processes whose raw /proc/PID/cmdline (NUL-separated) satisfies `match`.
template <class Match>
int count_processes(Match match) {
  int n = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string base = std::string("/proc/") + e->d_name;
    if (!match(slurp(base + "/cmdline"))) continue;
    const std::string stat = slurp(base + "/stat");
    auto rp = stat.rfind(')');
    if (rp != std::string::npos && rp + 2 < stat.size() && stat[rp + 2] == 'Z') continue;
    ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace

int count_processes_with(const std::string& marker) {
  return count_processes([&](std::string cmdline) {
    for (auto& c : cmdline)
      if (c == '\0') c = ' ';
    return cmdline.find(marker) != std::string::npos;
  });
}

int count_processes_running(const std::vector<std::string>& argv) {
  std::string want;
  for (const auto& a : argv) want += a + '\0';
  return count_processes([&](const std::string& cmdline) { return cmdline == want; });
}

}  // namespace paddock::test
