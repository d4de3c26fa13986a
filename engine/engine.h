// The engine's front door: every front end (CLI, GUI, tests) turns launch inputs into an
// Evaluation here, and nowhere else. Pure function of its inputs: the file system it reads
// and the environment map it is given (never getenv).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/dir_lister.h"
#include "engine/ir.h"
#include "engine/status.h"

namespace paddock {

struct Inputs {
  std::string project = ".";
  std::string agent;                      // "" = no agent preset
  std::string profile = "default";        // builtin-profile tier
  std::string preset = "balanced";        // preset tier
  std::vector<std::string> policy_files;  // cli-explicit-file tier, in order
  // cli-flags tier
  std::optional<NetMode> net;
  std::vector<std::string> allow_domains;  // D or D:PORT
  std::vector<std::string> allow_reads;
  std::vector<std::string> allow_writes;
  std::vector<int> publish;                // --publish PORT: host loopback ports forwarded in
  std::vector<int> host_ports;             // --host-port PORT: host loopback ports the sandbox reaches
  std::optional<std::string> limits;       // --limits spec
  std::optional<std::int64_t> timeout_secs;
  bool git_ssh = false;
  // --review: hold the agent's writes for review (filesystem.review: true in the cli-flags tier).
  bool review = false;
  // --tier: the Linux backend's tier ("" = namespaces; "landlock": docs/capabilities.md).
  std::string linux_tier;
  // Where paddock-connect is installed (the front end knows its own layout); used only with
  // git_ssh, and recorded in the IR so the plan shows it and its hash covers it.
  std::string connect_path;
  // The launched command's installation (`run` resolves it on the caller's PATH): read+execute
  // grants with provenance launch-command. Not added under the system's security.immutable;
  // `run` then refuses a command the policy leaves unreadable.
  std::vector<std::string> launch_reads;

  // The launch environment (HOME, XDG_*, PATH, PADDOCK_*, and whatever may pass through).
  std::map<std::string, std::string> environment;
  // The credentials stored on this machine (docs/credentials.md): name -> the "host:port" it was
  // stored for, from the store's index, never a value. A declared credential is brokered only
  // when it is stored, and only to the host it was stored for.
  std::map<std::string, std::string> stored_credentials;
  std::string os = "linux";               // OS to resolve for
  std::string resources_dir;              // where profiles/, presets/, agents/ live
  // Unsaved editor contents (GUI live preview): absolute layer path -> YAML text, used instead
  // of the file's bytes. Approval and signature state are computed on these bytes.
  std::map<std::string, std::string> overlay;
  // run/approve need approvals; explain/plan/GUI show the state without refusing.
  bool require_approvals = false;
  // explain/plan/lint/GUI show lint findings and provenance; `run` needs only the IR and skips
  // computing them (Evaluation::lint and ::provenance stay empty).
  bool with_report = true;
  // How the glob walks read directories: the platform's fast lister in the front ends, the
  // engine's portable one when null (dir_lister.h).
  const DirectoryLister* lister = nullptr;
  // Paddock's own placeholders that running sessions keep on this machine for absent protected
  // paths (engine/session/placeholder_record.h; the front ends read them with
  // platform/placeholders.h): the evaluation sees each as the absent path it stands for, never
  // as the user's file, so that the IR is the one the user's tree alone gives.
  std::vector<std::string> placeholders;
};

enum class SignatureState { kUnsigned, kVerified, kFailed };
enum class ApprovalState { kNotNeeded, kApproved, kUnapproved };

struct LayerInfo {            // one card in the tier stack
  std::string tier;
  std::string file;           // absolute path or builtin:...
  std::string sha256;
  bool exists = false;
  bool applies = false;
  std::string condition;      // the `when:` condition that decided, in words ("" = none)
  SignatureState signature = SignatureState::kUnsigned;
  bool immutable = false;
  ApprovalState approval = ApprovalState::kNotNeeded;
  nlohmann::json adds = nlohmann::json::object();  // what this layer contributes (for approval)
};

struct LintFinding {
  std::string rule;     // R1..R5, ESC
  std::string message;
  std::string tier;
  std::string file;
};

struct Evaluation {
  FrozenIr ir;
  std::string ir_hash;
  std::string ir_bytes;               // canonical_bytes(ir), what ir_hash hashes (and ir.json holds)
  nlohmann::json provenance;          // IR entry -> [{tier, file, action: added|removed, rule}]
  std::vector<LayerInfo> layers;      // all ten tiers' candidate files, applied or not
  std::vector<LintFinding> lint;
  // The agent preset's own key variables (agent.credential_env), and what of its own
  // credentials this session does not get for want of environment.agent_credentials: those
  // variables set in the launch environment and its stored login files that exist. `run` says
  // so in one line; `explain --why NAME` names the opt-in.
  std::vector<std::string> agent_credential_env;
  std::vector<std::string> withheld_credentials;
};

Result<Evaluation> evaluate(const Inputs& inputs);

// The agent preset's agent.state_dirs, absolute: `run` creates those that are absent before it
// evaluates, so that they exist to be granted (a missing path is never granted). Empty without
// an agent.
Result<std::vector<std::string>> agent_state_dirs(const Inputs& inputs);

// `explain --json`: {ir, ir_hash, provenance, warnings, lint}
nlohmann::json explain_json(const Evaluation& e);

struct WhyAnswer {
  std::string subject;   // the normalised path, domain or env var
  std::string kind;      // path | domain | env
  bool allowed = false;
  std::string access;    // for paths: none | read | write
  std::string tier;      // deciding tier
  std::string file;      // deciding file
  std::string rule;      // e.g. "filesystem.deny[2]: ~/.ssh"
  std::string reason;    // one sentence
};
// Answers from e.ir (the same IR the helper enforces) and e.provenance.
WhyAnswer why(const Evaluation& e, const std::string& query);
nlohmann::json to_json(const WhyAnswer& w);

}  // namespace paddock
