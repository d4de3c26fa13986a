// `paddock-helper run`'s arguments: built by `paddock run`, the tests and the benchmark with
// encode_run_args, read by the helper with decode_run_args, and its usage line printed from the
// same table, so that the three can never drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/status.h"

namespace paddock::session {

struct HelperRunArgs {
  std::string ir_file;         // --ir: the frozen IR (canonical JSON)
  std::string plan_hash;       // --plan-hash: what the caller compiled; the helper's must match
  std::string session_dir;     // --session-dir
  std::string session_id;      // --session-id
  std::string control_socket;  // --control-socket ("" = none)
  std::string probe_file;      // --probe: the caller's probe ("" = probe here)
  std::string cwd;             // --cwd ("" = the project)
  // --credentials: the brokered credentials' values and placeholders (credential_secrets.h),
  // read by the helper once the sandbox's init is running, never before; "" = none.
  std::string credentials_file;
  // --placeholders: each brokered credential's placeholder ({NAME: placeholder}), not secret,
  // read before the sandbox starts; "" = none.
  std::string placeholders_file;
  // --oci-runtime: run the IR's OCI plan with this runtime (an absolute path to runc or crun)
  // instead of the helper's own sandbox; "" = the helper's sandbox (docs/backends.md).
  std::string oci_runtime;
  std::optional<std::int64_t> timeout_secs;  // --timeout
  bool allow_tainted = false;  // --allow-tainted
  // --replaces-caller: `paddock run` exec'd the helper in its own process, so there is no
  // separate launcher whose death must end the session.
  bool replaces_caller = false;
  // --record-session: the helper writes the session's ir.json and plan.json itself.
  bool record_session = false;
  // --probe-cached: the probe came from this environment's probe cache (Layout::probe_cache),
  // which the helper removes on a refusal (125) or mismatch (103), so the next run probes afresh.
  bool probe_cached = false;
  std::vector<std::string> command;  // after "--"
};

// {"run", options..., "--", command...}: the helper's argv after its own name.
std::vector<std::string> encode_run_args(const HelperRunArgs& a);
// The inverse; args[0] must be "run". Unknown options, missing values and a missing command are
// errors (bad input) that name the option.
Result<HelperRunArgs> decode_run_args(const std::vector<std::string>& args);

// "paddock-helper probe | paddock-helper run --ir FILE ... -- CMD [ARGS...]"
std::string helper_usage();

}  // namespace paddock::session
