// One OS-neutral entry point: IR + backend + facts about the target -> plan data, and the
// fail-closed check that runs before any fork.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/status.h"

namespace paddock::backends {

enum class BackendId { kLinux, kMacos, kWindows, kOci, kKubernetes };
const char* to_string(BackendId id);
Result<BackendId> backend_from_string(const std::string& name);  // kBadInput on unknown
BackendId host_backend();  // the OS this binary was built for
const std::vector<BackendId>& all_backends();  // every backend, in this enum's order

// probe: backend-specific facts (Linux: KernelProbe JSON from `paddock-helper probe`; macOS and
// Windows: {} or an OS version object). Compiling never fails for an unsupported request: that
// is recorded in the capability vector and refused by check().
Result<BackendPlan> compile(const FrozenIr& ir, BackendId backend, const nlohmann::json& probe);

// Every field of the matrix for a backend (for docs and the GUI's Capabilities view).
std::vector<FieldCapability> capability_matrix(BackendId backend, const nlohmann::json& probe);

// The matrix as it holds for a launch from this machine, given the Linux helper's probe of it (the
// OCI rows depend on who starts the runtime and on the kernel); {} where there is no probe.
std::vector<FieldCapability> capability_matrix_here(BackendId backend, const nlohmann::json& linux_probe);

// Fail-closed check (docs/capabilities.md): ok, or kRefused (exit 125) with one actionable line.
Status check(const BackendPlan& plan);

}  // namespace paddock::backends
