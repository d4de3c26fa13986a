// An OCI session (docs/backends.md): the helper writes the plan's bundle into the session's
// directory and supervises an existing OCI runtime (runc, crun) running it, instead of building
// its own sandbox. What a session is stays the same: the attestation stored before the runtime
// starts (with the sha256 of the config.json the runtime is given), events.jsonl, the control
// socket (stop), the wall-time deadline, report.json. The container's PID namespace holds the
// agent's whole tree: killing its init kills the tree.
#pragma once

#include <string>
#include <vector>

#include "engine/session/usage_message.h"
#include "engine/status.h"
#include "helpers/linux/supervisor.h"

namespace paddock::helper {

// A protected path the plan found absent, which the runtime would make as a mount point in the
// project: the helper makes it (and any missing directory above it) before the runtime starts,
// records it in the user's placeholder registry and removes it at the end, as the Linux sandbox
// does with its own placeholders (placeholders.h).
struct OciPlaceholder {
  std::string within;   // the write root the path is in
  std::string target;   // the path
  bool dir = false;     // the path itself is made a directory (else an empty file)
  std::string content;  // what the file holds (a git pointer's ".\n")
};

struct OciSpec {
  std::string runtime;           // absolute path of runc or crun
  std::string bundle;            // the bundle written for this session
  std::string container_id;      // the runtime's name for the container
  std::string state_root;        // the runtime's --root: a private directory of this user's
  std::vector<std::string> argv;  // the agent's command, for session_started
  std::string attestation_json;
  std::vector<OciPlaceholder> placeholders;
  std::vector<std::string> placeholder_candidates;  // held shared while the session runs
  // A filtered network: where the runtime hands over the container's seccomp listener (the
  // bundle's listenerPath), "" with the network off.
  std::string seccomp_listener;
  // The policy's limits, named in the usage answer (null: none).
  session::LiveUsage::Limits limits;
};

// "runc 1.1.5" from the runtime's --version (its program name alone when it prints no version).
Result<std::string> runtime_label(const std::string& runtime);

// Runs the session to its end; returns the exit code of docs/cli.md. The control socket's usage
// answer is read from /proc over the runtime's descendants (the container's processes). The
// runtime's exit status is the agent's; a runtime that exits without having started the container (it wrote no pid
// file) is a setup failure (125), its own message on stderr above Paddock's line.
int run_oci_session(const OciSpec& spec, const SessionOptions& options);

}  // namespace paddock::helper
