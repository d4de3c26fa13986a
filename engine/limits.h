// Sizes, durations and the `--limits` spec (docs/policy-layers.md): k/m/g are ×1000, KiB/MiB/GiB
// ×1024, durations s/m/h/d; overflow, empty pairs, unknown keys and bad suffixes are errors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/layer.h"
#include "engine/status.h"

namespace paddock {

// "8GiB" -> 8589934592, "2M" -> 2000000, "512" -> 512. Error text says what is allowed.
Result<std::int64_t> parse_size(const std::string& text);
// "4h" -> 14400, "90" -> 90, "30m" -> 1800.
Result<std::int64_t> parse_duration(const std::string& text);

using LimitSet = std::array<std::optional<std::int64_t>, kLimitCount>;
// "cpu=300,mem=4GiB,procs=256,nofile=1024,fsize=2M,wall=2h"; a key given twice keeps the
// strictest value.
Result<LimitSet> parse_limits_spec(const std::string& spec);

}  // namespace paddock
