// The macOS backend: frozen IR -> a Seatbelt (SBPL) profile applied by the macOS helper with
// sandbox_init_with_parameters, plus rlimits and the environment. Pure, so it is golden-tested
// on Linux. User paths never appear in the profile text: each is a parameter.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/status.h"

namespace paddock::macos_backend {

struct SbplProfile {
  std::string text;                           // resources/macos/paddock-base.sb + generated rules
  std::map<std::string, std::string> params;  // WRITABLE_ROOT_0 -> /Users/me/proj, ...
  // Parameters whose value only the helper knows at launch (never hashed): SESSION_TMPDIR.
  std::vector<std::string> helper_params;
  bool operator==(const SbplProfile&) const = default;
};

// The fixed base text (resources/macos/paddock-base.sb, embedded at build time).
const std::string& base_profile();

// Base text, then (allow file-read* file-write*) for write roots, (allow file-read*) for read
// roots, then trailing denies for deny_write and deny (last match wins in SBPL).
SbplProfile compile_sbpl(const FrozenIr& ir);

std::vector<FieldCapability> macos_capability_matrix();

// probe: {} or an OS description object; it is carried into the plan as given.
Result<BackendPlan> compile_macos(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::macos_backend
