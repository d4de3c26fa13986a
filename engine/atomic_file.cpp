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
  const std::string stem = "." + target.filename().string() + ".tmp" + std::to_string(rd());
  // A private file is written inside a fresh directory that is made owner-only before anything
  // is created in it: portable C++ cannot create a file with a mode, and a file created with the
  // umask's mode and narrowed afterwards could be opened by someone else in between (and read
  // through that descriptor once written). Lookups in the directory are checked when they happen,
  // so nobody else can open the file once the directory is 0700.
  const fs::path private_dir = target.parent_path() / (stem + ".d");
  if (private_file) {
    if (!fs::create_directory(private_dir, ec) || ec)
      return internal_error("cannot create " + private_dir.string() + ": " + (ec ? ec.message() : "exists"));
    fs::permissions(private_dir, fs::perms::owner_all, ec);
    if (ec) {
      fs::remove(private_dir, ec);
      return internal_error("cannot restrict " + private_dir.string() + ": " + ec.message());
    }
  }
  const fs::path tmp = private_file ? private_dir / target.filename() : target.parent_path() / stem;
  auto cleanup = [&] {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    if (private_file) fs::remove(private_dir, ignored);
  };
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      cleanup();
      return internal_error("cannot write " + tmp.string());
    }
    if (private_file) fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write, ec);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f || ec) {
      cleanup();
      return internal_error("cannot write " + tmp.string());
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    cleanup();
    return internal_error("cannot replace " + path + ": " + why);
  }
  if (private_file) fs::remove(private_dir, ec);
  return {};
}

}  // namespace paddock
