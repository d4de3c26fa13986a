#include "helpers/linux/review_layers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "engine/session/review_record.h"
#include "platform/atomic_file.h"
#include "platform/remove_tree.h"
#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

using linux_backend::MountOp;

bool within(const std::string& path, const std::string& root) {
  return root == "/" || path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                                         path[root.size()] == '/');
}

// What the session keeps free on the file system its upper layers are on: 2% of it, at least
// 64 MiB and at most 1 GiB. The agent's writes fill the user's own disk (the session's directory
// is in their home), so the session ends before the rest of the user's work could not be saved.
std::int64_t reserve_of(const struct statvfs& st) {
  const std::int64_t total = static_cast<std::int64_t>(st.f_blocks) * static_cast<std::int64_t>(st.f_frsize);
  return std::clamp<std::int64_t>(total / 50, std::int64_t{64} << 20, std::int64_t{1} << 30);
}

std::int64_t free_of(const struct statvfs& st) {
  return static_cast<std::int64_t>(st.f_bavail) * static_cast<std::int64_t>(st.f_frsize);
}

std::string mib(std::int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

Status make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0)
    return refused("review mode: cannot create " + path + ": " + std::strerror(errno) + " (nothing was run)");
  return Status::Ok();
}

}  // namespace

Result<ReviewLayers> ReviewLayers::prepare(const std::vector<linux_backend::MountStep>& steps, const std::string& session_dir) {
  ReviewLayers out;
  std::vector<std::string> roots;
  for (const auto& s : steps)
    if (s.op == MountOp::kOverlay) roots.push_back(s.source);
  if (roots.empty()) return out;
  if (session_dir.empty()) return refused("review mode needs a session directory to hold the agent's writes (nothing was run)");
  char real[PATH_MAX];
  if (!::realpath(session_dir.c_str(), real))
    return refused("review mode: cannot resolve the session directory " + session_dir + ": " + std::strerror(errno));
  for (const auto& r : roots)
    if (within(real, r))
      return refused("review mode: the session directory " + std::string(real) + " is inside the write root " + r +
                     ", which cannot hold the agent's writes to itself; set XDG_STATE_HOME to a directory outside " +
                     r + " (nothing was run)");
  struct statvfs fs {};
  if (::statvfs(real, &fs) != 0) return refused("review mode: cannot read the free space of " + std::string(real) + ": " + std::strerror(errno));
  out.reserve_ = reserve_of(fs);
  if (free_of(fs) < 2 * out.reserve_)
    return refused("review mode: only " + mib(free_of(fs)) + " free where the agent's writes would be held (" +
                   std::string(real) + "); it needs at least " + mib(2 * out.reserve_) + ": free some space (nothing was run)");
  out.dir_ = session::review_dir(real);
  if (auto s = make_dir(out.dir_); !s) return s.error();
  session::ReviewRoots record;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  record.started_ns = static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const int index = static_cast<int>(i);
    const std::string upper = session::review_upper(real, index), work = session::review_work(real, index);
    for (const auto& d : {session::review_layer_dir(real, index), upper, work})
      if (auto s = make_dir(d); !s) return s.error();
    // The merged view's top directory is the upper layer's: give it the host directory's mode (and,
    // for root, its owner), so the agent sees the project's own permissions there.
    struct stat st {};
    if (::stat(roots[i].c_str(), &st) == 0) {
      ::chmod(upper.c_str(), st.st_mode & 07777);
      if (::geteuid() == 0 && ::chown(upper.c_str(), st.st_uid, st.st_gid) != 0)
        return refused("review mode: cannot give " + upper + " the owner of " + roots[i] + ": " + std::strerror(errno));
    }
    struct stat us {}, ws {};
    if (::lstat(upper.c_str(), &us) != 0 || ::lstat(work.c_str(), &ws) != 0)
      return refused("review mode: cannot read " + upper + ": " + std::strerror(errno));
    out.dirs_.push_back({{upper, static_cast<std::uint64_t>(us.st_dev), static_cast<std::uint64_t>(us.st_ino)},
                         {work, static_cast<std::uint64_t>(ws.st_dev), static_cast<std::uint64_t>(ws.st_ino)}});
    record.roots.push_back({index, roots[i]});
  }
  if (auto s = platform::write_file_atomic(session::review_roots_file(real), session::encode_review_roots(record)); !s.ok())
    return refused("review mode: cannot record the review roots: " + s.error().message + " (nothing was run)");
  return out;
}

void ReviewLayers::remove_unused() const {
  if (dir_.empty()) return;
  platform::UniqueFd review(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!review.valid()) return;
  for (std::size_t i = 0; i < dirs_.size(); ++i) (void)platform::remove_tree_at(review.get(), std::to_string(i));
}

std::optional<std::int64_t> ReviewLayers::below_reserve() const {
  if (dir_.empty()) return std::nullopt;
  struct statvfs fs {};
  if (::statvfs(dir_.c_str(), &fs) != 0) return std::nullopt;
  const std::int64_t left = free_of(fs);
  if (left < reserve_) return left;
  return std::nullopt;
}

}  // namespace paddock::helper
