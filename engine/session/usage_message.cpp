#include "engine/session/usage_message.h"

#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

json optional_count(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

bool read_count(StrictJsonReader& r, const json& j, const std::string& path, std::int64_t& out) {
  if (!r.integer(j, path, out)) return false;
  if (out < 0) return r.fail(path, "must not be negative");
  return true;
}

}  // namespace


std::string encode_usage_reply(const LiveUsage& u) {
  const json j = {{"ok", true},
                  {"usage",
                   {{"cpu_ms", u.cpu_ms},
                    {"memory_bytes", u.memory_bytes},
                    {"processes", u.processes},
                    {"limits",
                     {{"cpu_ms", optional_count(u.limits.cpu_ms)},
                      {"memory_bytes", optional_count(u.limits.memory_bytes)},
                      {"processes", optional_count(u.limits.processes)}}}}}};
  return dump_record(j);
}

Result<LiveUsage> decode_usage_reply(std::string_view line) {
  auto parsed = parse_record(line, "usage answer", std::size_t{64} << 10);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  if (j.contains("ok") && j["ok"] == false) {
    const json e = j.value("error", json("no reason given"));
    return bad_input("usage answer: " + (e.is_string() ? e.get<std::string>() : e.dump()));
  }
  StrictJsonReader r("usage answer field ");
  LiveUsage out;
  if (r.object(j, "", {"ok", "usage"}) && (j["ok"] == true || r.fail(".ok", "expected true")) && r.object(j["usage"], "usage", {"cpu_ms", "memory_bytes", "processes", "limits"})) {
    const json& u = j["usage"];
    read_count(r, u["cpu_ms"], "usage.cpu_ms", out.cpu_ms);
    read_count(r, u["memory_bytes"], "usage.memory_bytes", out.memory_bytes);
    read_count(r, u["processes"], "usage.processes", out.processes);
    if (r.object(u["limits"], "usage.limits", {"cpu_ms", "memory_bytes", "processes"})) {
      r.opt_integer(u["limits"]["cpu_ms"], "usage.limits.cpu_ms", out.limits.cpu_ms);
      r.opt_integer(u["limits"]["memory_bytes"], "usage.limits.memory_bytes", out.limits.memory_bytes);
      r.opt_integer(u["limits"]["processes"], "usage.limits.processes", out.limits.processes);
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

}  // namespace paddock::session
