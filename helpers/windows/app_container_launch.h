// Applies a WindowsSpec (backends/windows/windows_plan.h) and runs one command inside it:
// AppContainer profile + SID, ACL entries for that SID on each path, a Job object with the
// spec's limits, then CreateProcess with SECURITY_CAPABILITIES, suspended, assigned to the Job,
// resumed. Every failure before the command starts is a refusal (exit 125), never a fallback.
#pragma once

#include <string>
#include <vector>

#include "backends/windows/windows_plan.h"
#include "engine/status.h"

namespace paddock::winhelper {

struct LaunchResult {
  // The command's exit code; the timeout code on wall-time, the refusal code on setup failure.
  int exit_code = static_cast<int>(ErrorCode::kRefused);
  std::string error;     // one line when setup failed
};

LaunchResult run_in_app_container(const windows_backend::WindowsSpec& spec,
                                  const std::vector<std::string>& command);

}  // namespace paddock::winhelper
