#include "tests/support/test_util.h"

#include <dirent.h>

#include <fstream>
#include <sstream>

namespace paddock::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

QByteArray dump(const ProcessResult& r) {
  return QByteArray::fromStdString("exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "stderr:\n" + r.err);
}

int count_processes_with(const std::string& marker) {
  int n = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string base = std::string("/proc/") + e->d_name;
    std::string cmdline = slurp(base + "/cmdline");
    for (auto& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(marker) == std::string::npos) continue;
    const std::string stat = slurp(base + "/stat");
    auto rp = stat.rfind(')');
    if (rp != std::string::npos && rp + 2 < stat.size() && stat[rp + 2] == 'Z') continue;
    ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace paddock::test
