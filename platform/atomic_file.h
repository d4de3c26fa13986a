// The one way Paddock puts a whole file on disk (session records, the probe cache, keys,
// approvals, the app's saves): it appears complete under its name or not at all, and once
// written it survives a crash of the machine.
//
// A temporary is created in the target's directory (exclusively, never through a symlink, mode
// 0600 while it fills), written, given its final mode, fsynced and renamed over the target;
// then the directory is fsynced so that the rename itself is on disk. A target that is a symlink
// is refused: nothing is written through one or replaces one. A temporary that is not committed
// is removed.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/status.h"
#include "platform/unique_fd.h"

namespace paddock::platform {

struct WriteOptions {
  unsigned mode = 0600;      // the new file's mode, exactly (the umask does not narrow it)
  bool keep_mode = false;    // an existing target keeps its mode (files the user edits)
  bool create_dirs = false;  // missing parent directories are created (0700)
  // false: no fsync of the file nor of its directory. Only for a cache whose reader checks every
  // byte it reads and rebuilds what fails: the file still appears whole under its name or not at
  // all while the machine runs, but after a crash it may be old, empty or torn.
  bool durable = true;
};

// Whether commit() syncs the directory. kByCaller: the caller syncs it later (sync_directory, or
// the commit of another file in the same directory), so that several renames share one sync (a
// sync is a few ms on a plain disk); until then the file may vanish in a crash of the machine,
// but it is never seen half written.
enum class DirSync { kNow, kByCaller };

// One write in steps, for files whose bytes are known before they are due: open() makes the
// temporary (an inode allocation, 0.1 to several ms on a busy disk) and write() and sync() can
// run ahead; commit() then only renames and syncs the directory.
class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&& o) noexcept;
  ~AtomicFile() { discard(); }

  Status open(const std::string& path, const WriteOptions& options = {});
  Status write(std::string_view bytes);
  // fsync now; commit() skips its own when nothing was written since.
  Status sync();
  // Final mode, fsync, rename over the target, fsync of the directory (neither fsync when the
  // file was opened with durable = false).
  Status commit(DirSync dir_sync = DirSync::kNow);
  // Removes the temporary (nothing happens to the target).
  void discard();

  bool is_open() const { return fd_.valid(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;  // tmp_: the temporary's name in the target's directory
  UniqueFd fd_, dir_fd_;
  unsigned mode_ = 0600;
  bool dirty_ = false;
  bool durable_ = true;
};

// sync() of several open files at once, each on its own thread: a disk serves concurrent syncs
// in about the time of one (here 6 ms for three files instead of 12). The first failure is
// returned; a file whose sync failed is discarded.
Status sync_all(std::initializer_list<AtomicFile*> files);

Status sync_directory(const std::string& dir);

Status write_file_atomic(const std::string& path, std::string_view bytes, const WriteOptions& options = {});

// Batches of files replaced together (review mode's apply, docs/review.md): each new content is
// staged in a temporary beside its target (stage_copy; no sync), one sync_filesystem makes every
// staged byte durable, and only then is each temporary renamed over its target. After a crash at
// any point every target is as it was or wholly new, as with AtomicFile, for one sync per batch
// instead of two per file. The caller names the temporaries (it records them, to remove those an
// interrupted batch left) and renames them.
struct StageOptions {
  unsigned mode = 0600;          // the staged file's final mode, exactly
  bool keep_times = true;        // the staged file gets the source's modification time
  bool keep_owner = false;       // the source's owner and group (root only)
};
// Creates dir/tmp exclusively (never through a symlink) and copies src_fd's bytes into it.
Status stage_copy(int dirfd, const std::string& tmp, int src_fd, const StageOptions& options = {});
// syncfs(2) of the file system fd is on.
Status sync_filesystem(int fd);

// mkdir -p; `mode` for the directories it creates. The path must end in a directory.
Status make_dirs(const std::string& path, unsigned mode = 0700);

}  // namespace paddock::platform
