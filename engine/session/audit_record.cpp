#include "engine/session/audit_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

// An audit of a project where the agent made tens of thousands of findings still reads.
constexpr std::size_t kMaxAuditRecord = std::size_t{64} << 20;

json stamp_json(const FileStamp& s) { return {{"ino", s.ino}, {"size", s.size}, {"ctime_ns", s.ctime_ns}}; }

bool read_stamp(StrictJsonReader& r, const json& j, const std::string& path, FileStamp& out) {
  std::int64_t ino = 0;
  if (!r.object(j, path, {"ino", "size", "ctime_ns"}) || !r.integer(j["ino"], path + ".ino", ino) ||
      !r.integer(j["size"], path + ".size", out.size) || !r.integer(j["ctime_ns"], path + ".ctime_ns", out.ctime_ns))
    return false;
  out.ino = j["ino"].is_number_unsigned() ? j["ino"].get<std::uint64_t>() : static_cast<std::uint64_t>(ino);
  return true;
}

bool read_path(StrictJsonReader& r, const json& j, const std::string& at, std::string& out) {
  if (!r.str(j, at, out)) return false;
  if (out.empty() || out[0] != '/') return r.fail(at, "not an absolute path");
  return true;
}

// A name inside the audit directory ("preserved/3", "quarantine/2/.envrc"): relative, no "..".
bool read_inside(StrictJsonReader& r, const json& j, const std::string& at, std::string& out) {
  if (!r.str(j, at, out)) return false;
  if (out.empty()) return true;
  if (out[0] == '/' || out == ".." || out.rfind("../", 0) == 0 || out.find("/../") != std::string::npos ||
      (out.size() >= 3 && out.compare(out.size() - 3, 3, "/..") == 0))
    return r.fail(at, "not a name inside the audit directory");
  return true;
}

Status check_version(StrictJsonReader& r, const json& j, const char* what) {
  std::int64_t version = 0;
  if (!r.integer(j["version"], "version", version)) return bad_input(r.error());
  if (version != 1) return bad_input(std::string(what) + ": version " + std::to_string(version) + " is not one this Paddock reads");
  return Status::Ok();
}

template <typename T>
auto by_path(std::vector<T>& v, const std::string& path) {
  return std::lower_bound(v.begin(), v.end(), path, [](const T& x, const std::string& p) { return x.path < p; });
}

}  // namespace

std::string audit_dir(const std::string& session_dir) { return session_dir + "/audit"; }
std::string audit_start_file(const std::string& session_dir) { return audit_dir(session_dir) + "/start.json"; }
std::string audit_file(const std::string& session_dir) { return audit_dir(session_dir) + "/audit.json"; }
std::string audit_state_file(const std::string& session_dir) { return audit_dir(session_dir) + "/state.json"; }
std::string audit_journal_file(const std::string& session_dir) { return audit_dir(session_dir) + "/journal.json"; }
std::string audit_lock_file(const std::string& session_dir) { return audit_dir(session_dir) + "/lock"; }
std::string audit_preserved_dir(const std::string& session_dir) { return audit_dir(session_dir) + "/preserved"; }
std::string audit_quarantine_dir(const std::string& session_dir) { return audit_dir(session_dir) + "/quarantine"; }

std::string encode_audit_start(const AuditStart& s) {
  json roots = json::array(), preserved = json::array();
  for (const auto& r : s.roots) roots.push_back(encode_json_text(r));
  for (const auto& p : s.preserved) preserved.push_back({{"path", encode_json_text(p.path)}, {"stamp", stamp_json(p.stamp)}});
  return dump_record({{"version", 1},
                      {"started_ns", s.started_ns},
                      {"project", encode_json_text(s.project)},
                      {"roots", std::move(roots)},
                      {"record", s.record},
                      {"preserved", std::move(preserved)}},
                     1) +
         "\n";
}

Result<AuditStart> decode_audit_start(std::string_view bytes) {
  auto j = parse_record(bytes, "audit/start.json", kMaxAuditRecord);
  if (!j) return j.error();
  StrictJsonReader r("audit/start.json field ");
  AuditStart out;
  if (!r.object(*j, "", {"version", "started_ns", "project", "roots", "record", "preserved"})) return bad_input(r.error());
  if (auto s = check_version(r, *j, "audit/start.json"); !s) return s.error();
  if (!r.integer((*j)["started_ns"], "started_ns", out.started_ns) || !read_path(r, (*j)["project"], "project", out.project) ||
      !r.str((*j)["record"], "record", out.record))
    return bad_input(r.error());
  if (out.record != "fanotify" && out.record != "walk")
    return bad_input("audit/start.json field record: expected fanotify or walk");
  const json& roots = (*j)["roots"];
  if (!roots.is_array()) return bad_input("audit/start.json field roots: expected an array");
  for (std::size_t i = 0; i < roots.size(); ++i) {
    std::string root;
    if (!read_path(r, roots[i], "roots[" + std::to_string(i) + "]", root)) return bad_input(r.error());
    out.roots.push_back(std::move(root));
  }
  const json& preserved = (*j)["preserved"];
  if (!preserved.is_array()) return bad_input("audit/start.json field preserved: expected an array");
  for (std::size_t i = 0; i < preserved.size(); ++i) {
    const std::string at = "preserved[" + std::to_string(i) + "]";
    PreservedFile p;
    if (!r.object(preserved[i], at, {"path", "stamp"}) || !read_path(r, preserved[i]["path"], at + ".path", p.path) ||
        !read_stamp(r, preserved[i]["stamp"], at + ".stamp", p.stamp))
      return bad_input(r.error());
    out.preserved.push_back(std::move(p));
  }
  return out;
}

const char* to_string(FindingKind k) { return k == FindingKind::kAdded ? "added" : "changed"; }

const AuditFinding* AuditRecord::find(const std::string& path) const {
  auto it = std::lower_bound(findings.begin(), findings.end(), path,
                             [](const AuditFinding& f, const std::string& p) { return f.path < p; });
  return it != findings.end() && it->path == path ? &*it : nullptr;
}

std::string encode_audit(const AuditRecord& a) {
  json findings = json::array();
  for (const auto& f : a.findings) {
    json flags = json::array();
    for (const auto& x : f.flags)
      flags.push_back({{"rule", x.rule}, {"tool", x.tool}, {"why", encode_json_text(x.why)}, {"source", encode_json_text(x.source)}});
    findings.push_back({{"path", encode_json_text(f.path)},
                        {"kind", to_string(f.kind)},
                        {"type", f.type},
                        {"flags", std::move(flags)},
                        {"inside", f.inside},
                        {"stamp", stamp_json(f.stamp)},
                        {"previous", encode_json_text(f.previous)},
                        {"previous_note", encode_json_text(f.previous_note)}});
  }
  json problems = json::array();
  for (const auto& p : a.problems) problems.push_back(encode_json_text(p));
  return dump_record({{"version", 1},
                      {"session_id", a.session_id},
                      {"audited", a.audited},
                      {"by", a.by},
                      {"method", a.method},
                      {"complete", a.complete},
                      {"problems", std::move(problems)},
                      {"entries", a.entries},
                      {"duration_ms", a.duration_ms},
                      {"findings", std::move(findings)}},
                     1) +
         "\n";
}

Result<AuditRecord> decode_audit(std::string_view bytes) {
  auto j = parse_record(bytes, "audit/audit.json", kMaxAuditRecord);
  if (!j) return j.error();
  StrictJsonReader r("audit/audit.json field ");
  AuditRecord a;
  if (!r.object(*j, "", {"version", "session_id", "audited", "by", "method", "complete", "problems", "entries",
                         "duration_ms", "findings"}))
    return bad_input(r.error());
  if (auto s = check_version(r, *j, "audit/audit.json"); !s) return s.error();
  if (!r.str((*j)["session_id"], "session_id", a.session_id) || !r.str((*j)["audited"], "audited", a.audited) ||
      !r.str((*j)["by"], "by", a.by) || !r.str((*j)["method"], "method", a.method) ||
      !r.boolean((*j)["complete"], "complete", a.complete) || !r.strings((*j)["problems"], "problems", a.problems) ||
      !r.integer((*j)["entries"], "entries", a.entries) || !r.integer((*j)["duration_ms"], "duration_ms", a.duration_ms))
    return bad_input(r.error());
  const json& list = (*j)["findings"];
  if (!list.is_array()) return bad_input("audit/audit.json field findings: expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "findings[" + std::to_string(i) + "]";
    const json& e = list[i];
    AuditFinding f;
    std::string kind;
    if (!r.object(e, at, {"path", "kind", "type", "flags", "inside", "stamp", "previous", "previous_note"}) ||
        !read_path(r, e["path"], at + ".path", f.path) || !r.str(e["kind"], at + ".kind", kind) ||
        !r.str(e["type"], at + ".type", f.type) || !r.integer(e["inside"], at + ".inside", f.inside) ||
        !read_stamp(r, e["stamp"], at + ".stamp", f.stamp) || !read_inside(r, e["previous"], at + ".previous", f.previous) ||
        !r.str(e["previous_note"], at + ".previous_note", f.previous_note))
      return bad_input(r.error());
    if (kind == "added") f.kind = FindingKind::kAdded;
    else if (kind == "changed") f.kind = FindingKind::kChanged;
    else return bad_input("audit/audit.json field " + at + ".kind: expected added or changed");
    const json& flags = e["flags"];
    if (!flags.is_array() || flags.empty()) return bad_input("audit/audit.json field " + at + ".flags: expected a non-empty array");
    for (std::size_t k = 0; k < flags.size(); ++k) {
      const std::string fat = at + ".flags[" + std::to_string(k) + "]";
      AuditFlag x;
      if (!r.object(flags[k], fat, {"rule", "tool", "why", "source"}) || !r.str(flags[k]["rule"], fat + ".rule", x.rule) ||
          !r.str(flags[k]["tool"], fat + ".tool", x.tool) || !r.str(flags[k]["why"], fat + ".why", x.why) ||
          !r.str(flags[k]["source"], fat + ".source", x.source))
        return bad_input(r.error());
      f.flags.push_back(std::move(x));
    }
    a.findings.push_back(std::move(f));
  }
  std::sort(a.findings.begin(), a.findings.end(), [](const auto& x, const auto& y) { return x.path < y.path; });
  return a;
}

const char* to_string(AuditDecision d) { return d == AuditDecision::kQuarantined ? "quarantined" : "kept"; }

const AuditDecisionRecord* AuditState::find(const std::string& path) const {
  auto it = std::lower_bound(decisions.begin(), decisions.end(), path,
                             [](const AuditDecisionRecord& d, const std::string& p) { return d.path < p; });
  return it != decisions.end() && it->path == path ? &*it : nullptr;
}

void AuditState::set(AuditDecisionRecord d) {
  auto it = by_path(decisions, d.path);
  if (it != decisions.end() && it->path == d.path) *it = std::move(d);
  else decisions.insert(it, std::move(d));
}

std::string encode_audit_state(const AuditState& s) {
  json list = json::array();
  for (const auto& d : s.decisions)
    list.push_back({{"path", encode_json_text(d.path)},
                    {"decision", to_string(d.decision)},
                    {"moved_to", encode_json_text(d.moved_to)},
                    {"restored", d.restored},
                    {"ts", d.ts}});
  return dump_record({{"version", 1}, {"decisions", std::move(list)}}, 1) + "\n";
}

Result<AuditState> decode_audit_state(std::string_view bytes) {
  auto j = parse_record(bytes, "audit/state.json", kMaxAuditRecord);
  if (!j) return j.error();
  StrictJsonReader r("audit/state.json field ");
  if (!r.object(*j, "", {"version", "decisions"})) return bad_input(r.error());
  if (auto st = check_version(r, *j, "audit/state.json"); !st) return st.error();
  const json& list = (*j)["decisions"];
  if (!list.is_array()) return bad_input("audit/state.json field decisions: expected an array");
  AuditState s;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "decisions[" + std::to_string(i) + "]";
    const json& e = list[i];
    AuditDecisionRecord d;
    std::string word;
    if (!r.object(e, at, {"path", "decision", "moved_to", "restored", "ts"}) || !read_path(r, e["path"], at + ".path", d.path) ||
        !r.str(e["decision"], at + ".decision", word) || !read_inside(r, e["moved_to"], at + ".moved_to", d.moved_to) ||
        !r.boolean(e["restored"], at + ".restored", d.restored) || !r.str(e["ts"], at + ".ts", d.ts))
      return bad_input(r.error());
    if (word == "quarantined") d.decision = AuditDecision::kQuarantined;
    else if (word == "kept") d.decision = AuditDecision::kKept;
    else return bad_input("audit/state.json field " + at + ".decision: expected quarantined or kept");
    s.set(std::move(d));
  }
  return s;
}

std::string encode_quarantine_journal(const QuarantineJournal& j) {
  return dump_record({{"version", 1},
                      {"path", encode_json_text(j.path)},
                      {"to", encode_json_text(j.to)},
                      {"previous", encode_json_text(j.previous)},
                      {"stamp", stamp_json(j.stamp)},
                      {"started", j.started}},
                     1) +
         "\n";
}

Result<QuarantineJournal> decode_quarantine_journal(std::string_view bytes) {
  auto j = parse_record(bytes, "audit/journal.json");
  if (!j) return j.error();
  StrictJsonReader r("audit/journal.json field ");
  QuarantineJournal out;
  if (!r.object(*j, "", {"version", "path", "to", "previous", "stamp", "started"})) return bad_input(r.error());
  if (auto s = check_version(r, *j, "audit/journal.json"); !s) return s.error();
  if (!read_path(r, (*j)["path"], "path", out.path) || !read_inside(r, (*j)["to"], "to", out.to) ||
      !read_inside(r, (*j)["previous"], "previous", out.previous) || !read_stamp(r, (*j)["stamp"], "stamp", out.stamp) ||
      !r.str((*j)["started"], "started", out.started))
    return bad_input(r.error());
  if (out.to.empty()) return bad_input("audit/journal.json field to: empty");
  return out;
}

std::size_t pending_findings(const AuditRecord& a, const AuditState& s) {
  std::size_t n = 0;
  for (const auto& f : a.findings) n += s.find(f.path) ? 0 : 1;
  return n;
}

std::string terminal_safe(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace paddock::session
