#include "engine/session/audit_record.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

// An audit of a project where the agent made tens of thousands of findings still reads.
constexpr std::size_t kMaxAuditRecord = std::size_t{64} << 20;

// One of the audit's files, read strictly from its declaration, in the one version this Paddock
// reads.
template <class T>
Result<T> read_audit_file(std::string_view bytes, const std::string& what, std::size_t max_bytes) {
  auto j = parse_record(bytes, what, max_bytes);
  if (!j) return j.error();
  auto out = schema::from_json_value<T>(*j, what + " field ");
  if (!out) return out.error();
  if (out->version != 1)
    return bad_input(what + ": version " + std::to_string(out->version) + " is not one this Paddock reads");
  return out;
}

Status absolute(const std::string& what, const std::string& at, const std::string& path) {
  if (path.empty() || path[0] != '/') return bad_input(what + " field " + at + ": not an absolute path");
  return Status::Ok();
}

// A name inside the audit directory ("preserved/3", "quarantine/2/.envrc"): relative, no "..";
// empty for none.
Status inside(const std::string& what, const std::string& at, const std::string& name) {
  if (name.empty()) return Status::Ok();
  if (name[0] == '/' || name == ".." || name.rfind("../", 0) == 0 || name.find("/../") != std::string::npos ||
      (name.size() >= 3 && name.compare(name.size() - 3, 3, "/..") == 0))
    return bad_input(what + " field " + at + ": not a name inside the audit directory");
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

std::string encode_audit_start(const AuditStart& s) { return dump_record(schema::to_json_value(s), 1) + "\n"; }

Result<AuditStart> decode_audit_start(std::string_view bytes) {
  const std::string what = "audit/start.json";
  auto out = read_audit_file<AuditStart>(bytes, what, kMaxAuditRecord);
  if (!out) return out.error();
  if (auto st = absolute(what, "project", out->project); !st) return st.error();
  if (out->record != "fanotify" && out->record != "walk")
    return bad_input(what + " field record: expected fanotify or walk");
  for (std::size_t i = 0; i < out->roots.size(); ++i)
    if (auto st = absolute(what, "roots[" + std::to_string(i) + "]", out->roots[i]); !st) return st.error();
  for (std::size_t i = 0; i < out->preserved.size(); ++i)
    if (auto st = absolute(what, "preserved[" + std::to_string(i) + "].path", out->preserved[i].path); !st)
      return st.error();
  return out;
}

const char* to_string(FindingKind k) { return schema::enum_name(k).data(); }

const AuditFinding* AuditRecord::find(const std::string& path) const {
  auto it = std::lower_bound(findings.begin(), findings.end(), path,
                             [](const AuditFinding& f, const std::string& p) { return f.path < p; });
  return it != findings.end() && it->path == path ? &*it : nullptr;
}

std::string encode_audit(const AuditRecord& a) { return dump_record(schema::to_json_value(a), 1) + "\n"; }

Result<AuditRecord> decode_audit(std::string_view bytes) {
  const std::string what = "audit/audit.json";
  auto a = read_audit_file<AuditRecord>(bytes, what, kMaxAuditRecord);
  if (!a) return a.error();
  for (std::size_t i = 0; i < a->findings.size(); ++i) {
    const AuditFinding& f = a->findings[i];
    const std::string at = "findings[" + std::to_string(i) + "]";
    if (auto st = absolute(what, at + ".path", f.path); !st) return st.error();
    if (auto st = inside(what, at + ".previous", f.previous); !st) return st.error();
    if (f.flags.empty()) return bad_input(what + " field " + at + ".flags: expected a non-empty array");
  }
  std::sort(a->findings.begin(), a->findings.end(), [](const auto& x, const auto& y) { return x.path < y.path; });
  return a;
}

const char* to_string(AuditDecision d) { return schema::enum_name(d).data(); }

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

std::string encode_audit_state(const AuditState& s) { return dump_record(schema::to_json_value(s), 1) + "\n"; }

Result<AuditState> decode_audit_state(std::string_view bytes) {
  const std::string what = "audit/state.json";
  auto read = read_audit_file<AuditState>(bytes, what, kMaxAuditRecord);
  if (!read) return read.error();
  // Sorted by path, one per path (the latest), whatever order the file has.
  AuditState s;
  for (std::size_t i = 0; i < read->decisions.size(); ++i) {
    AuditDecisionRecord& d = read->decisions[i];
    const std::string at = "decisions[" + std::to_string(i) + "]";
    if (auto st = absolute(what, at + ".path", d.path); !st) return st.error();
    if (auto st = inside(what, at + ".moved_to", d.moved_to); !st) return st.error();
    s.set(std::move(d));
  }
  return s;
}

std::string encode_quarantine_journal(const QuarantineJournal& j) {
  return dump_record(schema::to_json_value(j), 1) + "\n";
}

Result<QuarantineJournal> decode_quarantine_journal(std::string_view bytes) {
  const std::string what = "audit/journal.json";
  auto out = read_audit_file<QuarantineJournal>(bytes, what, std::size_t{1} << 20);
  if (!out) return out.error();
  if (auto st = absolute(what, "path", out->path); !st) return st.error();
  if (auto st = inside(what, "to", out->to); !st) return st.error();
  if (auto st = inside(what, "previous", out->previous); !st) return st.error();
  if (out->to.empty()) return bad_input(what + " field to: empty");
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
