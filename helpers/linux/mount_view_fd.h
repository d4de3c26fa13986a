// How the mount view (mount_view.cpp) reaches what it mounts: every path resolved from a
// directory descriptor it holds, refusing symlinks, magic links and "..", so that nothing renamed
// or planted on the host between the policy walk and the mount can redirect one (a symlink in
// place of a masked file's parent would otherwise take the mask somewhere else and leave the file
// in view); and mounts cloned and attached between held descriptors, nothing looked up by name in
// between. Internal to the helper.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

#include "engine/session/placeholder_record.h"
#include "engine/status.h"

namespace paddock::helper::view_fd {

// openat2 beneath dirfd with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH and
// O_NOFOLLOW | O_CLOEXEC added to flags; -1 with errno set.
int open_beneath(int dirfd, const std::string& rel, int flags = O_PATH);

// "/a/b/c" below "/a" -> "b/c"; the root itself -> ".".
std::string relative_to(const std::string& path, const std::string& root);

// "a/./b/c" -> {"a", "b", "c"}.
std::vector<std::string> components(const std::string& rel);

// The refusal for a path that changed since the policy was resolved.
Error changed(const std::string& path, const std::string& what);

// Why opening `path` (named `subject`, e.g. "(granted) ") beneath its root failed, from errno: it
// is gone or became a symlink since the policy walk, or the kernel's own reason (a parent the
// sandbox cannot enter, say).
Error open_failed(const std::string& path, const std::string& subject);

// Clones the mount tree at src (recursively: host submounts and the masks already below it come
// along), sets attributes on the detached copy, then attaches it on top of target.
Status attach_clone(int src, int target, unsigned attrs, const std::string& what);

bool is_dir(int fd);
bool is_empty_file(int fd);
// O_PATH | O_NOFOLLOW opens a trailing symlink itself rather than failing.
bool is_symlink(int fd);

session::PlaceholderRecord made_placeholder(const std::string& path, bool dir, const struct stat& st,
                                            std::string content = {});

// A small file's bytes through a descriptor of it (O_PATH is reopened for reading), at most
// `limit` + 1 of them so that the caller sees an over-long file; nullopt if it cannot be read.
std::optional<std::string> read_small(int dirfd, const std::string& rel, std::size_t limit);

}  // namespace paddock::helper::view_fd
