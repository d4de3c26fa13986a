// The macOS backend: frozen IR -> a Seatbelt (SBPL) profile applied by the macOS helper with
// sandbox_init_with_parameters, plus rlimits and the environment. Pure, so it is golden-tested
// on Linux. User paths never appear in the profile text: each is a parameter.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::macos_backend {

struct SbplProfile {
  std::string text;                           // resources/macos/paddock-base.sb + generated rules
  std::map<std::string, std::string> params;  // WRITABLE_ROOT_0 -> /Users/me/proj, ...
  // Parameters whose value only the helper knows at launch (never hashed): SESSION_TMPDIR.
  std::vector<std::string> helper_params;
  bool operator==(const SbplProfile&) const = default;
};

enum class MacosRlimit { kCpu, kNproc, kNofile, kFsize, kCore };

struct MacosLimit {
  MacosRlimit resource = MacosRlimit::kCore;
  std::int64_t value = 0;
  bool operator==(const MacosLimit&) const = default;
};

struct MacosEnv {
  std::map<std::string, std::string> set;
  std::vector<std::string> pass;
  std::string tmpdir = "SESSION_TMPDIR";  // the helper parameter TMPDIR is set to
  bool operator==(const MacosEnv&) const = default;
};

// The macOS plan's steps, in the order the helper applies them (declared below: each key is the
// step's name).
struct MacosPlan {
  SbplProfile seatbelt;
  std::vector<MacosLimit> rlimits;
  MacosEnv env;
  std::optional<std::int64_t> wall_time_secs;
  bool operator==(const MacosPlan&) const = default;
};

// The fixed base text (resources/macos/paddock-base.sb, embedded at build time).
const std::string& base_profile();

// Base text, then (allow file-read* file-write*) for write roots, (allow file-read*) for read
// roots, then trailing denies for deny_write and deny (last match wins in SBPL).
SbplProfile compile_sbpl(const FrozenIr& ir);

std::vector<FieldCapability> macos_capability_matrix();

MacosPlan compile_macos_plan(const FrozenIr& ir);

// probe: {} or an OS description object; it is carried into the plan as given.
Result<BackendPlan> compile_macos(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::macos_backend

namespace paddock::schema {

using namespace paddock::macos_backend;

template <>
struct EnumNames<MacosRlimit> {
  static constexpr NameTable<MacosRlimit, 5> values{{{MacosRlimit::kCpu, "cpu"},
                                                     {MacosRlimit::kNproc, "nproc"},
                                                     {MacosRlimit::kNofile, "nofile"},
                                                     {MacosRlimit::kFsize, "fsize"},
                                                     {MacosRlimit::kCore, "core"}}};
};

template <>
struct Schema<SbplProfile> {
  static constexpr auto fields = std::make_tuple(field("profile", &SbplProfile::text), field("params", &SbplProfile::params),
                                                 field("helper_params", &SbplProfile::helper_params));
};

template <>
struct Schema<MacosLimit> {
  static constexpr auto fields = std::make_tuple(field("resource", &MacosLimit::resource), field("value", &MacosLimit::value));
};

template <>
struct Schema<MacosEnv> {
  static constexpr auto fields =
      std::make_tuple(field("set", &MacosEnv::set), field("pass", &MacosEnv::pass), field("tmpdir", &MacosEnv::tmpdir));
};

template <>
struct Schema<MacosPlan> {
  static constexpr auto fields =
      std::make_tuple(field("seatbelt", &MacosPlan::seatbelt), field("rlimits", &MacosPlan::rlimits),
                      field("env", &MacosPlan::env), field("wall_time_secs", &MacosPlan::wall_time_secs));
};

}  // namespace paddock::schema
