#include "app/cli/run_duration.h"

#include <cctype>
#include <limits>

namespace paddock::cli {

Result<long> parse_duration_secs(const std::string& text) {
  const Error bad = bad_input("--timeout " + text + ": expected a positive duration such as 90, 90s, 30m or 2h");
  std::size_t i = 0;
  long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value > (std::numeric_limits<long>::max() - 9) / 10) return bad;
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 0) return bad;
  long unit = 1;
  std::string suffix = text.substr(i);
  if (suffix == "m") unit = 60;
  else if (suffix == "h") unit = 3600;
  else if (!suffix.empty() && suffix != "s") return bad;
  // Bounded: a day's worth of years is plenty and keeps steady_clock arithmetic safe.
  if (value <= 0 || value > 100L * 365 * 24 * 3600 / unit) return bad;
  return value * unit;
}

}  // namespace paddock::cli
