#include "app/cli/review_output.h"

#include <cstdio>
#include <iostream>

#include "engine/review/text_diff.h"

namespace paddock::cli {

using review::Change;
using review::ChangeKind;
using review::EntryType;

// A path as the user sees it: relative to the project when inside it.
std::string shown(const std::string& path, const std::string& project) {
  if (!project.empty() && path.size() > project.size() && path.compare(0, project.size(), project) == 0 &&
      path[project.size()] == '/')
    return path.substr(project.size() + 1);
  return path;
}

char letter(const Change& c) {
  switch (c.kind) {
    case ChangeKind::kAdded: return 'A';
    case ChangeKind::kModified: return 'M';
    case ChangeKind::kDeleted: return 'D';
    case ChangeKind::kRenamed: return 'R';
  }
  return '?';
}

std::string describe(const Change& c, const std::string& project) {
  std::string what = shown(c.path, project);
  if (c.after.type == EntryType::kDir || (c.kind == ChangeKind::kDeleted && c.before.type == EntryType::kDir)) what += "/";
  if (c.kind == ChangeKind::kRenamed) what += "  (from " + shown(c.renamed_from, project) + ")";
  if (c.after.type == EntryType::kSymlink) what += " -> " + c.after.target;
  std::string notes;
  const auto note = [&](const std::string& n) { notes += (notes.empty() ? "" : ", ") + n; };
  if (c.kind == ChangeKind::kModified && c.before.type == c.after.type && c.before.mode != c.after.mode) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "mode %04o -> %04o", c.before.mode, c.after.mode);
    note(buf);
  }
  if (c.before.type != c.after.type && c.before.type != EntryType::kNone && c.after.type != EntryType::kNone)
    note(std::string(review::to_string(c.before.type)) + " -> " + review::to_string(c.after.type));
  if (c.binary) note("binary");
  if (c.after.type == EntryType::kFile) note(std::to_string(c.after.size) + " bytes");
  return what + (notes.empty() ? "" : "  [" + notes + "]");
}

void print_diff(const platform::ReviewSession& s, const Change& c, const std::string& project) {
  const std::string name = shown(c.path, project);
  if (c.binary) {
    std::cout << "Binary " << name << " differs\n";
    return;
  }
  auto before = platform::read_change_side(s, c, false);
  auto after = platform::read_change_side(s, c, true);
  if (!before.ok() || !after.ok()) {
    std::cout << name << ": " << (before.ok() ? after.error().message : before.error().message) << "\n";
    return;
  }
  const auto d = review::diff_lines(*before, *after);
  if (d.too_large) {
    std::cout << name << ": too many lines differ to show\n";
    return;
  }
  std::cout << review::unified(d, c.before.type == EntryType::kNone ? "/dev/null" : "a/" + shown(c.kind == ChangeKind::kRenamed ? c.renamed_from : c.path, project),
                               c.after.type == EntryType::kNone ? "/dev/null" : "b/" + name);
}

void print_change_sections(const review::ChangeSet& set, const std::string& base,
                           const std::function<bool(const review::Change&)>& wanted, const SectionWords& words) {
  const std::string& project = base;
  std::size_t flagged = 0, conflicts = 0;
  for (const auto& c : set.changes)
    if (c.pending() && wanted(c)) {
      flagged += c.flagged() ? 1 : 0;
      conflicts += c.conflict.empty() ? 0 : 1;
    }
  if (flagged) {
    std::cout << "\nFlagged: a tool on your machine would run these, or they point git elsewhere. Each is applied\n"
                 "only on its own: "
              << words.apply << " PATH\n";
    for (const auto& c : set.changes) {
      if (!c.pending() || !c.flagged() || !wanted(c)) continue;
      std::cout << "  ! " << letter(c) << " " << describe(c, project) << "\n";
      for (const auto& f : c.flags) std::cout << "        " << f.rule << ": " << f.why << "\n";
    }
  }
  if (conflicts) {
    std::cout << "\nConflicts: " << words.conflicts << "; never overwritten\n"
              << "(" << words.diff << " --diff PATH shows both sides):\n";
    for (const auto& c : set.changes)
      if (c.pending() && !c.conflict.empty() && wanted(c))
        std::cout << "  ~ " << letter(c) << " " << describe(c, project) << "  (" << c.conflict << ")\n";
  }
  if (!set.commits.empty()) {
    std::cout << "\nCommits:\n";
    for (const auto& offer : set.commits) {
      std::cout << "  " << offer.ref << " in " << shown(offer.repo, project) << ": " << offer.commits.size()
                << (offer.commits.size() == 1 ? " new commit" : " new commits");
      if (offer.fast_forward && !offer.before.empty()) std::cout << ", a fast-forward of " << offer.before.substr(0, 12);
      if (offer.before.empty()) std::cout << ", a new ref";
      if (!offer.problem.empty()) std::cout << "; " << offer.problem;
      std::cout << "\n";
      for (const auto& c : offer.commits) std::cout << "    " << c.id.substr(0, 12) << " " << c.subject << "\n";
    }
  }
  bool header = false;
  for (const auto& c : set.changes) {
    if (!c.pending() || c.flagged() || !c.conflict.empty() || !wanted(c)) continue;
    if (!header) std::cout << "\nChanges (" << words.apply << " applies these):\n";
    header = true;
    std::cout << "  " << letter(c) << " " << describe(c, project) << "\n";
  }
}

}  // namespace paddock::cli
