// Running one of Paddock's own programs and capturing what it prints (the kernel probe,
// paddock-keyring): posix_spawn, not fork, since the app calls this from a worker thread of a
// multi-threaded process; stdin is /dev/null or the given bytes (a key on its way to the
// keyring: never an argument, never the environment).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/status.h"

namespace paddock::platform {

struct Captured {
  int exit_code = 0;  // 128 + N when killed by signal N
  std::string out, err;  // each at most 1 MiB
};

// `program` must exist and be executable (else a refusal naming it and `missing_hint`).
Result<Captured> run_capture(const std::string& program, const std::vector<std::string>& args,
                             const std::optional<std::string>& input = std::nullopt,
                             const std::string& missing_hint = "");

}  // namespace paddock::platform
