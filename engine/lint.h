// Lint (seed §1): R1 home write root, R2 home blanket read, R3 useless deny, R4 secret-shaped
// files present but unmasked, R5 no limits, ESC escape-equivalent unix socket grants.
#pragma once

#include <vector>

#include "engine/context.h"
#include "engine/engine.h"
#include "engine/provenance.h"

namespace paddock {

inline constexpr std::size_t kLintScanBudget = 20000;

std::vector<LintFinding> lint_ir(const FrozenIr& ir, const Provenance& prov, const EvalContext& ctx);
// `.env`, `.env.*`, `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.kdbx`, case-insensitive.
bool is_secret_shaped(const std::string& name);
// Container engine, ssh-agent and D-Bus sockets: a grant to one is a grant to the host.
bool is_escape_socket(const std::string& path);

}  // namespace paddock
