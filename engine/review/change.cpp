#include "engine/review/change.h"

#include "engine/json_text.h"

namespace paddock::review {

using nlohmann::json;

const char* to_string(EntryType t) {
  switch (t) {
    case EntryType::kNone: return "none";
    case EntryType::kFile: return "file";
    case EntryType::kDir: return "dir";
    case EntryType::kSymlink: return "symlink";
    case EntryType::kOther: return "other";
  }
  return "none";
}

const char* to_string(ChangeKind k) {
  switch (k) {
    case ChangeKind::kAdded: return "added";
    case ChangeKind::kModified: return "modified";
    case ChangeKind::kDeleted: return "deleted";
    case ChangeKind::kRenamed: return "renamed";
  }
  return "modified";
}

const char* to_string(GitRole r) {
  switch (r) {
    case GitRole::kNone: return "";
    case GitRole::kObject: return "object";
    case GitRole::kRef: return "ref";
    case GitRole::kBookkeeping: return "bookkeeping";
    case GitRole::kMetadata: return "metadata";
  }
  return "";
}

std::size_t ChangeSet::pending_count() const {
  std::size_t n = 0;
  for (const auto& c : changes) n += c.pending() ? 1 : 0;
  return n;
}

std::size_t ChangeSet::flagged_pending_count() const {
  std::size_t n = 0;
  for (const auto& c : changes) n += c.pending() && c.flagged() ? 1 : 0;
  return n;
}

namespace {

json state_json(const EntryState& s) {
  if (s.type == EntryType::kNone) return nullptr;
  json j = {{"type", to_string(s.type)}, {"mode", s.mode}};
  if (s.type == EntryType::kFile) j["size"] = s.size;
  if (s.type == EntryType::kSymlink) j["target"] = encode_json_text(s.target);
  return j;
}

}  // namespace

json to_json(const Change& c) {
  json flags = json::array();
  for (const auto& f : c.flags) flags.push_back({{"rule", f.rule}, {"why", f.why}, {"source", encode_json_text(f.source)}});
  json j = {{"path", encode_json_text(c.path)},
            {"root", encode_json_text(c.root)},
            {"kind", to_string(c.kind)},
            {"before", state_json(c.before)},
            {"after", state_json(c.after)},
            {"binary", c.binary},
            {"flags", std::move(flags)},
            {"conflict", c.conflict},
            {"decision", c.decision}};
  if (c.kind == ChangeKind::kModified && c.before.type == EntryType::kFile && c.after.type == EntryType::kFile)
    j["content_changed"] = c.content_changed;
  if (!c.renamed_from.empty()) j["renamed_from"] = encode_json_text(c.renamed_from);
  if (c.git != GitRole::kNone) j["git"] = to_string(c.git);
  return j;
}

json to_json(const ChangeSet& s, bool with_changes) {
  json changes = json::array(), commits = json::array();
  if (with_changes)
    for (const auto& c : s.changes) changes.push_back(to_json(c));
  for (const auto& o : s.commits) {
    json list = json::array();
    for (const auto& c : o.commits) list.push_back({{"id", c.id}, {"subject", encode_json_text(c.subject)}});
    commits.push_back({{"repo", encode_json_text(o.repo)},
                       {"ref", encode_json_text(o.ref)},
                       {"ref_path", encode_json_text(o.ref_path)},
                       {"before", o.before},
                       {"after", o.after},
                       {"commits", std::move(list)},
                       {"fast_forward", o.fast_forward},
                       {"problem", o.problem}});
  }
  json notes = json::array();
  for (const auto& n : s.notes) notes.push_back(encode_json_text(n));
  json out = {{"session", s.session_id},
              {"running", s.running},
              {"pending", s.pending_count()},
              {"flagged", s.flagged_pending_count()},
              {"interrupted_apply", s.interrupted_apply},
              {"commits", std::move(commits)},
              {"notes", std::move(notes)}};
  if (with_changes) out["changes"] = std::move(changes);
  return out;
}

}  // namespace paddock::review
