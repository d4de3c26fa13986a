// The plain-words summary of an effective policy (the Home page and the top of Customize): what
// the agent can write, read and never see, its network, environment and limits, and whether this
// machine enforces all of it. Computed from the same Evaluation `paddock explain` prints (and the
// plan `paddock run` checks), never from a second reading of the layers; every line carries the
// "why" of its subject (tier, file, rule) from the engine's own why() and provenance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/plan.h"

namespace paddock::gui {

struct SummaryLine {
  std::string section;   // Files | Network | Environment | Limits | Enforcement
  std::string label;     // "Can write", "Hidden from the agent", ...
  std::string text;      // the words shown
  std::vector<std::string> paths;  // the IR entries the line stands for (paths, domains, names)
  std::string tier, file, rule;    // why: the deciding tier, file and rule of the line's first entry
  std::string decided;   // the why in words ("Decided by Paddock's default profile, in its list of ...")
  std::string detail;    // the engineer's detail behind the words, shown one click deeper ("" = none)
  bool warn = false;     // something the user should look at (partial, refused, a wide grant)
};

struct SummaryInputs {
  const Evaluation* evaluation = nullptr;
  // The plan compiled for this machine (nullptr: not compiled, e.g. no probe yet) and, when it
  // cannot run here, the check's one line.
  const BackendPlan* plan = nullptr;
  std::string plan_error;
  // The launch environment's variable names: how many of them the agent does not get.
  std::vector<std::string> environment_names;
  // Where the built-in lists are (their titles name them); "": lists are shown by name.
  std::string resources_dir;
};

std::vector<SummaryLine> summarize_policy(const SummaryInputs& in);

// One short line for a project card, from its summary: "writes this folder · 3 domains · secrets
// hidden" (what it may write, its network, whether anything is hidden from it).
std::string card_line(const std::vector<SummaryLine>& lines, const std::string& project);

// "~/x" for paths under home, "the project" / "the project/x" under the project.
std::string display_path(const std::string& path, const std::string& project, const std::string& home);
// 8 GiB, 512 MiB, 1.5 KiB ...
std::string human_bytes(std::int64_t bytes);
// 4 h, 30 min, 45 s ...
std::string human_seconds(std::int64_t secs);
// Who decided, in words: "Paddock's default profile", "this project's policy
// (.paddock/policy.yaml)", "this run's options", "Paddock itself, always" ...
std::string tier_in_words(const std::string& tier, const std::string& file, const std::string& project,
                          const std::string& home);

}  // namespace paddock::gui
