#include "engine/session/report.h"

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {

const char* to_string(ReportStatus s) { return schema::enum_name(s).data(); }

std::optional<ReportStatus> parse_report_status(std::string_view word) {
  return schema::enum_from_name<ReportStatus>(word);
}

nlohmann::json report_json(const Report& r) { return schema::to_json_value(r); }

std::string encode_report(const Report& r) { return dump_record(report_json(r), 2) + "\n"; }

Result<Report> report_from_json(const nlohmann::json& j, const std::string& what, bool require_id) {
  if (!j.is_object()) return bad_input(what + ": not a JSON object");
  auto r = schema::from_json_value<Report>(j, what + ": ");
  if (!r.ok()) return r.error();
  if (require_id && r->session_id.empty()) return bad_input(what + ": session_id: missing field");
  if (!require_id && j.contains("session_id")) return bad_input(what + ": session_id: unknown field");
  return r;
}

Result<Report> decode_report(std::string_view bytes) {
  auto j = parse_record(bytes, "report.json");
  if (!j.ok()) return j.error();
  return report_from_json(*j, "report.json", /*require_id=*/true);
}

}  // namespace paddock::session
