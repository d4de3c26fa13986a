#include "engine/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

namespace paddock {
namespace fs = std::filesystem;

Status write_file_atomic(const std::string& path, const std::string& bytes, bool private_file) {
  std::error_code ec;
  const fs::path target(path);
  fs::create_directories(target.parent_path(), ec);
  if (ec) return internal_error("cannot create " + target.parent_path().string() + ": " + ec.message());
  std::random_device rd;
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(rd()));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return internal_error("cannot write " + tmp.string());
    if (private_file) fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write, ec);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      return internal_error("cannot write " + tmp.string());
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return internal_error("cannot replace " + path + ": " + ec.message());
  }
  return {};
}

}  // namespace paddock
