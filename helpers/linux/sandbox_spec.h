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
  // The caller's soft RLIMIT_NOFILE: the helper raised its own to the hard limit (see
  // helper_run.cpp), the agent starts from the caller's again, then the plan's limit applies.
  std::optional<std::uint64_t> agent_nofile_soft;
};

// Messages on the report socket (SOCK_SEQPACKET, one JSON object per packet), sandbox -> helper:
//   {"type":"setup_failed","message":...}   setup failed before exec (exit 125)
//   {"type":"placeholders","list":[{path,dir,dev,ino}]}  placeholders made on the host (mount_view.h)
//   {"type":"proxy_listen"} + SCM_RIGHTS fd  the in-namespace listening socket for the relay
//   {"type":"attestation","attestation":{..}} everything applied; exec follows
//   {"type":"exec_failed","errno":N,"message":...}
//   {"type":"exit","status":W,"pids":N}     the agent's wait status, from init

}  // namespace paddock::helper
