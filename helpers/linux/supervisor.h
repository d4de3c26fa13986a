// The host side of a session: clones the sandbox (new user/mount/PID/IPC/UTS/net namespaces),
// maps the caller's uid/gid into it, places it in the cgroup leaf, then supervises: stores the
// attestation, serves the control socket, enforces the wall-clock timeout, hosts the egress relay,
// kills the whole tree at the end and writes session_ended and report.json.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/session/event.h"
#include "engine/session/layout.h"
#include "helpers/linux/credential_relay.h"
#include "helpers/linux/sandbox_spec.h"

namespace paddock::helper {

class SessionAudit;
class EventLog;
class SessionFiles;

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
  // Direct mode's audit at the session's end (session_audit.h), prepared before the sandbox
  // exists; null: none. The layout (for the pending-findings marker) and the built-in lists.
  std::shared_ptr<SessionAudit> audit;
  std::optional<session::Layout> layout;
  std::string resources_dir;
  IrFs agent_state;  // the IR's fs: its agent_state_dir and agent_state (agent_state_layers.h)
  std::string home;  // the IR's home: ~ in the files the watched settings name
  session::SessionStarted started;  // hashes and backend; the rest is filled in here
  // Non-empty: written to the session as ir.json and plan.json while the sandbox builds its view
  // (the bytes the helper read and verified; see --record-session).
  std::string record_ir, record_plan;
};

// Runs the session to its end; returns the exit code of docs/cli.md.
int run_session(const SandboxSpec& spec, const SessionOptions& options);

// session_ended, then report.json. The folded events still pending are written first, and the
// report counts the events the log's cap kept out of the file.
void emit_report(EventLog& events, session::Report report, SessionFiles& files);

// What a session left changed in the agents' host-executed settings (agent_config_watch.h), once
// nothing of it runs: an event each, and a line each on stderr, where `paddock run` was started.
// `events` may be null (no session directory).
void announce_config_changes(EventLog* events, const std::vector<session::ConfigChange>& changes);

// Writes report.json and a session_ended event for a session that failed before anything
// started, then returns code (so callers can `return fail_session(...)`).
int fail_session(const SessionOptions& options, int code, const std::string& message);

}  // namespace paddock::helper
