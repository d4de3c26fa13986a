// The time now as Paddock writes it in its records: UTC, milliseconds, "2026-01-02T03:04:05.678Z".
#pragma once

#include <string>

namespace paddock::platform {

std::string utc_timestamp();

}  // namespace paddock::platform
