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
};

Result<ConditionResult> evaluate_when(const Layer::When& when, const EvalContext& ctx);

// The current branch from .git/HEAD ("" when detached or not a repository); no git process.
std::string current_branch(const std::string& project);

}  // namespace paddock
