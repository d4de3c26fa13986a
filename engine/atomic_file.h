// Whole-file writes that never leave a half-written file: temp file in the same directory,
// then rename over the target.
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock {

// `private_file`: owner read/write only (secret keys).
Status write_file_atomic(const std::string& path, const std::string& bytes, bool private_file = false);

}  // namespace paddock
