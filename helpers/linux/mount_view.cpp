#include "helpers/linux/mount_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "helpers/linux/mount_view_fd.h"
#include "helpers/linux/placeholders.h"
#include "helpers/linux/sys_error.h"
#include "platform/unique_fd.h"

namespace paddock::helper {
namespace {

using linux_backend::MountOp;
using platform::UniqueFd;
using linux_backend::MountStep;
using linux_backend::TmpfsSize;
using namespace view_fd;

constexpr const char* kBase = "/tmp";         // where the staging tmpfs is mounted
constexpr const char* kOld = "/oldroot";      // host root after the first pivot
constexpr const char* kNew = "/newroot";      // the agent's root being built
constexpr const char* kEmptyFile = "/empty";  // source of file masks
constexpr const char* kEmptyDir = "/emptydir";  // source of directory masks (a tmpfs, mode 0000)

constexpr unsigned kReadOnly = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
constexpr unsigned kReadWrite = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

// Creates every missing directory of path inside the staging root (our own tmpfs: nothing on the
// host is created). Used only for targets that no grant holds.
Status mkdir_staging(const std::string& path) {
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    std::string cur = path.substr(0, pos);
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return sys_error("mkdir", cur);
  }
  return Status::Ok();
}

class ViewBuilder {
 public:
  ViewBuilder(const TmpfsSize& size, const std::vector<OverlayDirs>& overlays, std::vector<Placeholder>& placeholders,
              bool mask_root_only_proc)
      : size_(size), overlays_(overlays), placeholders_(placeholders), mask_root_only_proc_(mask_root_only_proc) {}

  Status prepare() {
    old_root_.reset(::open(kOld, O_PATH | O_DIRECTORY | O_CLOEXEC));
    new_root_.reset(::open(kNew, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!old_root_.valid() || !new_root_.valid()) return sys_error("open staging roots");
    return Status::Ok();
  }

  Status apply(const MountStep& step, int prepared) {
    switch (step.op) {
      case MountOp::kBindRo: return grant(step, kReadOnly, prepared);
      case MountOp::kBindRw: return grant(step, kReadWrite, prepared);
      case MountOp::kOverlay:
      case MountOp::kAgentState: return overlay(step);
      case MountOp::kProtectDir:
      case MountOp::kProtectFile:
      case MountOp::kMaskFile:
      case MountOp::kMaskDir:
      case MountOp::kProtectLink:
      case MountOp::kExpectAbsent: return guard(step);
      case MountOp::kProtectAbsentDir:
      case MountOp::kProtectAbsentFile:
      case MountOp::kProtectAbsentPointer:
      case MountOp::kMaskAbsent: return protect_absent(step);
      case MountOp::kTmpfs: return tmpfs_at(step.target, "1777");
      case MountOp::kProc: return proc(step.target);
      case MountOp::kDev: return dev(step.target);
    }
    return refused("unknown mount step");
  }

 private:
  // The root of the bind that holds a target: the grant mounted at `within` (opened afresh, so
  // that it is the topmost mount there), or the skeleton of the view.
  Result<UniqueFd> open_container(const MountStep& step) {
    if (step.within.empty()) return UniqueFd(::dup(new_root_.get()));
    UniqueFd fd(open_beneath(new_root_.get(), relative_to(step.within, "/")));
    if (!fd.valid()) return sys_error("open the grant", step.within);
    return fd;
  }

  // The host path a grant shows, opened beneath the host root without following a symlink.
  Result<UniqueFd> open_source(const MountStep& step, int prepared) {
    UniqueFd src(prepared >= 0 ? ::dup(prepared) : open_beneath(old_root_.get(), relative_to(step.source, "/")));
    if (!src.valid()) {
      if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV)
        return changed(step.source, "(granted) is gone or became a symlink");
      return sys_error("open grant", step.source);
    }
    if (is_symlink(src.get())) return changed(step.source, "(granted) became a symlink");
    return src;
  }

  // `prepared`: a detached tree the helper made for this grant (an idmapped copy), or -1.
  Status grant(const MountStep& step, unsigned attrs, int prepared) {
    auto opened = open_source(step, prepared);
    if (!opened) return opened.error();
    UniqueFd src = std::move(*opened);
    const bool dir = is_dir(src.get());
    auto at = mount_point(step, dir);
    if (!at) return at.error();
    UniqueFd target = std::move(*at);
    if (prepared >= 0) {
      // Already read-only, nosuid, nodev and idmapped: attached as it is.
      if (::move_mount(src.get(), "", target.get(), "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        return sys_error("mount", step.target);
      return Status::Ok();
    }
    return attach_clone(src.get(), target.get(), attrs, step.target);
  }

  // A write root in review mode (docs/review.md): an overlay whose lower layer is the host's
  // directory, opened like any grant, and whose upper and work directories are the session's,
  // opened by the helper. The kernel finds each layer by its descriptor's /proc path, so nothing
  // is looked up by name on the host; the mount is made here, in the sandbox's user namespace,
  // where an unprivileged user may mount an overlay (with its metadata in user.* xattrs).
  // Whatever fails, the session fails: the writes never go to the host directly instead.
  //
  // The agent's own directory (kAgentState, docs/agents.md) is the same mount with more lower
  // layers: Paddock's settings for this session, the agent's earlier writes, the whiteouts that
  // hide the user's stored logins and history, then the user's directory. Those layers never
  // change while mounted (platform/agent_state.h), and the options that would make a later
  // change of a lower layer unsafe (index, xino; redirect_dir and metacopy are off with
  // userxattr) are off.
  Status overlay(const MountStep& step) {
    const bool state = step.op == MountOp::kAgentState;
    const std::string label = state ? "the agent directory " : "the review root ";
    if (next_overlay_ >= overlays_.size()) return refused("no upper directory for " + label + step.target);
    const OverlayDirs layers = overlays_[next_overlay_++];
    auto opened = open_source(step, -1);
    if (!opened) return opened.error();
    UniqueFd lower = std::move(*opened);
    if (!is_dir(lower.get()))
      return refused(step.source + " is a file: " +
                     (state ? std::string("an agent's own directory must be a directory (nothing was run)")
                            : std::string("review mode holds the writes of directories only; grant its "
                                          "directory instead, or run without review mode (nothing was run)")));
    std::vector<UniqueFd> middle;
    for (const auto& d : layers.lowers) {
      auto fd = open_layer(d);
      if (!fd) return fd.error();
      middle.push_back(std::move(*fd));
    }
    auto at = mount_point(step, /*dir=*/true);
    if (!at) return at.error();
    UniqueFd target = std::move(*at);
    auto upper = open_layer(layers.upper);
    if (!upper) return upper.error();
    auto work = open_layer(layers.work);
    if (!work) return work.error();
    const auto fd_path = [](int fd) { return std::string(kOld) + "/proc/self/fd/" + std::to_string(fd); };
    UniqueFd fs(::fsopen("overlay", FSOPEN_CLOEXEC));
    if (!fs.valid()) return sys_error("open an overlay file system for the review root", step.target);
    const auto fail = [&](const std::string& what) {
      Error e = sys_error(what + (state ? " for the agent directory" : " for the review root"), step.target);
      // The kernel says why in words on the file system's descriptor.
      char buf[512];
      ssize_t n;
      while ((n = ::read(fs.get(), buf, sizeof buf - 1)) > 0) {
        buf[n] = 0;
        std::string line(buf);
        while (!line.empty() && line.back() == '\n') line.pop_back();
        if (line.size() > 2 && line[1] == ' ') e.message += " (" + line.substr(2) + ")";
      }
      return e;
    };
    std::string lowerdir;
    for (const auto& fd : middle) lowerdir += fd_path(fd.get()) + ":";
    lowerdir += fd_path(lower.get());
    std::vector<std::pair<const char*, std::string>> params = {
        {"source", state ? "paddock-agent-state" : "paddock-review"}, {"lowerdir", lowerdir},
        {"upperdir", fd_path(upper->get())}, {"workdir", fd_path(work->get())}};
    if (state) {
      params.emplace_back("index", "off");
      params.emplace_back("xino", "off");
    }
    for (const auto& [key, value] : params)
      if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, key, value.c_str(), 0) != 0) return fail(std::string("overlay ") + key);
    if (::fsconfig(fs.get(), FSCONFIG_SET_FLAG, "userxattr", nullptr, 0) != 0) return fail("overlay userxattr");
    if (::fsconfig(fs.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) return fail("mount an overlay");
    UniqueFd mnt(::fsmount(fs.get(), FSMOUNT_CLOEXEC, kReadWrite));
    if (!mnt.valid()) return fail("attach the overlay");
    if (::move_mount(mnt.get(), "", target.get(), "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      return sys_error("mount the overlay at", step.target);
    overlay_roots_.insert(step.target);
    return Status::Ok();
  }

  // An overlay layer the helper made, opened in this mount namespace.
  Result<UniqueFd> open_layer(const OverlayDir& d) {
    UniqueFd fd(open_beneath(old_root_.get(), relative_to(d.path, "/"), O_PATH | O_DIRECTORY));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return sys_error("open the session's layer", d.path);
    if (static_cast<std::uint64_t>(st.st_dev) != d.dev || static_cast<std::uint64_t>(st.st_ino) != d.ino)
      return changed(d.path, "(the session's layer) was replaced");
    return fd;
  }

  // Where a grant is mounted: in the view's own skeleton (made in the staging tmpfs), or, for a
  // grant nested in another one, the host's directory or file there, which must be what it was.
  Result<UniqueFd> mount_point(const MountStep& step, bool dir) {
    UniqueFd target;
    if (step.within.empty()) {
      // A target in the view's own skeleton: make its mount point in the staging tmpfs.
      const std::string at = std::string(kNew) + step.target;
      if (dir) {
        if (auto s = mkdir_staging(at); !s) return s.error();
      } else {
        if (auto s = mkdir_staging(at.substr(0, at.rfind('/'))); !s) return s.error();
        int fd = ::open(at.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
        if (fd < 0) return sys_error("create mount point", step.target);
        ::close(fd);
      }
      target.reset(open_beneath(new_root_.get(), relative_to(step.target, "/")));
    } else {
      // A grant nested in another one: its mount point is the host's, and must be what it was.
      auto within = open_container(step);
      if (!within) return within.error();
      target.reset(open_beneath(within->get(), relative_to(step.target, step.within)));
    }
    if (!target.valid()) return open_failed(step.target, "(granted) ");
    if (is_symlink(target.get())) return changed(step.target, "(granted) became a symlink");
    if (is_dir(target.get()) != dir) return changed(step.target, "changed kind");
    return target;
  }

  // Walks from the container to the target's parent, one component at a time, pinning every
  // directory on the way when the container is writable. Returns the parent's descriptor.
  Result<UniqueFd> walk_to_parent(const MountStep& step, const std::vector<std::string>& parts) {
    auto cur = open_container(step);
    if (!cur) return cur.error();
    UniqueFd fd = std::move(*cur);
    std::string path = step.within;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      path += "/" + parts[i];
      UniqueFd next(open_beneath(fd.get(), parts[i]));
      if (!next.valid()) {
        if (errno == ENOENT) return Error{ErrorCode::kNotFound, path};
        // This process (uid 0 of the sandbox's namespace, with its capabilities there) cannot
        // search the directory: then neither can the agent, which has fewer rights, so nothing
        // below is in its view (an idmapped read root shows a 0700 root directory this way).
        if (errno == EACCES) return Error{ErrorCode::kPolicyBlocked, path};
        if (errno == ELOOP || errno == EXDEV) return changed(path, "became a symlink");
        return sys_error("open", path);
      }
      if (is_symlink(next.get())) return changed(path, "became a symlink");
      if (!is_dir(next.get())) return Error{ErrorCode::kNotFound, path};  // nothing can be below
      if (step.pin && !pinned_.count(path)) {
        // Bind the directory onto itself: the kernel refuses to rename or remove a mount point
        // (EBUSY), so nothing in the sandbox can move what lies below away from its masks.
        if (auto s = attach_clone(next.get(), next.get(), kReadWrite, path); !s) return s.error();
        pinned_.insert(path);
        // The open descriptor still names the directory under the new mount; descend from the
        // mount itself, or what is mounted below would be hidden by it.
        next.reset(open_beneath(fd.get(), parts[i]));
        if (!next.valid()) return sys_error("open pinned directory", path);
      }
      fd = std::move(next);
    }
    return fd;
  }

  Status guard(const MountStep& step) {
    const auto parts = components(relative_to(step.target, step.within.empty() ? "/" : step.within));
    if (parts.empty()) return refused("a protected or masked path equals its grant: " + step.target);
    auto parent = walk_to_parent(step, parts);
    const bool expect_absent = step.op == MountOp::kExpectAbsent;
    if (!parent) {
      if (parent.error().code == ErrorCode::kPolicyBlocked && !step.pin) return Status::Ok();
      if (parent.error().code == ErrorCode::kNotFound && expect_absent) return Status::Ok();
      if (parent.error().code == ErrorCode::kNotFound) return changed(step.target, "is gone");
      return parent.error();
    }
    UniqueFd target(open_beneath(parent->get(), parts.back()));
    if (!target.valid()) {
      if (errno == ENOENT && expect_absent) return Status::Ok();
      if (errno == EACCES && !step.pin) return Status::Ok();  // out of the agent's reach too (above)
      return open_failed(step.target, "");
    }
    if (expect_absent) return changed(step.target, "(denied) appeared");
    if (step.op == MountOp::kProtectLink) {
      // The symlink itself, bound onto itself: it still leads where it led, and the name can be
      // neither removed nor replaced (its target is protected or masked by a step of its own).
      if (!is_symlink(target.get())) return changed(step.target, "is no longer a symlink");
      return attach_clone(target.get(), target.get(), kReadOnly, step.target);
    }
    if (is_symlink(target.get())) return changed(step.target, "became a symlink");
    const bool dir = is_dir(target.get());
    const bool want_dir = step.op == MountOp::kProtectDir || step.op == MountOp::kMaskDir;
    if (dir != want_dir) return changed(step.target, want_dir ? "is no longer a directory" : "became a directory");
    if (step.op == MountOp::kProtectDir || step.op == MountOp::kProtectFile)
      return attach_clone(target.get(), target.get(), kReadOnly, step.target);
    const int source = step.op == MountOp::kMaskDir ? empty_dir_.get() : empty_file_.get();
    return attach_clone(source, target.get(), kReadOnly | MOUNT_ATTR_NOEXEC, step.target);
  }

  // A protected path that did not exist: the sandbox must not create it. The kernel can only
  // refuse a name that exists, so a placeholder (an empty directory, or an empty file, of the
  // step's kind for the path itself; a directory for a missing parent) is made at the first
  // missing component, on the host, and bound read-only like any protected path. Whatever
  // exists by now is protected as it is.
  Status protect_absent(const MountStep& step) {
    const auto parts = components(relative_to(step.target, step.within));
    if (parts.empty()) return refused("a protected path equals its grant: " + step.target);
    auto cur = open_container(step);
    if (!cur) return cur.error();
    UniqueFd fd = std::move(*cur);
    std::string path = step.within;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const bool last = i + 1 == parts.size();
      path += "/" + parts[i];
      UniqueFd next(open_beneath(fd.get(), parts[i]));
      if (!next.valid() && errno == ENOENT) {
        const bool as_dir = !last || step.op == MountOp::kProtectAbsentDir;
        const bool mask = step.op == MountOp::kMaskAbsent;
        // A pointer's placeholder names its own directory: what the pointer's absence means.
        const std::string content = last && step.op == MountOp::kProtectAbsentPointer ? ".\n" : "";
        const int made = as_dir ? ::mkdirat(fd.get(), parts[i].c_str(), 0755)
                                : ::openat(fd.get(), parts[i].c_str(),
                                           O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (made < 0 && errno != EEXIST) return sys_error("create the placeholder", path);
        if (!as_dir && made >= 0) {
          const bool written = ::write(made, content.data(), content.size()) == static_cast<ssize_t>(content.size());
          ::close(made);
          if (!written) return sys_error("write the placeholder", path);
        }
        next.reset(open_beneath(fd.get(), parts[i]));
        if (!next.valid()) return sys_error("open the placeholder", path);
        struct stat st {};
        // Inside a review root the placeholder is in the session's upper layer, not on the host:
        // nothing there is the registry's to remove. Git inside is told to ignore it all the same.
        if (made >= 0 && !overlay_roots_.count(step.within) && ::fstat(next.get(), &st) == 0)
          placeholders_.push_back(made_placeholder(path, as_dir, st, content));
        if (!as_dir) git_hidden_.push_back(path);  // an empty directory git never shows
        // A denied path's placeholder is masked, not shown: what someone outside writes into it
        // while the session runs stays out of the agent's view.
        if (mask)
          return attach_clone(as_dir ? empty_dir_.get() : empty_file_.get(), next.get(), kReadOnly | MOUNT_ATTR_NOEXEC, path);
        return attach_clone(next.get(), next.get(), kReadOnly, path);
      }
      if (!next.valid()) {
        if (errno == ELOOP || errno == EXDEV) return changed(path, "became a symlink");
        return sys_error("open", path);
      }
      if (is_symlink(next.get())) return changed(path, "became a symlink");
      // What is denied appeared since the policy was resolved (the next resolution sees it, and
      // masks it).
      if (last && step.op == MountOp::kMaskAbsent) return changed(path, "(denied) appeared");
      // The path exists up to here. At the end, or where a non-directory blocks the rest of the
      // path (nothing can be created below it while it stays), protect what is there. An empty
      // file where the policy found none is another session's placeholder (or made in the same
      // instant): hidden from git like this session's own.
      if (last && step.op == MountOp::kProtectAbsentFile && is_empty_file(next.get())) git_hidden_.push_back(path);
      if (last || !is_dir(next.get())) return attach_clone(next.get(), next.get(), kReadOnly, path);
      if (!pinned_.count(path)) {
        if (auto s = attach_clone(next.get(), next.get(), kReadWrite, path); !s) return s;
        pinned_.insert(path);
        next.reset(open_beneath(fd.get(), parts[i]));
        if (!next.valid()) return sys_error("open pinned directory", path);
      }
      fd = std::move(next);
    }
    return Status::Ok();
  }

 public:
  // The file placeholders are empty files that `git add -A` would commit and `git status` show.
  // Inside the sandbox git is told to ignore them: the repository's `info/exclude` (its common
  // dir's, for a linked worktree) is replaced in this view only by a copy of the user's lines
  // followed by one anchored pattern per placeholder, bound read-only over it. Nothing changes
  // in the file on the host; a missing `info/exclude` (or `info/`) gets a placeholder of its
  // own inside the git dir, which git never shows. Empty placeholder directories need nothing:
  // git does not track empty directories. docs/architecture.md, "The mount view", step 4.
  Status hide_placeholders_from_git() {
    std::map<std::string, std::vector<std::string>> patterns;  // common git dir -> patterns
    for (const std::string& file : git_hidden_) {
      auto repo = repository_of(file);
      if (!repo) continue;  // in no repository the sandbox sees: nothing to hide it from
      auto pattern = git_exclude_pattern(file.substr(repo->top.size() == 1 ? 0 : repo->top.size()));
      if (pattern) patterns[repo->common_dir].push_back(*pattern);
    }
    int n = 0;
    for (auto& [common, lines] : patterns)
      if (auto s = bind_exclude(common, lines, n++); !s) return s;
    return Status::Ok();
  }

 private:
  struct Repository {
    std::string top;         // the work tree's top directory
    std::string common_dir;  // where info/exclude is read from
  };

  // The repository git would find for `path`, as git finds it: the nearest directory above it
  // with a `.git` directory, or a `.git` file naming one (`gitdir: ...`), that holds HEAD; a
  // linked worktree's git dir names its common dir in `commondir`. Looked up in the view.
  std::optional<Repository> repository_of(const std::string& path) {
    for (std::string dir = path.substr(0, path.rfind('/'));; dir = dir.substr(0, dir.rfind('/'))) {
      const std::string top = dir.empty() ? "/" : dir;
      const std::string dot_git = dir + "/.git";
      UniqueFd fd(open_beneath(new_root_.get(), relative_to(dot_git, "/")));
      std::string git_dir;
      if (fd.valid() && is_dir(fd.get())) {
        git_dir = dot_git;
      } else if (fd.valid() && !is_symlink(fd.get())) {
        auto text = read_small(new_root_.get(), relative_to(dot_git, "/"), 4096);
        if (text && text->rfind("gitdir:", 0) == 0) {
          std::string g = text->substr(7, text->find_first_of("\r\n") - 7);
          g.erase(0, g.find_first_not_of(" \t"));
          if (!g.empty()) git_dir = std::filesystem::path(g[0] == '/' ? g : top + "/" + g).lexically_normal().string();
        }
      }
      if (!git_dir.empty() && git_dir.back() == '/') git_dir.pop_back();
      UniqueFd head(git_dir.empty() ? -1 : open_beneath(new_root_.get(), relative_to(git_dir + "/HEAD", "/")));
      if (head.valid()) {
        std::string common = git_dir;
        if (auto c = read_small(new_root_.get(), relative_to(git_dir + "/commondir", "/"), 4096)) {
          std::string d = c->substr(0, c->find_first_of("\r\n"));
          if (!d.empty()) common = std::filesystem::path(d[0] == '/' ? d : git_dir + "/" + d).lexically_normal().string();
          if (common.size() > 1 && common.back() == '/') common.pop_back();
        }
        return Repository{top, common};
      }
      if (dir.empty()) break;
    }
    return std::nullopt;
  }

  // `common`/info/exclude in the view: a staged copy with the patterns added, bound read-only.
  // What git reads there is hygiene, not a boundary: a repository whose info/ or exclude is not
  // a plain directory and file this process can read (a symlink, a FIFO, an unwritable git dir,
  // a file over 1 MiB) is left as it is, its placeholders visible to its git, rather than
  // refusing the session; docs/architecture.md says so.
  Status bind_exclude(const std::string& common, const std::vector<std::string>& lines, int n) {
    const std::string info = common + "/info", exclude = info + "/exclude";
    UniqueFd existing(open_beneath(new_root_.get(), relative_to(exclude, "/")));
    std::optional<std::string> current;
    if (existing.valid()) {
      current = read_small(new_root_.get(), relative_to(exclude, "/"), kMaxExclude);
      if (!current || current->size() > kMaxExclude) return Status::Ok();
    } else if (errno == ENOENT) {
      // No info/exclude (a repository made with an empty template): a mount point is made for it
      // on the host, inside the git dir, as placeholders are. Not under a review root: its host
      // directory is the overlay's lower layer, which nothing may change while it is mounted, and
      // a file made in the upper layer would be one more change to review; that repository's git
      // shows the file placeholders instead.
      if (in_overlay_root(common)) return Status::Ok();
      if (!make_in_host(info, /*dir=*/true) || !make_in_host(exclude, /*dir=*/false)) return Status::Ok();
    } else {
      return Status::Ok();
    }
    std::string text = current.value_or("");
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "# Paddock: its placeholders for absent protected files, ignored inside the sandbox only\n";
    for (const std::string& l : lines) text += l + '\n';
    const std::string staged = "/gitexclude-" + std::to_string(n);
    {
      UniqueFd out(::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444));
      if (!out.valid()) return sys_error("create", staged);
      for (std::size_t done = 0; done < text.size();) {
        const ssize_t w = ::write(out.get(), text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return sys_error("write", staged);
        done += static_cast<std::size_t>(w);
      }
    }
    UniqueFd src(::open(staged.c_str(), O_PATH | O_CLOEXEC));
    if (!src.valid()) return sys_error("open", staged);
    UniqueFd target(open_beneath(new_root_.get(), relative_to(exclude, "/")));
    if (!target.valid() || is_symlink(target.get()) || is_dir(target.get())) return Status::Ok();
    return attach_clone(src.get(), target.get(), kReadOnly | MOUNT_ATTR_NOEXEC, exclude);
  }

  // Makes `path` on the host (through the host's root, so that a read-only bind in the view does
  // not stand in the way) unless it exists, and records it as a placeholder. False when neither.
  bool make_in_host(const std::string& path, bool dir) {
    const std::string parent = path.substr(0, path.rfind('/'));
    UniqueFd at(open_beneath(old_root_.get(), relative_to(parent, "/"), O_PATH | O_DIRECTORY));
    if (!at.valid()) return false;
    const std::string name = path.substr(path.rfind('/') + 1);
    const int made = dir ? ::mkdirat(at.get(), name.c_str(), 0755)
                         : ::openat(at.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (made < 0) return errno == EEXIST;
    if (!dir) ::close(made);
    UniqueFd fd(open_beneath(at.get(), name));
    struct stat st {};
    if (fd.valid() && ::fstat(fd.get(), &st) == 0)
      placeholders_.push_back(made_placeholder(path, dir, st));
    return true;
  }

  static constexpr std::size_t kMaxExclude = std::size_t{1} << 20;

  bool in_overlay_root(const std::string& path) const {
    for (const std::string& root : overlay_roots_)
      if (path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                           (root == "/" || path[root.size()] == '/')))
        return true;
    return false;
  }

 public:
  // The sources of masks: an empty read-only file and an empty tmpfs (mode 0000), both in the
  // staging root; every mask is a clone of one of them.
  Status make_mask_sources() {
    int fd = ::open(kEmptyFile, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) return sys_error("create", kEmptyFile);
    ::close(fd);
    if (::mkdir(kEmptyDir, 0000) != 0) return sys_error("mkdir", kEmptyDir);
    if (::mount("tmpfs", kEmptyDir, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0000,size=4k,nr_inodes=1") != 0)
      return sys_error("mount the empty tmpfs for masks", kEmptyDir);
    empty_file_.reset(::open(kEmptyFile, O_PATH | O_CLOEXEC));
    empty_dir_.reset(::open(kEmptyDir, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!empty_file_.valid() || !empty_dir_.valid()) return sys_error("open the mask sources");
    return Status::Ok();
  }

 private:
  std::string size_options(const char* mode) const {
    std::string o = std::string("mode=") + mode;
    if (size_.bytes > 0) o += ",size=" + std::to_string(size_.bytes) + ",nr_inodes=" + std::to_string(size_.inodes);
    return o;
  }

  Status tmpfs_at(const std::string& target, const char* mode) {
    const std::string at = std::string(kNew) + target;
    if (auto s = mkdir_staging(at); !s) return s;
    if (::mount("tmpfs", at.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, size_options(mode).c_str()) != 0)
      return sys_error("mount tmpfs", target);
    return Status::Ok();
  }

  Status proc(const std::string& target) {
    const std::string at = std::string(kNew) + target;
    if (auto s = mkdir_staging(at); !s) return s;
    if (::mount("proc", at.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
      return sys_error("mount proc", target);
    return mask_root_only_proc_ ? mask_root_only(at, target, 0) : Status::Ok();
  }

  // The agent of a root caller is the host's uid 0 (without capabilities): the kernel's files
  // that only root may read (/proc/slabinfo, timer_list, vmallocinfo, kpageflags, kmsg, 0600
  // sysctls) would be readable to it by ownership alone. Each one, and each directory only root
  // may enter, is masked like a denied path. The processes' own directories are the sandbox's,
  // and so is sys/net: every sandbox has a network namespace of its own, whose sysctls the agent
  // sees there (the kernel looks them up by the reader's namespace), never the host's; walking the
  // host's (a directory per interface) was most of this walk's cost and masked nothing the agent
  // could reach.
  Status mask_root_only(const std::string& dir, const std::string& shown, int depth) {
    if (depth > 8) return Status::Ok();
    DIR* d = ::opendir(dir.c_str());
    if (!d) return sys_error("list", shown);
    std::vector<std::string> names;
    const bool in_sys = depth == 1 && shown.size() >= 4 && shown.compare(shown.size() - 4, 4, "/sys") == 0;
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || (depth == 0 && name.find_first_not_of("0123456789") == std::string::npos) ||
          (in_sys && name == "net"))
        continue;
      names.push_back(name);
    }
    ::closedir(d);
    for (const std::string& name : names) {
      const std::string path = dir + "/" + name, inside = shown + "/" + name;
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      const bool is_directory = S_ISDIR(st.st_mode);
      const bool root_only = is_directory ? (st.st_mode & (S_IROTH | S_IXOTH)) != (S_IROTH | S_IXOTH)
                                          : (st.st_mode & S_IROTH) == 0;
      if (!root_only) {
        if (is_directory)
          if (auto s = mask_root_only(path, inside, depth + 1); !s) return s;
        continue;
      }
      UniqueFd fd(::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!fd.valid()) continue;  // gone (a process's entry), nothing to mask
      if (auto s = attach_clone(is_directory ? empty_dir_.get() : empty_file_.get(), fd.get(), kReadOnly | MOUNT_ATTR_NOEXEC,
                                inside);
          !s)
        return s;
    }
    return Status::Ok();
  }

  // A minimal /dev: device nodes bound from the host (a user namespace cannot mknod), a private
  // devpts instance, a sized /dev/shm, and the usual symlinks.
  Status dev(const std::string& target) {
    const std::string at = std::string(kNew) + target;
    if (auto s = mkdir_staging(at); !s) return s;
    if (::mount("tmpfs", at.c_str(), "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") != 0)
      return sys_error("mount tmpfs", target);
    for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"}) {
      std::string src = std::string(kOld) + "/dev/" + node, dst = at + "/" + node;
      int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
      if (fd < 0) return sys_error("create mount point", std::string("/dev/") + node);
      ::close(fd);
      if (::mount(src.c_str(), dst.c_str(), nullptr, MS_BIND, nullptr) != 0)
        return sys_error("bind device", std::string("/dev/") + node);
    }
    std::string pts = at + "/pts", shm = at + "/shm";
    if (::mkdir(pts.c_str(), 0755) != 0) return sys_error("mkdir", "/dev/pts");
    if (::mount("devpts", pts.c_str(), "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") != 0)
      return sys_error("mount devpts", "/dev/pts");
    if (::mkdir(shm.c_str(), 0755) != 0) return sys_error("mkdir", "/dev/shm");
    if (::mount("tmpfs", shm.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, size_options("1777").c_str()) != 0)
      return sys_error("mount tmpfs", "/dev/shm");
    const std::pair<const char*, const char*> links[] = {
        {"pts/ptmx", "ptmx"}, {"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
        {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}};
    for (const auto& [to, name] : links) {
      std::string link = at + "/" + name;
      if (::symlink(to, link.c_str()) != 0) return sys_error("symlink", std::string("/dev/") + name);
    }
    return Status::Ok();
  }

  TmpfsSize size_;
  const std::vector<OverlayDirs>& overlays_;
  std::size_t next_overlay_ = 0;
  std::set<std::string> overlay_roots_;  // targets of the overlays mounted so far
  std::vector<Placeholder>& placeholders_;
  bool mask_root_only_proc_ = false;
  std::vector<std::string> git_hidden_;  // file placeholders in the view, to hide from git
  UniqueFd old_root_, new_root_, empty_file_, empty_dir_;
  std::set<std::string> pinned_;
};

// Fallback-free read-only remount of the view's own skeleton (the mount point directories).
Status make_root_readonly() {
  mount_attr attr{kReadOnly, 0, 0, 0};
  if (::mount_setattr(AT_FDCWD, "/", 0, &attr, sizeof attr) != 0) return sys_error("mount_setattr read-only", "/");
  return Status::Ok();
}

// Merged-/usr systems reach /bin, /lib, /lib64 (the ELF interpreter path) through top-level
// symlinks that the plan, holding canonical paths only, never names. Recreate each host top-level
// symlink where the view has nothing of that name: a symlink grants nothing by itself, its target
// is reachable only if a bind put it in the view.
Status copy_top_level_symlinks() {
  DIR* d = ::opendir(kOld);
  if (!d) return sys_error("opendir", "/");
  Status result;
  while (dirent* e = ::readdir(d)) {
    if (e->d_type != DT_LNK) continue;
    std::string src = std::string(kOld) + "/" + e->d_name, dst = std::string(kNew) + "/" + e->d_name;
    struct stat st {};
    if (::lstat(dst.c_str(), &st) == 0) continue;
    char target[4096];
    ssize_t n = ::readlink(src.c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = 0;
    if (::symlink(target, dst.c_str()) != 0) {
      result = sys_error("symlink", std::string("/") + e->d_name);
      break;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

Status build_mount_view(const std::vector<MountStep>& steps, const TmpfsSize& tmpfs_size,
                        const std::vector<int>& prepared, const std::vector<OverlayDirs>& overlays,
                        std::vector<Placeholder>& placeholders, bool mask_root_only_proc) {
  // Nothing we mount may propagate back to the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return sys_error("make mounts private", "/");
  // Staging root: a tmpfs that becomes "/" with the host root at /oldroot, so host paths stay
  // reachable as sources (including the host's /tmp) while the new view is assembled.
  if (::mount("tmpfs", kBase, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return sys_error("mount staging tmpfs", kBase);
  if (::chdir(kBase) != 0) return sys_error("chdir", kBase);
  if (::mkdir("oldroot", 0755) != 0 || ::mkdir("newroot", 0755) != 0)
    return sys_error("mkdir staging", kBase);
  if (::syscall(SYS_pivot_root, kBase, "/tmp/oldroot") != 0) return sys_error("pivot_root", kBase);
  if (::chdir("/") != 0) return sys_error("chdir", "/");
  if (::mount("tmpfs", kNew, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return sys_error("mount root tmpfs", kNew);

  ViewBuilder view(tmpfs_size, overlays, placeholders, mask_root_only_proc);
  if (auto s = view.make_mask_sources(); !s) return s;
  if (auto s = view.prepare(); !s) return s;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (auto s = view.apply(steps[i], i < prepared.size() ? prepared[i] : -1); !s) return s;
  if (auto s = view.hide_placeholders_from_git(); !s) return s;

  if (auto s = copy_top_level_symlinks(); !s) return s;
  // Enter the new root and drop every path to the host's. pivot_root(".", ".") stacks the
  // staging root on top of the new one; detaching it detaches its whole subtree with it, the
  // host root at /oldroot and every host submount included. One detach, not two: each lazy
  // unmount that frees mounts waits for an RCU grace period.
  if (::chdir(kNew) != 0) return sys_error("chdir", kNew);
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return sys_error("pivot_root", kNew);
  if (::umount2(".", MNT_DETACH) != 0) return sys_error("detach staging and host root", "/");
  if (::chdir("/") != 0) return sys_error("chdir", "/");
  // The skeleton (mount point directories) is read-only too.
  return make_root_readonly();
}

}  // namespace paddock::helper
