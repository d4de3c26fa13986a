// The content before a direct-mode session of the few files whose change the audit reports and
// quarantine must be able to undo (docs/audit.md, "What quarantine restores"): each repository's
// index, config and info/ files in the write roots, and the agents' watched settings. Each is read into
// memory before the sandbox exists (bounded per file and in all); at the end, the content before
// the session of each file that changed is written into the session's audit/preserved/, and only
// then. An open descriptor alone would not do: the old inode of a file renamed over has a new
// ctime too (the unlink), so nothing tells whether the agent wrote it before replacing it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/session/audit_record.h"

namespace paddock::platform {

// The files of a session whose previous content matters, from its IR: the index, config and info/ files
// of every repository in the direct write roots (the project's .git and the git directories the
// engine protects), and the watched agent settings there. Costs a directory listing per repository.
std::vector<std::string> files_to_preserve(const FrozenIr& ir, const std::vector<std::string>& direct_roots);

struct PreservedOutcome {
  session::FileStamp before;
  std::string name;  // "preserved/<n>" when the content before the session was saved
  std::string note;  // why not, when it changed and could not be
};

class Preserver {
 public:
  Preserver() = default;
  Preserver(Preserver&&) = default;
  Preserver& operator=(Preserver&&) = default;

  // Reads each file that exists (no symlink anywhere in its path, never blocking) and notes its
  // stamp. A file over file_max bytes, or past total_max in all, is stamped only: its change is
  // reported and its content before the session said to be unknown. At most max_files files.
  static Preserver open(const std::vector<std::string>& paths, std::size_t file_max = std::size_t{32} << 20,
                        std::size_t total_max = std::size_t{128} << 20, std::size_t max_files = 4096);

  std::vector<session::PreservedFile> stamps() const;

  // For each file that changed since open(): its content before the session, written to
  // <session>/audit/preserved/<n> (fsynced); by path. Unchanged files are not in the map.
  std::map<std::string, PreservedOutcome> save_changed(const std::string& session_dir) const;

 private:
  struct Entry {
    std::string path;
    session::FileStamp stamp;
    std::optional<std::string> bytes;  // none: too large to keep
  };
  std::vector<Entry> entries_;
};

}  // namespace paddock::platform
