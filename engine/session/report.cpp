#include "engine/session/report.h"


#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

constexpr std::pair<ReportStatus, const char*> kStatusWords[] = {
    {ReportStatus::kExited, "exited"},
    {ReportStatus::kFailed, "failed"},
    {ReportStatus::kTimeout, "timeout"},
    {ReportStatus::kStopped, "stopped"},
};

bool read_count(StrictJsonReader& r, const json& j, const std::string& path, std::int64_t& out) {
  if (!r.integer(j, path, out)) return false;
  if (out < 0) return r.fail(path, "must not be negative");
  return true;
}

}  // namespace

const char* to_string(ReportStatus s) {
  for (const auto& [status, word] : kStatusWords)
    if (status == s) return word;
  return "failed";
}

std::optional<ReportStatus> parse_report_status(std::string_view word) {
  for (const auto& [status, w] : kStatusWords)
    if (word == w) return status;
  return std::nullopt;
}

json report_json(const Report& r, bool with_id) {
  json j = {{"status", to_string(r.status)},
            {"exit_code", r.exit_code},
            {"signal", r.signal ? json(*r.signal) : json(nullptr)},
            {"duration_ms", r.duration_ms},
            {"attested", r.attested},
            {"limits_hit", r.limits_hit},
            {"usage", {{"cpu_ms", r.usage.cpu_ms}, {"max_rss", r.usage.max_rss}, {"pids", r.usage.pids}}},
            {"ended", r.ended},
            {"events_dropped", r.events_dropped}};
  if (with_id) j["session_id"] = r.session_id;
  if (r.error) j["error"] = encode_json_text(*r.error);  // may name a file that is not UTF-8 (json_text.h)
  if (!r.config_changes.empty()) {
    json changes = json::array();
    for (const auto& c : r.config_changes)
      changes.push_back({{"file", encode_json_text(c.file)}, {"key", c.key}, {"change", c.change}});
    j["config_changes"] = std::move(changes);
  }
  if (!r.credentials.empty()) {
    json list = json::array();
    for (const auto& c : r.credentials)
      list.push_back({{"name", c.name}, {"upstream", c.upstream}, {"requests", c.requests}, {"refused", c.refused},
                      {"bytes_tx", c.bytes_tx}, {"bytes_rx", c.bytes_rx}, {"last_used", c.last_used}});
    j["credentials"] = std::move(list);
  }
  return j;
}

std::string encode_report(const Report& r) { return dump_record(report_json(r), 2) + "\n"; }

Result<Report> report_from_json(const json& j, const std::string& what, bool require_id) {
  StrictJsonReader r(what + ": ");
  Report out;
  if (!j.is_object()) return bad_input(what + ": not a JSON object");
  std::string status;
  if (require_id) {
    if (!j.contains("session_id")) r.fail("session_id", "missing field");
    else r.str(j["session_id"], "session_id", out.session_id);
  }
  if (!j.contains("status")) r.fail("status", "missing field");
  else if (r.str(j["status"], "status", status)) {
    if (auto s = parse_report_status(status)) out.status = *s;
    else r.fail("status", "'" + status + "' is not a status (exited, failed, timeout, stopped)");
  }
  if (!j.contains("exit_code")) r.fail("exit_code", "missing field");
  else r.int_value(j["exit_code"], "exit_code", out.exit_code);
  // The rest may be missing (reports written by older versions); present, it must be typed.
  if (j.contains("signal") && !j["signal"].is_null()) {
    int sig = 0;
    if (r.int_value(j["signal"], "signal", sig)) out.signal = sig;
  }
  if (j.contains("duration_ms")) read_count(r, j["duration_ms"], "duration_ms", out.duration_ms);
  if (j.contains("attested")) r.boolean(j["attested"], "attested", out.attested);
  if (j.contains("limits_hit")) r.strings(j["limits_hit"], "limits_hit", out.limits_hit);
  if (j.contains("usage")) {
    const json& u = j["usage"];
    if (!u.is_object()) {
      r.fail("usage", "expected an object");
    } else {
      if (u.contains("cpu_ms")) read_count(r, u["cpu_ms"], "usage.cpu_ms", out.usage.cpu_ms);
      if (u.contains("max_rss")) read_count(r, u["max_rss"], "usage.max_rss", out.usage.max_rss);
      if (u.contains("pids")) read_count(r, u["pids"], "usage.pids", out.usage.pids);
    }
  }
  if (j.contains("ended")) r.str(j["ended"], "ended", out.ended);
  if (j.contains("error")) {
    std::string e;
    if (r.str(j["error"], "error", e)) out.error = std::move(e);
  }
  if (j.contains("events_dropped")) read_count(r, j["events_dropped"], "events_dropped", out.events_dropped);
  if (j.contains("config_changes")) {
    const json& list = j["config_changes"];
    if (!list.is_array()) {
      r.fail("config_changes", "expected an array");
    } else {
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = "config_changes[" + std::to_string(i) + "]";
        ConfigChange c;
        if (!list[i].is_object()) {
          r.fail(at, "expected an object");
          break;
        }
        for (auto [key, field] : {std::pair{"file", &c.file}, {"key", &c.key}, {"change", &c.change}}) {
          if (!list[i].contains(key)) r.fail(at + "." + key, "missing field");
          else r.str(list[i][key], at + "." + key, *field);
        }
        out.config_changes.push_back(std::move(c));
      }
    }
  }
  if (j.contains("credentials")) {
    const json& list = j["credentials"];
    if (!list.is_array()) {
      r.fail("credentials", "expected an array");
    } else {
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = "credentials[" + std::to_string(i) + "]";
        if (!r.object(list[i], at, {"name", "upstream", "requests", "refused", "bytes_tx", "bytes_rx", "last_used"})) break;
        CredentialUsage c;
        r.str(list[i]["name"], at + ".name", c.name);
        r.str(list[i]["upstream"], at + ".upstream", c.upstream);
        read_count(r, list[i]["requests"], at + ".requests", c.requests);
        read_count(r, list[i]["refused"], at + ".refused", c.refused);
        read_count(r, list[i]["bytes_tx"], at + ".bytes_tx", c.bytes_tx);
        read_count(r, list[i]["bytes_rx"], at + ".bytes_rx", c.bytes_rx);
        r.str(list[i]["last_used"], at + ".last_used", c.last_used);
        out.credentials.push_back(std::move(c));
      }
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

Result<Report> decode_report(std::string_view bytes) {
  auto j = parse_record(bytes, "report.json");
  if (!j.ok()) return j.error();
  return report_from_json(*j, "report.json", /*require_id=*/true);
}

}  // namespace paddock::session
