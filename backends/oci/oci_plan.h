// The OCI backend (docs/backends.md): frozen IR -> the config.json of an OCI runtime bundle, run by
// an existing runtime (crun, runc) instead of paddock-helper. Pure, like every plan compiler: the
// plan holds what the IR decides; what only the launch knows (the command, the values of passed
// environment variables, whose uid the container's root maps to) is added by complete_config().
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/linux/kernel_probe.h"
#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::oci_backend {

// What the plan depends on besides the IR: whether the runtime will manage cgroups (run by root;
// a rootless runtime on this kind of host cannot), and what the kernel's rlimits mean where it
// will not. `paddock plan --backend oci` takes them from the machine it runs on; the plan's probe.
struct OciFacts {
  bool runtime_cgroups = true;    // memory and processes go to the runtime's cgroup
  bool rlimit_data = true;        // the kernel enforces RLIMIT_DATA (Linux 4.7+)
  bool nproc_per_userns = true;   // RLIMIT_NPROC counts the container's own tasks (Linux 5.14+)
  bool operator==(const OciFacts&) const = default;
};
Result<OciFacts> facts_from_json(const nlohmann::json& probe);  // {} = the defaults
nlohmann::json to_json(const OciFacts& facts);

// The facts for a runtime started by this caller (root: the runtime manages cgroups) on the kernel
// the Linux helper's probe describes.
OciFacts facts_for(const linux_backend::KernelProbe& kernel);

// Files the bundle holds beside config.json, named relative to the bundle (bind sources of
// placeholders and masks); the bundle writer makes each with the given mode and content.
struct BundleFile {
  std::string path;  // "paddock/empty-file", ...
  int mode = 0444;
  bool directory = false;
  std::string content;
};
const std::vector<BundleFile>& bundle_files();

// The Linux helper's seccomp deny table in the runtime spec's words (also the format of a
// Kubernetes Localhost seccomp profile).
nlohmann::json seccomp_profile();

// The config.json the IR asks for, launch-independent (process.args empty, process.env holding
// only the IR's set values, no uid mappings): the plan's one step, "oci_config".
nlohmann::json compile_config(const FrozenIr& ir, const OciFacts& facts);

// What the launch adds to the plan's config.
struct LaunchFacts {
  std::vector<std::string> command;         // the agent's argv; never empty
  std::map<std::string, std::string> pass;  // the passed names present in the launch environment
  std::string cwd;                          // a path inside the view
  unsigned uid = 0, gid = 0;                // the host ids the container's root maps to
  // Where the runtime hands the helper the container's seccomp listener (a filtered network
  // only; a plan that needs one is refused without it).
  std::string seccomp_listener;
};
Result<nlohmann::json> complete_config(const nlohmann::json& config, const LaunchFacts& launch);

// The launch's facts read back from a completed config, given the plan's config it was completed
// from: complete_config(plan_config, *launch_of(...)) == completed exactly when the completed
// config differs from the plan's by the launch's facts alone (what `paddock verify` checks).
Result<LaunchFacts> launch_of(const nlohmann::json& completed, const nlohmann::json& plan_config);

// The bytes of config.json as a bundle holds them (and as a session's attestation hashes them).
// An environment value that is not UTF-8 cannot be written: bad input naming the variable.
Result<std::string> config_text(const nlohmann::json& config);

std::vector<FieldCapability> oci_capability_matrix(const OciFacts& facts);

// probe: an OciFacts object ({} for the defaults); carried into the plan as given.
Result<BackendPlan> compile_oci(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::oci_backend

namespace paddock::schema {

template <>
struct Schema<oci_backend::OciFacts> {
  using F = oci_backend::OciFacts;
  static constexpr auto fields =
      std::make_tuple(field("runtime_cgroups", &F::runtime_cgroups), field("rlimit_data", &F::rlimit_data),
                      field("nproc_per_userns", &F::nproc_per_userns));
};

}  // namespace paddock::schema
