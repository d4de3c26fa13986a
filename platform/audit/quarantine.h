// The user's decision on a direct-mode audit's findings (docs/audit.md, "Quarantine and keep"):
// quarantine moves what the session created into the session's audit/quarantine/, or, for a file
// it changed whose content before the session was preserved, copies the session's version there
// and puts the content before the session back; keep accepts the finding as it is (and puts back
// what an earlier quarantine moved, when its place is still free). Atomic per finding and
// journaled: a quarantine killed at any point leaves the finding either where the agent left it
// or wholly in the session's directory, never lost, and the next quarantine or keep finishes it.
// A finding that changed since the audit is left alone and reported.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/session/layout.h"
#include "engine/status.h"

namespace paddock::platform {

struct AuditOutcome {
  std::vector<std::string> done;
  std::vector<std::pair<std::string, std::string>> skipped;  // path, why
  std::size_t pending = 0;  // findings still undecided afterwards
};

// Test seam: called once the finding's content is safe in the session's directory and before
// the project is changed, so that a test can kill the process there.
using QuarantineStep = void (*)(const std::string& path);

// `paths`: absolute finding paths; empty: every pending finding. A path that is no finding of the
// session is an error (bad input), before anything is done.
Result<AuditOutcome> quarantine_findings(const session::Layout& layout, const std::string& id,
                                         const std::vector<std::string>& paths, QuarantineStep step = nullptr);
Result<AuditOutcome> keep_findings(const session::Layout& layout, const std::string& id,
                                   const std::vector<std::string>& paths);

}  // namespace paddock::platform
