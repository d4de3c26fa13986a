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

struct WindowsSpec {
  std::string container_name;             // "paddock.<24 hex of ir_hash>": stable, no pid
  std::vector<std::string> capabilities;  // capability SIDs granted; empty = no network at all
  std::vector<PathGrant> grants;
  std::vector<PathDeny> denies;
  JobLimits job;
  std::map<std::string, std::string> env_set;
  std::vector<std::string> env_pass;
  bool private_temp = true;               // TEMP/TMP = fresh dir in the container's own folder
  std::optional<std::int64_t> wall_time_secs;
  bool operator==(const WindowsSpec&) const = default;
};

nlohmann::json to_json(const WindowsSpec& spec);
Result<WindowsSpec> spec_from_json(const nlohmann::json& j);  // strict (the helper uses it)

WindowsSpec compile_spec(const FrozenIr& ir);
std::vector<FieldCapability> windows_capability_matrix();
Result<BackendPlan> compile_windows(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::windows_backend
