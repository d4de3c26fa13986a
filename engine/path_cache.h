// One evaluation's memo of the file-system questions path resolution asks (`paddock run` resolves
// dozens of paths with std::filesystem::weakly_canonical, and every call re-stat'ed and
// re-readlink'ed the same parent directories; docs/cli.md, "run: start-up"). Answers are exactly
// what std::filesystem gives (the same calls, asked once per distinct path), so resolved paths, the
// IR and its hash do not change. An evaluation does not write to the file system, so its answers
// cannot go stale inside it; a cache never outlives the EvalContext that owns it.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>

namespace paddock {

class PathCache {
 public:
  // std::filesystem::weakly_canonical(p, ec): same result, same error.
  std::filesystem::path weakly_canonical(const std::filesystem::path& p, std::error_code& ec);
  // std::filesystem::status / symlink_status / canonical, memoised by the exact path string.
  std::filesystem::file_status status(const std::filesystem::path& p, std::error_code& ec);
  std::filesystem::file_status symlink_status(const std::filesystem::path& p, std::error_code& ec);
  std::filesystem::path canonical(const std::filesystem::path& p, std::error_code& ec);
  // The same for a path held as a string: a remembered answer costs no std::filesystem::path
  // (building one splits the string into components), which the builder's hundreds of list
  // paths made a measurable share of an evaluation.
  std::filesystem::file_status status(const std::string& p, std::error_code& ec);
  std::filesystem::file_status symlink_status(const std::string& p, std::error_code& ec);
  std::filesystem::path canonical(const std::string& p, std::error_code& ec);
  std::filesystem::file_status status(const char* p, std::error_code& ec) { return status(std::string(p), ec); }
  // From now on `p` (exactly this string) is answered as absent, whatever is there: Paddock's
  // own placeholder for an absent path (Inputs::placeholders).
  void treat_as_absent(const std::string& p);

 private:
  std::filesystem::path weakly_canonical_plain(const std::string& p, std::error_code& ec);
  using Answer = std::pair<std::filesystem::file_status, std::error_code>;
  using Key = std::filesystem::path::string_type;  // wide on Windows
  std::map<Key, Answer> status_, lstatus_;
  std::map<Key, std::pair<std::filesystem::path, std::error_code>> canonical_;
};

}  // namespace paddock
