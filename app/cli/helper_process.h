// Runs paddock-helper as a child and captures its stdout (for `probe` and similar queries).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/status.h"

namespace paddock::cli {

struct HelperOutput {
  int exit_code = 0;
  std::string out;
};

// Fails (kRefused) with one actionable line when the helper is missing or not executable.
Result<HelperOutput> run_helper_capture(const std::filesystem::path& helper,
                                        const std::vector<std::string>& args);

}  // namespace paddock::cli
