// The platform's implementation of the engine's FileWriter (engine/file_writer.h).
#pragma once

#include "engine/file_writer.h"

namespace paddock::platform {

class AtomicFileWriter final : public FileWriter {
 public:
  Status write_file(const std::string& path, const std::string& bytes, unsigned mode) const override;
};

}  // namespace paddock::platform
