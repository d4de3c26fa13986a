#include "engine/limits.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "engine/layer_schema.h"

namespace paddock {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// Leading decimal digits with overflow check; returns the digits' end.
std::optional<std::pair<std::int64_t, std::size_t>> leading_number(const std::string& t) {
  std::size_t i = 0;
  std::int64_t v = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
    const int d = t[i] - '0';
    if (v > (kMax - d) / 10) return std::nullopt;
    v = v * 10 + d;
    ++i;
  }
  if (i == 0) return std::nullopt;
  return std::make_pair(v, i);
}

Result<std::int64_t> scaled(const std::string& text, const std::vector<std::pair<std::string, std::int64_t>>& units,
                            const std::string& allowed) {
  auto n = leading_number(text);
  if (!n) {
    if (!text.empty() && text[0] >= '0' && text[0] <= '9')
      return bad_input("'" + text + "' is too large");
    return bad_input("'" + text + "' is not a number with an optional suffix (" + allowed + ")");
  }
  const std::string suffix = text.substr(n->second);
  for (const auto& [u, mult] : units) {
    if (u != suffix) continue;
    if (n->first > kMax / mult) return bad_input("'" + text + "' is too large");
    if (n->first * mult == 0) return bad_input("'" + text + "' must be greater than zero");
    return n->first * mult;
  }
  return bad_input("'" + text + "' has an unknown suffix '" + suffix + "' (allowed: " + allowed + ")");
}

}  // namespace

Result<std::int64_t> parse_size(const std::string& text) {
  static const std::vector<std::pair<std::string, std::int64_t>> kUnits = {
      {"", 1},
      {"k", 1000LL}, {"K", 1000LL}, {"m", 1000LL * 1000}, {"M", 1000LL * 1000},
      {"g", 1000LL * 1000 * 1000}, {"G", 1000LL * 1000 * 1000},
      {"t", 1000LL * 1000 * 1000 * 1000}, {"T", 1000LL * 1000 * 1000 * 1000},
      {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}, {"TiB", 1LL << 40}};
  return scaled(text, kUnits, "bytes, k/m/g/t = x1000, KiB/MiB/GiB/TiB = x1024");
}

Result<std::int64_t> parse_duration(const std::string& text) {
  static const std::vector<std::pair<std::string, std::int64_t>> kUnits = {
      {"", 1}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  return scaled(text, kUnits, "seconds, or s/m/h/d");
}

Result<LimitSet> parse_limits_spec(const std::string& spec) {
  // The keys are the limits' `--limits` names in engine/layer_schema.h.
  std::string allowed;
  for (int i = 0; i < kLimitCount; ++i)
    allowed += (i ? ", " : "") + std::string(layer_schema::limit_cli_key(static_cast<LimitKey>(i)));
  LimitSet out{};
  if (spec.empty()) return bad_input("--limits: empty spec (expected key=value pairs: " + allowed + ")");
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    const std::string pair = spec.substr(start, comma - start);
    if (pair.empty()) return bad_input("--limits '" + spec + "': empty pair (expected key=value, keys: " + allowed + ")");
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
      return bad_input("--limits '" + pair + "': expected key=value (keys: " + allowed + ")");
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    std::optional<LimitKey> found;
    for (int i = 0; i < kLimitCount; ++i)
      if (layer_schema::limit_cli_key(static_cast<LimitKey>(i)) == key) found = static_cast<LimitKey>(i);
    if (!found) return bad_input("--limits: unknown key '" + key + "' (allowed: " + allowed + ")");
    const layer_schema::Unit unit = layer_schema::limit_unit(*found);
    Result<std::int64_t> v = unit == layer_schema::Unit::kDuration ? parse_duration(value) : parse_size(value);
    if (!v.ok()) return bad_input("--limits " + key + ": " + v.error().message);
    if (unit == layer_schema::Unit::kCount && value.find_first_not_of("0123456789") != std::string::npos &&
        !(value.back() == 'k' || value.back() == 'K'))
      return bad_input("--limits " + key + ": '" + value + "' must be a count (digits, optional k)");
    auto& slot = out[static_cast<int>(*found)];
    slot = slot ? std::min(*slot, *v) : *v;
    start = comma + 1;
    if (comma == spec.size()) break;
  }
  return out;
}

}  // namespace paddock
