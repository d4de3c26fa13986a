#include "tests/support/test_paths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace paddock::test {
namespace {

[[noreturn]] void give_up(const std::string& what) {
  std::fprintf(stderr, "test_paths: %s\n", what.c_str());
  std::abort();
}

}  // namespace

const std::string& build_dir() {
  static const std::string dir = [] {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) give_up("cannot read /proc/self/exe: " + ec.message());
    for (p = p.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      if (std::filesystem::exists(p / "CMakeCache.txt", ec)) return p.string();
    give_up("no CMakeCache.txt above the test executable: run the tests from their build tree");
  }();
  return dir;
}

const std::string& source_dir() {
  static const std::string dir = [] {
    std::ifstream cache(build_dir() + "/CMakeCache.txt");
    const std::string key = "Paddock_SOURCE_DIR:STATIC=";
    for (std::string line; std::getline(cache, line);)
      if (line.rfind(key, 0) == 0) return line.substr(key.size());
    give_up(build_dir() + "/CMakeCache.txt names no Paddock_SOURCE_DIR");
  }();
  return dir;
}

std::string build_bin() { return build_dir() + "/" PADDOCK_BIN_REL; }
std::string build_libexec() { return build_dir() + "/" PADDOCK_LIBEXEC_REL; }
std::string build_data() { return build_dir() + "/" PADDOCK_DATA_REL; }
std::string test_data() { return source_dir() + "/tests/data"; }

}  // namespace paddock::test
