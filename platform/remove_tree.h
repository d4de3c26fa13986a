// Removing a directory tree Paddock made (a review's layers): never through a symlink (one in the
// tree is removed as a link), directories made unsearchable inside it (an overlay's work
// directory holds one of mode 0000) opened up first.
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock::platform {

// Removes dirfd/name and everything below it; a name that does not exist is not an error.
Status remove_tree_at(int dirfd, const std::string& name);

}  // namespace paddock::platform
