#include "engine/path_cache.h"

namespace paddock {
namespace fs = std::filesystem;

fs::file_status PathCache::status(const fs::path& p, std::error_code& ec) {
  auto [it, fresh] = status_.try_emplace(p.native());
  if (fresh) it->second.first = fs::status(p, it->second.second);
  ec = it->second.second;
  return it->second.first;
}

fs::file_status PathCache::symlink_status(const fs::path& p, std::error_code& ec) {
  auto [it, fresh] = lstatus_.try_emplace(p.native());
  if (fresh) it->second.first = fs::symlink_status(p, it->second.second);
  ec = it->second.second;
  return it->second.first;
}

fs::path PathCache::canonical(const fs::path& p, std::error_code& ec) {
  auto [it, fresh] = canonical_.try_emplace(p.native());
  if (fresh) it->second.first = fs::canonical(p, it->second.second);
  ec = it->second.second;
  return it->second.first;
}

// The algorithm of libstdc++'s weakly_canonical (GCC 12), step for step, over the memoised
// status and canonical: the longest leading part that exists is made canonical, the rest is
// appended and the whole normalised lexically. The leading parts ("/", "/home", "/home/u", ...)
// are what repeat from one path to the next, and each is now asked about once.
fs::path PathCache::weakly_canonical(const fs::path& p, std::error_code& ec) {
  fs::path result;
  fs::file_status st = status(p, ec);
  if (fs::exists(st)) return canonical(p, ec);
  if (fs::status_known(st)) ec.clear();
  else return result;

  fs::path tmp;
  auto iter = p.begin(), end = p.end();
  while (iter != end) {
    tmp = result / *iter;
    st = status(tmp, ec);
    if (fs::exists(st)) {
      swap(result, tmp);
    } else {
      if (fs::status_known(st)) ec.clear();
      break;
    }
    ++iter;
  }
  if (!ec && !result.empty()) result = canonical(result, ec);
  if (ec) {
    result.clear();
  } else {
    while (iter != end) result /= *iter++;
    result = result.lexically_normal();
  }
  return result;
}

}  // namespace paddock
