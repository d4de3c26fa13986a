// The landlock tier's session (backends/linux/landlock_tier_plan.h, docs/capabilities.md): no
// namespace is created. The helper becomes a child subreaper, carves the plan's denies out of the
// grants, stores the attestation, then forks the agent into a process group of its own, which
// sets its rlimits, drops every capability, sets no_new_privs and applies Landlock and seccomp
// before exec. At the end the helper kills the group (and the cgroup leaf where there is one),
// then every process reparented to it, until it has no child left.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/linux/landlock_tier_plan.h"
#include "helpers/linux/supervisor.h"

namespace paddock::helper {

struct TierSpec {
  linux_backend::LandlockTierPlan plan;
  std::vector<std::string> argv;
  std::map<std::string, std::string> launch_env;
  std::string cwd;
  std::string attestation_json;
  std::optional<std::uint64_t> agent_nofile_soft;  // the caller's soft RLIMIT_NOFILE, given back
};

// Adds to `rules` the rules of one carved grant: the grant and each directory between it and a
// target get read_dir only, every other entry the grant's rights, a read-only target read rights,
// a denied one nothing, a symlink nothing. Entries are opened without following symlinks and
// kept open in `held`; each rule names its descriptor (/proc/self/fd/N), so an entry swapped after
// the listing cannot redirect a rule. Refused (125) when `budget` would go below zero.
Status carve_grant(const linux_backend::LandlockCarve& carve, std::vector<linux_backend::LandlockPathRule>& rules,
                   std::vector<int>& held, int& budget);

// Runs the session to its end; returns the exit code of docs/cli.md.
int run_landlock_tier(const TierSpec& spec, const SessionOptions& options);

}  // namespace paddock::helper
