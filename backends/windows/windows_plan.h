// The Windows backend: frozen IR -> an AppContainer spec (data) that helpers/windows applies with
// CreateAppContainerProfile, per-path ACL entries for the AppContainer SID and a Job object.
// Pure, so it is golden-tested on Linux. What the spec cannot express exactly is refused.
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

namespace paddock::windows_backend {

struct PathGrant {
  std::string path;
  std::string access;  // "read" (read + execute) | "write" (read, write, execute, delete)
  bool operator==(const PathGrant&) const = default;
};

// An explicit deny ACE for the AppContainer SID. Explicit ACEs are ordered before inherited
// ones, so it beats a grant inherited from a parent directory. Only emitted where that is exact:
// an existing path outside every write root (inside a write root the agent could delete and
// re-create the path under the inherited grant; check() refuses that case).
struct PathDeny {
  std::string path;
  std::string kind;    // "dir" | "file"
  std::string access;  // "all" (deny) | "write" (deny_write)
  bool operator==(const PathDeny&) const = default;
};

struct JobLimits {
  std::optional<std::int64_t> job_memory_bytes;    // JOB_OBJECT_LIMIT_JOB_MEMORY
  std::optional<std::int64_t> active_processes;    // JOB_OBJECT_LIMIT_ACTIVE_PROCESS
  std::optional<std::int64_t> job_user_time_secs;  // JOB_OBJECT_LIMIT_JOB_TIME (user mode)
  bool kill_on_job_close = true;                   // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
  bool operator==(const JobLimits&) const = default;
};

struct WindowsEnv {
  std::map<std::string, std::string> set;
  std::vector<std::string> pass;
  bool operator==(const WindowsEnv&) const = default;
};

struct WindowsSpec {
  std::string container_name;             // "paddock.<24 hex of ir_hash>": stable, no pid
  std::vector<std::string> capabilities;  // capability SIDs granted; empty = no network at all
  std::vector<PathGrant> grants;
  std::vector<PathDeny> denies;
  JobLimits job;
  WindowsEnv env;
  bool private_temp = true;               // TEMP/TMP = fresh dir in the container's own folder
  std::optional<std::int64_t> wall_time_secs;
  bool operator==(const WindowsSpec&) const = default;
};

// The Windows plan's steps (declared below: each key is the step's name).
struct WindowsPlan {
  WindowsSpec appcontainer;
  bool operator==(const WindowsPlan&) const = default;
};

nlohmann::json to_json(const WindowsSpec& spec);
Result<WindowsSpec> spec_from_json(const nlohmann::json& j);  // strict (the helper uses it)

WindowsSpec compile_spec(const FrozenIr& ir);
std::vector<FieldCapability> windows_capability_matrix();
Result<BackendPlan> compile_windows(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::windows_backend

namespace paddock::schema {

using namespace paddock::windows_backend;

template <>
struct Schema<PathGrant> {
  static constexpr auto fields = std::make_tuple(field("path", &PathGrant::path), field("access", &PathGrant::access));
};

template <>
struct Schema<PathDeny> {
  static constexpr auto fields =
      std::make_tuple(field("path", &PathDeny::path), field("kind", &PathDeny::kind), field("access", &PathDeny::access));
};

template <>
struct Schema<JobLimits> {
  static constexpr auto fields = std::make_tuple(
      field("job_memory_bytes", &JobLimits::job_memory_bytes), field("active_processes", &JobLimits::active_processes),
      field("job_user_time_secs", &JobLimits::job_user_time_secs), field("kill_on_job_close", &JobLimits::kill_on_job_close));
};

template <>
struct Schema<WindowsSpec> {
  static constexpr auto fields = std::make_tuple(
      field("container_name", &WindowsSpec::container_name), field("capabilities", &WindowsSpec::capabilities),
      field("grants", &WindowsSpec::grants), field("denies", &WindowsSpec::denies), field("job", &WindowsSpec::job),
      field("env", &WindowsSpec::env), field("private_temp", &WindowsSpec::private_temp),
      field("wall_time_secs", &WindowsSpec::wall_time_secs));
};

template <>
struct Schema<WindowsEnv> {
  static constexpr auto fields = std::make_tuple(field("set", &WindowsEnv::set), field("pass", &WindowsEnv::pass));
};

template <>
struct Schema<WindowsPlan> {
  static constexpr auto fields = std::make_tuple(field("appcontainer", &WindowsPlan::appcontainer));
};

}  // namespace paddock::schema
