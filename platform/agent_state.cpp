#include "platform/agent_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/session/agent_state_layout.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/remove_tree.h"

namespace paddock::platform {
namespace {

constexpr const char* kOpaque = "user.overlay.opaque";

Error sys(const std::string& what, const std::string& path) {
  return internal_error(what + " " + path + ": " + std::strerror(errno));
}

bool is_whiteout(const struct stat& st) { return S_ISCHR(st.st_mode) && st.st_rdev == 0; }

bool is_opaque(const std::string& path) {
  char v[4];
  const ssize_t n = ::lgetxattr(path.c_str(), kOpaque, v, sizeof v);
  return n == 1 && v[0] == 'y';
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Removes path whatever it is (a tree too); absent is fine.
Status remove_any(const std::string& path) {
  const auto slash = path.rfind('/');
  UniqueFd parent(::open(slash == 0 ? "/" : path.substr(0, slash).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!parent.valid()) return errno == ENOENT ? Status::Ok() : sys("cannot open the directory of", path);
  return remove_tree_at(parent.get(), path.substr(slash + 1));
}

Status whiteout_at(const std::string& path) {
  if (auto s = remove_any(path); !s.ok()) return s;
  if (::mknod(path.c_str(), S_IFCHR | 0000, makedev(0, 0)) != 0)
    return sys("cannot make the whiteout (an empty character device 0/0, Linux 5.8+ lets any user make one)", path);
  return Status::Ok();
}

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

Status write_roots(const std::string& dir, const session::ReviewRoots& roots) {
  return write_file_atomic(session::review_roots_file(dir), session::encode_review_roots(roots));
}

Result<session::ReviewRoots> read_roots(const std::string& dir) {
  ReadOptions o;
  o.no_follow = true;
  auto bytes = read_file_if_exists(session::review_roots_file(dir), o);
  if (!bytes) return bytes.error();
  if (!*bytes) return session::ReviewRoots{};
  return session::decode_review_roots(**bytes);
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::string& path, bool exclusive) {
  FileLock l;
  l.fd_.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!l.fd_.valid()) return sys("cannot open the lock", path);
  while (::flock(l.fd_.get(), exclusive ? LOCK_EX : LOCK_SH) != 0)
    if (errno != EINTR) return sys("cannot lock", path);
  return l;
}

Result<std::optional<FileLock>> FileLock::try_acquire(const std::string& path, bool exclusive) {
  FileLock l;
  l.fd_.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!l.fd_.valid()) return sys("cannot open the lock", path);
  if (::flock(l.fd_.get(), (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return std::optional<FileLock>();
    return sys("cannot lock", path);
  }
  return std::optional<FileLock>(std::move(l));
}

Status FileLock::downgrade() {
  while (::flock(fd_.get(), LOCK_SH) != 0)
    if (errno != EINTR) return internal_error(std::string("cannot share a lock: ") + std::strerror(errno));
  return Status::Ok();
}

Result<session::ReviewRoots> prepare_agent_state(const std::string& dir, const std::vector<std::string>& roots) {
  for (const auto& d : {dir, dir + "/review", session::agent_state_sessions(dir), session::agent_state_empty(dir)})
    if (auto s = make_dirs(d); !s.ok()) return s.error();
  // roots.json changes only here, under a lock of its own: two sessions starting at once must not
  // give one root two layers.
  auto meta = FileLock::acquire(dir + "/roots.lock", /*exclusive=*/true);
  if (!meta) return meta.error();
  auto record = read_roots(dir);
  if (!record) return record.error();
  bool changed = false;
  if (record->started_ns == 0) {
    record->started_ns = now_ns();
    changed = true;
  }
  for (const auto& r : roots) {
    const bool known = std::any_of(record->roots.begin(), record->roots.end(),
                                   [&](const session::ReviewRoot& x) { return x.root == r; });
    if (known) continue;
    int next = 0;
    for (const auto& x : record->roots) next = std::max(next, x.index + 1);
    record->roots.push_back({next, r});
    changed = true;
  }
  for (const auto& r : record->roots)
    if (auto s = make_dirs(session::review_upper(dir, r.index)); !s.ok()) return s.error();
  if (changed)
    if (auto s = write_roots(dir, *record); !s.ok()) return s.error();
  return *record;
}

std::vector<std::string> ended_sessions(const std::string& dir, const std::string& except) {
  std::vector<std::string> out;
  for (const auto& id : names_in(session::agent_state_sessions(dir))) {
    // A session being made is locked under a dot name first, then renamed into place.
    if (id == except || id.empty() || id[0] == '.') continue;
    auto lock = FileLock::try_acquire(session::agent_state_session_lock(dir, id), /*exclusive=*/true);
    if (lock && *lock) out.push_back(id);  // free: its helper is gone
  }
  return out;
}

Result<std::vector<std::string>> commit_ended_sessions(const std::string& dir) {
  std::vector<std::string> done;
  for (const auto& id : ended_sessions(dir, "")) {
    const std::string session = session::agent_state_session(dir, id);
    for (const auto& n : names_in(session)) {
      if (n == "lock" || n.find_first_not_of("0123456789") != std::string::npos) continue;
      const int index = std::stoi(n);
      const std::string upper = session::agent_state_session_layer(dir, id, index, "upper");
      struct stat st {};
      if (::lstat(upper.c_str(), &st) != 0) continue;
      if (auto s = make_dirs(session::review_upper(dir, index)); !s.ok()) return s.error();
      if (auto s = merge_overlay_layer(upper, session::review_upper(dir, index)); !s.ok()) return s.error();
    }
    UniqueFd sessions(::open(session::agent_state_sessions(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sessions.valid()) return sys("cannot open", session::agent_state_sessions(dir));
    if (auto s = remove_tree_at(sessions.get(), id); !s.ok()) return s.error();
    done.push_back(id);
  }
  return done;
}

Status merge_overlay_layer(const std::string& upper, const std::string& into) {
  for (const auto& name : names_in(upper)) {
    const std::string u = upper + "/" + name, t = into + "/" + name;
    struct stat us {}, ts {};
    if (::lstat(u.c_str(), &us) != 0) continue;
    const bool target = ::lstat(t.c_str(), &ts) == 0;
    if (is_whiteout(us)) {
      // Deleted in the session: gone from the state, and the user's own copy below stays hidden.
      if (!(target && is_whiteout(ts)))
        if (auto s = whiteout_at(t); !s.ok()) return s;
      if (::unlink(u.c_str()) != 0) return sys("cannot remove", u);
      continue;
    }
    if (S_ISDIR(us.st_mode) && !is_opaque(u) && target && S_ISDIR(ts.st_mode)) {
      ::chmod(t.c_str(), us.st_mode & 07777);
      if (auto s = merge_overlay_layer(u, t); !s.ok()) return s;
      if (::rmdir(u.c_str()) != 0) return sys("cannot remove", u);
      continue;
    }
    // A file, a symlink, an opaque directory, or a directory where the state has none: moves in
    // whole. A plain directory over a whiteout (the state deleted it, another session then made
    // it) hides what lies below, as it did in that session.
    const bool hide_below = S_ISDIR(us.st_mode) && target && !S_ISDIR(ts.st_mode);
    if (target && S_ISDIR(ts.st_mode))
      if (auto s = remove_any(t); !s.ok()) return s;
    if (::rename(u.c_str(), t.c_str()) != 0) return sys("cannot move into the agent state", u);
    if (hide_below && ::lsetxattr(t.c_str(), kOpaque, "y", 1, 0) != 0) return sys("cannot mark as opaque", t);
  }
  return Status::Ok();
}

Result<std::optional<std::string>> read_through_layers(const std::vector<std::string>& layers, const std::string& rel,
                                                       std::size_t max_bytes) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i <= rel.size();) {
    std::size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    if (j > i) parts.push_back(rel.substr(i, j - i));
    i = j + 1;
  }
  if (parts.empty()) return bad_input("no file named");
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const std::string& layer = layers[li];
    std::string path = layer;
    bool stop_below = false, hidden = false;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      path += "/" + parts[i];
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0) {
        path.clear();
        break;
      }
      if (!S_ISDIR(st.st_mode)) {  // a whiteout or a file where a directory would be: hides below
        hidden = true;
        break;
      }
      if (is_opaque(path)) stop_below = true;
    }
    if (hidden) return std::optional<std::string>();
    if (path.empty()) {
      if (stop_below) return std::optional<std::string>();
      continue;
    }
    path += "/" + parts.back();
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
      if (is_whiteout(st)) return std::optional<std::string>();
      ReadOptions o;
      o.max_bytes = max_bytes;
      // A symlink in the user's own directory (the lowest layer) is followed, as their agent CLI
      // would; one in a layer the agent wrote is not: it could point at any file of the user's,
      // whose bytes would then be copied into the agent's view.
      o.no_symlinks = li + 1 < layers.size();
      auto bytes = read_file(path, o);
      if (!bytes) return bytes.error();
      return std::optional<std::string>(std::move(*bytes));
    }
    if (stop_below) return std::optional<std::string>();
  }
  return std::optional<std::string>();
}

Status make_whiteout(const std::string& layer, const std::string& rel) {
  const auto slash = rel.rfind('/');
  if (slash != std::string::npos)
    if (auto s = make_dirs(layer + "/" + rel.substr(0, slash), 0755); !s.ok()) return s;
  return whiteout_at(layer + "/" + rel);
}

Status put_layer_file(const std::string& layer, const std::string& rel, const std::string& bytes, unsigned mode) {
  const auto slash = rel.rfind('/');
  if (slash != std::string::npos)
    if (auto s = make_dirs(layer + "/" + rel.substr(0, slash), 0755); !s.ok()) return s;
  WriteOptions o;
  o.mode = mode;
  return write_file_atomic(layer + "/" + rel, bytes, o);
}

Result<ReviewSession> open_agent_state_review(const std::string& dir, const std::string& label, const std::string& home) {
  ReviewSession s;
  s.id = label;
  s.dir = dir;
  auto roots = read_roots(dir);
  if (!roots) return roots.error();
  if (roots->roots.empty()) return Error{ErrorCode::kNotFound, label + " has no Paddock agent state yet"};
  s.roots = std::move(*roots);
  ReadOptions o;
  o.no_follow = true;
  auto state = read_file_if_exists(session::review_state_file(dir), o);
  if (!state) return state.error();
  if (*state) {
    auto st = session::decode_review_state(**state);
    if (!st) return st.error();
    s.state = std::move(*st);
  }
  auto journal = read_file_if_exists(session::review_journal_file(dir), o);
  if (!journal) return journal.error();
  if (*journal) {
    auto j = session::decode_apply_journal(**journal);
    if (!j) return j.error();
    s.journal = std::move(*j);
  }
  s.ir.meta.home = home;
  return s;
}

Status reset_agent_state(const ReviewSession& state, const std::vector<std::string>& paths) {
  if (paths.empty()) {
    for (const auto& r : state.roots.roots) {
      UniqueFd layer(::open(session::review_layer_dir(state.dir, r.index).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!layer.valid()) continue;
      if (auto s = remove_tree_at(layer.get(), "upper"); !s.ok()) return s;
      if (auto s = make_dirs(session::review_upper(state.dir, r.index)); !s.ok()) return s;
    }
    session::ReviewRoots fresh = state.roots;
    fresh.started_ns = now_ns();
    if (auto s = write_roots(state.dir, fresh); !s.ok()) return s;
    UniqueFd review(::open((state.dir + "/review").c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (review.valid()) (void)remove_tree_at(review.get(), "state.json");
    return Status::Ok();
  }
  for (const auto& p : paths) {
    const auto upper = state.upper_path(p);
    if (!upper) return bad_input(p + " is in none of the agent's directories");
    const session::ReviewRoot* root = state.root_of(p);
    if (root && root->root == p) return reset_agent_state(state, {});
    if (auto s = remove_any(*upper); !s.ok()) return s;
  }
  return Status::Ok();
}

Status drop_applied(const ReviewSession& state, const std::vector<std::string>& applied) {
  std::vector<std::string> sorted = applied;
  // Children before their directories.
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (const auto& p : sorted) {
    const auto upper = state.upper_path(p);
    if (!upper) continue;
    const session::ReviewRoot* root = state.root_of(p);
    if (root && root->root == p) continue;  // the root itself stays
    struct stat st {};
    if (::lstat(upper->c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (names_in(*upper).empty()) ::rmdir(upper->c_str());
      continue;
    }
    if (::unlink(upper->c_str()) != 0 && errno != ENOENT) return sys("cannot drop", *upper);
  }
  return Status::Ok();
}

}  // namespace paddock::platform
