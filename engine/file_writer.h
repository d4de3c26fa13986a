// The one file-system service the engine needs and may not implement itself (it includes no OS
// headers): putting a whole file in place (approvals, keys, signatures). platform/ implements it
// (platform/engine_files.h) atomically and durably; tests may give their own.
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock {

class FileWriter {
 public:
  virtual ~FileWriter() = default;
  // Replaces path with bytes, whole or not at all, creating missing parent directories (0700).
  // mode: the file's mode (0600 for secrets). A symlink at path is refused.
  virtual Status write_file(const std::string& path, const std::string& bytes, unsigned mode) const = 0;
};

}  // namespace paddock
