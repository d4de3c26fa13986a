// Bounded `when:` conditions (docs/policy-layers.md). None runs a process or follows a symlink, and
// the one that scans (project_contains) has a fixed budget: past it the load fails (125).
#pragma once

#include <string>

#include "engine/context.h"
#include "engine/layer.h"

namespace paddock {

inline constexpr std::size_t kContainsFileBudget = 4096;
inline constexpr std::size_t kContainsByteBudget = 8 * 1024 * 1024;

struct ConditionResult {
  bool holds = true;
  std::string description;  // e.g. "branch is main (current: main); os is linux"
  // The condition reads the project (branch, file_exists, project_contains): state the agent
  // writes, so it is never trusted to lift a restriction (docs/policy-layers.md, "Conditions").
  bool reads_project = false;
  // The conditions on host facts the agent cannot change (os, agent_is) hold.
  bool host_facts_hold = true;
};

Result<ConditionResult> evaluate_when(const Layer::When& when, const EvalContext& ctx);

// The current branch from .git/HEAD ("" when detached or not a repository); no git process, and
// nothing read that is not a small regular file (a FIFO in its place is no branch, not a wait).
std::string current_branch(const std::string& project, const DirectoryLister* lister = nullptr);

// The restrictions of a layer (denies, write protections, limits, quotas, network off, ...): what
// applies of a layer whose condition reads the project and does not hold. Built by naming what
// restricts, so that a key added later is left out until it is named here.
Layer restrictions_of(const Layer& l);

}  // namespace paddock
