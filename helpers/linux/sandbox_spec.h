// Everything the sandboxed side needs, fixed before clone(): the plan to apply, the command, the
// launch environment (only names the plan passes are copied) and the attestation to report.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"

namespace paddock::helper {

struct SandboxSpec {
  linux_backend::LinuxPlan plan;
  std::vector<std::string> argv;                  // the agent command, argv[0] looked up on PATH
  std::map<std::string, std::string> launch_env;  // the helper's own environment
  std::string cwd;                                // working directory inside the view
  std::string attestation_json;                   // sent on the report socket right before exec
  // Each brokered credential's placeholder, by name (never its value): written into the
  // ${placeholder} of the plan's credential variables when the agent starts.
  std::map<std::string, std::string> credential_placeholders;
  // The caller's soft RLIMIT_NOFILE: the helper raised its own to the hard limit (see
  // helper_run.cpp), the agent starts from the caller's again, then the plan's limit applies.
  std::optional<std::uint64_t> agent_nofile_soft;
};

// The messages on the report socket, sandbox -> helper, are engine/session/init_message.h's.

}  // namespace paddock::helper
