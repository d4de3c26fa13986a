#include "engine/path_cache.h"

#include <algorithm>

namespace paddock {
namespace fs = std::filesystem;

fs::file_status PathCache::status(const fs::path& p, std::error_code& ec) {
  auto [it, fresh] = status_.try_emplace(p.native());
  if (fresh) {
    // status and symlink_status differ only where p itself is a symlink: one lstat answers both
    // for everything else (an absent path included), and the builder asks both about most paths.
    std::error_code lec;
    const fs::file_status l = symlink_status(p, lec);
    if (l.type() != fs::file_type::symlink) it->second = {l, lec};
    else it->second.first = fs::status(p, it->second.second);
  }
  ec = it->second.second;
  return it->second.first;
}

fs::file_status PathCache::symlink_status(const fs::path& p, std::error_code& ec) {
  auto [it, fresh] = lstatus_.try_emplace(p.native());
  if (fresh) it->second.first = fs::symlink_status(p, it->second.second);
  ec = it->second.second;
  return it->second.first;
}

#ifndef _WIN32  // the cache's keys are these strings
fs::file_status PathCache::status(const std::string& p, std::error_code& ec) {
  if (auto it = status_.find(p); it != status_.end()) {
    ec = it->second.second;
    return it->second.first;
  }
  return status(fs::path(p), ec);
}

fs::file_status PathCache::symlink_status(const std::string& p, std::error_code& ec) {
  if (auto it = lstatus_.find(p); it != lstatus_.end()) {
    ec = it->second.second;
    return it->second.first;
  }
  return symlink_status(fs::path(p), ec);
}

fs::path PathCache::canonical(const std::string& p, std::error_code& ec) {
  if (auto it = canonical_.find(p); it != canonical_.end()) {
    ec = it->second.second;
    return it->second.first;
  }
  return canonical(fs::path(p), ec);
}
#else
fs::file_status PathCache::status(const std::string& p, std::error_code& ec) { return status(fs::path(p), ec); }
fs::file_status PathCache::symlink_status(const std::string& p, std::error_code& ec) {
  return symlink_status(fs::path(p), ec);
}
fs::path PathCache::canonical(const std::string& p, std::error_code& ec) { return canonical(fs::path(p), ec); }
#endif

void PathCache::treat_as_absent(const std::string& p) {
  const Answer absent{fs::file_status(fs::file_type::not_found), std::make_error_code(std::errc::no_such_file_or_directory)};
  const fs::path key(p);
  status_[key.native()] = absent;
  lstatus_[key.native()] = absent;
  canonical_[key.native()] = {fs::path(), absent.second};
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
namespace {

// An absolute path without empty, "." or ".." components and without a trailing slash: what
// expand_vars and the glob walk produce. For these the walk below can work on the string itself.
[[maybe_unused]] bool plain_absolute(const std::string& s) {
  if (s.size() < 2 || s[0] != '/' || s.back() == '/') return false;
  for (std::size_t i = 1; i < s.size();) {
    const std::size_t end = std::min(s.find('/', i), s.size());
    const std::size_t n = end - i;
    if (n == 0 || (n == 1 && s[i] == '.') || (n == 2 && s[i] == '.' && s[i + 1] == '.')) return false;
    i = end + 1;
  }
  return true;
}

}  // namespace

fs::path PathCache::weakly_canonical(const fs::path& p, std::error_code& ec) {
#ifndef _WIN32  // POSIX paths only: on Windows native() is a wide string with drive letters
  if (plain_absolute(p.native())) return weakly_canonical_plain(p.native(), ec);
#endif
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

// The same steps on a plain absolute path, as strings (building and splitting std::filesystem
// paths was most of the remaining cost): its elements are "/" and then each component, a prefix
// is the string up to a slash, and appending plain components to a canonical path leaves nothing
// for lexically_normal to change.
fs::path PathCache::weakly_canonical_plain(const std::string& s, std::error_code& ec) {
  fs::file_status st = status(s, ec);
  if (fs::exists(st)) return canonical(s, ec);
  if (fs::status_known(st)) ec.clear();
  else return {};
  std::string result;
  std::size_t rest = 0;  // where the first component not (yet) known to exist starts
  if (st = status(std::string("/"), ec); fs::exists(st)) {
    result = "/";
    rest = 1;
    while (rest < s.size()) {
      const std::size_t end = std::min(s.find('/', rest), s.size());
      const std::string tmp = s.substr(0, end);
      st = status(tmp, ec);
      if (!fs::exists(st)) {
        if (fs::status_known(st)) ec.clear();
        break;
      }
      result = tmp;
      rest = end + 1;
    }
  } else if (fs::status_known(st)) {
    ec.clear();
  }
  fs::path out;
  if (!ec && !result.empty()) out = canonical(result, ec);
  if (ec) return {};
  if (rest < s.size()) {
    std::string tail = out.string();
    if (!tail.empty() && tail.back() != '/') tail += '/';
    tail.append(s, rest, std::string::npos);
    return fs::path(std::move(tail));
  }
  return out;
}

}  // namespace paddock
