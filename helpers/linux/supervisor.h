// The host side of a session: clones the sandbox (new user/mount/PID/IPC/UTS/net namespaces),
// maps the caller's uid/gid into it, places it in the cgroup leaf, then supervises: stores the
// attestation, serves the control socket, enforces the wall-clock timeout, hosts the egress relay,
// kills the whole tree at the end and writes session_ended and report.json.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/session/event.h"
#include "helpers/linux/credential_relay.h"
#include "helpers/linux/sandbox_spec.h"

namespace paddock::helper {

struct SessionOptions {
  std::string session_id;
  std::string session_dir;     // attestation.json, events.jsonl, report.json go here
  std::string control_socket;  // "" = none
  std::string placeholders_dir;  // the user's placeholder records (session::Layout); "" = none
  std::optional<long> timeout_secs;
  IrEgress egress;             // for the relay (mode != off)
  CredentialRelayOptions credentials;  // the brokered credentials (docs/credentials.md)
  std::string credential_use_file;     // where their last use is recorded ("" = not recorded)
  std::vector<WatchedConfig> watched_configs;  // read before the sandbox exists, compared at its end
  session::SessionStarted started;  // hashes and backend; the rest is filled in here
  // Non-empty: written to the session as ir.json and plan.json while the sandbox builds its view
  // (the bytes the helper read and verified; see --record-session).
  std::string record_ir, record_plan;
};

// Runs the session to its end; returns the exit code of docs/cli.md.
int run_session(const SandboxSpec& spec, const SessionOptions& options);

// Writes report.json and a session_ended event for a session that failed before anything
// started, then returns code (so callers can `return fail_session(...)`).
int fail_session(const SessionOptions& options, int code, const std::string& message);

}  // namespace paddock::helper
