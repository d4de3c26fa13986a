#include "platform/engine_files.h"

#include "platform/atomic_file.h"

namespace paddock::platform {

Status AtomicFileWriter::write_file(const std::string& path, const std::string& bytes, unsigned mode) const {
  return write_file_atomic(path, bytes, WriteOptions{.mode = mode, .keep_mode = false, .create_dirs = true});
}

}  // namespace paddock::platform
