// `--timeout DUR`: a positive whole number with an optional unit s, m or h (default seconds).
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock::cli {

Result<long> parse_duration_secs(const std::string& text);

}  // namespace paddock::cli
