// Crash-safe session files (DESIGN §9): whole files are written to a temp name and renamed into
// place; logs are appended one complete line per write(2).
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock::helper {

// Writes bytes to path via "<path>.tmp-<pid>" + rename; mode applies to the new file.
Status write_file_atomic(const std::string& path, const std::string& bytes, unsigned mode = 0600);

// Appends line + '\n' with one write(2) on an O_APPEND descriptor (a crash loses at most it).
Status append_line(const std::string& path, const std::string& line);

// Reads a whole file; kNotFound-like errors are reported as kBadInput naming the path.
Result<std::string> read_file(const std::string& path);

// mkdir -p with mode for the directories it creates.
Status make_dirs(const std::string& path, unsigned mode = 0700);

}  // namespace paddock::helper
