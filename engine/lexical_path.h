// An absolute path normalised by its text alone, as the kernel never sees it: empty and "."
// components dropped, ".." taking the component before it away ("/.." stays "/"). No file is
// looked at, so a symlink is not followed; callers use it where the path is only compared or
// named (a settings value, a .git file's gitdir), never where it is opened.
#pragma once

#include <string>

namespace paddock {

std::string lexically_normal(const std::string& path);

}  // namespace paddock
