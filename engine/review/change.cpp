#include "engine/review/change.h"

#include <algorithm>
#include <charconv>

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

// The bytes nlohmann's compact dump() writes for a string: printable ASCII other than '"' and
// '\\' as it is; anything else through the library itself, so that both always agree.
void append_string(std::string_view s, std::string& out) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\'; });
  if (!plain) {
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  out += '"';
  out.append(s.data(), s.size());
  out += '"';
}

// A path or other host text: encoded first as to_json does (encode_json_text).
void append_text(std::string_view s, std::string& out) {
  if (json_text_is_plain(s)) append_string(s, out);
  else append_string(encode_json_text(s), out);
}

template <typename N>
void append_number(N n, std::string& out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, r.ptr);
}

// Keys in the order nlohmann's objects keep them (sorted).
void append_state(const EntryState& s, std::string& out) {
  if (s.type == EntryType::kNone) {
    out += "null";
    return;
  }
  out += "{\"mode\":";
  append_number(s.mode, out);
  if (s.type == EntryType::kFile) {
    out += ",\"size\":";
    append_number(s.size, out);
  }
  if (s.type == EntryType::kSymlink) {
    out += ",\"target\":";
    append_text(s.target, out);
  }
  out += ",\"type\":";
  append_string(to_string(s.type), out);
  out += '}';
}

}  // namespace

void append_json(const Change& c, std::string& out) {
  out += "{\"after\":";
  append_state(c.after, out);
  out += ",\"before\":";
  append_state(c.before, out);
  out += c.binary ? ",\"binary\":true" : ",\"binary\":false";
  out += ",\"conflict\":";
  append_string(c.conflict, out);
  if (c.kind == ChangeKind::kModified && c.before.type == EntryType::kFile && c.after.type == EntryType::kFile)
    out += c.content_changed ? ",\"content_changed\":true" : ",\"content_changed\":false";
  out += ",\"decision\":";
  append_string(c.decision, out);
  out += ",\"flags\":[";
  for (std::size_t i = 0; i < c.flags.size(); ++i) {
    const Flag& f = c.flags[i];
    out += i ? ",{\"rule\":" : "{\"rule\":";
    append_string(f.rule, out);
    out += ",\"source\":";
    append_text(f.source, out);
    out += ",\"tool\":";
    append_string(f.tool, out);
    out += ",\"why\":";
    append_string(f.why, out);
    out += '}';
  }
  out += ']';
  if (c.git != GitRole::kNone) {
    out += ",\"git\":";
    append_string(to_string(c.git), out);
  }
  out += ",\"kind\":";
  append_string(to_string(c.kind), out);
  out += ",\"path\":";
  append_text(c.path, out);
  if (!c.renamed_from.empty()) {
    out += ",\"renamed_from\":";
    append_text(c.renamed_from, out);
  }
  out += ",\"root\":";
  append_text(c.root, out);
  out += '}';
}

json to_json(const Change& c) {
  json flags = json::array();
  for (const auto& f : c.flags)
    flags.push_back({{"rule", f.rule}, {"why", f.why}, {"source", encode_json_text(f.source)}, {"tool", f.tool}});
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
