#include "engine/session/credential_records.h"

#include <set>

#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {

using nlohmann::json;

bool valid_credential_value(std::string_view value) {
  if (value.size() < 8 || value.size() > 8192) return false;
  for (char c : value)
    if (c < 0x21 || c > 0x7e) return false;
  return true;
}

std::string encode_credential_secrets(const std::vector<CredentialSecret>& secrets) {
  json list = json::array();
  for (const auto& s : secrets)
    list.push_back({{"name", s.name}, {"upstream", s.upstream}, {"placeholder", s.placeholder}, {"value", s.value}});
  return dump_record({{"credentials", std::move(list)}});
}

Result<std::vector<CredentialSecret>> decode_credential_secrets(std::string_view bytes) {
  const std::string what = "credentials hand-off";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  StrictJsonReader r(what + ": ");
  std::vector<CredentialSecret> out;
  std::set<std::string> names;
  if (r.object(*parsed, "", {"credentials"})) {
    const json& list = (*parsed)["credentials"];
    if (!list.is_array()) r.fail("credentials", "expected an array");
    for (std::size_t i = 0; list.is_array() && i < list.size() && r.error().empty(); ++i) {
      const std::string at = "credentials[" + std::to_string(i) + "]";
      if (!r.object(list[i], at, {"name", "upstream", "placeholder", "value"})) break;
      CredentialSecret s;
      r.str(list[i]["name"], at + ".name", s.name);
      r.str(list[i]["upstream"], at + ".upstream", s.upstream);
      r.str(list[i]["placeholder"], at + ".placeholder", s.placeholder);
      r.str(list[i]["value"], at + ".value", s.value);
      if (!r.error().empty()) break;
      // Never quoted back: the message names the field, not what it holds.
      if (!valid_credential_value(s.value)) r.fail(at + ".value", "not a key a header can carry");
      else if (!valid_credential_value(s.placeholder)) r.fail(at + ".placeholder", "not a placeholder a header can carry");
      else if (!names.insert(s.name).second) r.fail(at + ".name", "a second entry for " + s.name);
      out.push_back(std::move(s));
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

std::string encode_credential_placeholders(const std::map<std::string, std::string>& placeholders) {
  json j = json::object();
  for (const auto& [name, p] : placeholders) j[name] = p;
  return dump_record(j);
}

Result<std::map<std::string, std::string>> decode_credential_placeholders(std::string_view bytes) {
  const std::string what = "credential placeholders";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  if (!parsed->is_object()) return bad_input(what + ": not a JSON object");
  std::map<std::string, std::string> out;
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    if (!it.value().is_string() || !valid_credential_value(it.value().get_ref<const std::string&>()))
      return bad_input(what + ": " + it.key() + ": not a placeholder a header can carry");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

std::string encode_credential_broker_spec(const CredentialBrokerSpec& spec) {
  json list = json::array();
  for (const auto& e : spec.endpoints)
    list.push_back({{"name", e.name}, {"upstream", e.upstream}, {"upstream_port", e.upstream_port}, {"connect_to", e.connect_to},
                    {"header", e.header}, {"scheme", e.scheme}, {"basic_user", e.basic_user}, {"placeholder", e.placeholder},
                    {"endpoint_port", e.endpoint_port}, {"listen_fd", e.listen_fd},
                    {"max_requests", e.max_requests ? json(*e.max_requests) : json(nullptr)},
                    {"max_bytes", e.max_bytes ? json(*e.max_bytes) : json(nullptr)},
                    {"max_request_bytes", e.max_request_bytes}, {"max_response_bytes", e.max_response_bytes}});
  return dump_record({{"endpoints", std::move(list)}, {"secrets_fd", spec.secrets_fd}, {"extra_ca", spec.extra_ca},
                      {"tainted", spec.tainted}, {"parent_pid", spec.parent_pid}});
}

Result<CredentialBrokerSpec> decode_credential_broker_spec(std::string_view bytes) {
  const std::string what = "credential broker spec";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  StrictJsonReader r(what + ": ");
  CredentialBrokerSpec spec;
  const json& j = *parsed;
  if (r.object(j, "", {"endpoints", "secrets_fd", "extra_ca", "tainted", "parent_pid"})) {
    r.int_value(j["secrets_fd"], "secrets_fd", spec.secrets_fd);
    r.str(j["extra_ca"], "extra_ca", spec.extra_ca);
    r.boolean(j["tainted"], "tainted", spec.tainted);
    r.integer(j["parent_pid"], "parent_pid", spec.parent_pid);
    const json& list = j["endpoints"];
    if (!list.is_array()) r.fail("endpoints", "expected an array");
    for (std::size_t i = 0; list.is_array() && i < list.size() && r.error().empty(); ++i) {
      const std::string at = "endpoints[" + std::to_string(i) + "]";
      const json& e = list[i];
      if (!r.object(e, at, {"name", "upstream", "upstream_port", "connect_to", "header", "scheme", "basic_user", "placeholder",
                            "endpoint_port", "listen_fd", "max_requests", "max_bytes", "max_request_bytes",
                            "max_response_bytes"}))
        break;
      CredentialEndpoint c;
      for (auto [key, out] : {std::pair{"name", &c.name}, {"upstream", &c.upstream}, {"connect_to", &c.connect_to},
                              {"header", &c.header}, {"scheme", &c.scheme}, {"basic_user", &c.basic_user},
                              {"placeholder", &c.placeholder}})
        r.str(e[key], at + "." + key, *out);
      r.int_value(e["upstream_port"], at + ".upstream_port", c.upstream_port);
      r.int_value(e["endpoint_port"], at + ".endpoint_port", c.endpoint_port);
      r.int_value(e["listen_fd"], at + ".listen_fd", c.listen_fd);
      r.opt_integer(e["max_requests"], at + ".max_requests", c.max_requests);
      r.opt_integer(e["max_bytes"], at + ".max_bytes", c.max_bytes);
      r.integer(e["max_request_bytes"], at + ".max_request_bytes", c.max_request_bytes);
      r.integer(e["max_response_bytes"], at + ".max_response_bytes", c.max_response_bytes);
      spec.endpoints.push_back(std::move(c));
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return spec;
}

std::string encode_credential_broker_report(const CredentialBrokerReport& report) {
  json j;
  switch (report.type) {
    case CredentialBrokerReport::Type::kReady: j = {{"type", "ready"}}; break;
    case CredentialBrokerReport::Type::kFailed: j = {{"type", "failed"}, {"message", report.message}}; break;
    case CredentialBrokerReport::Type::kEvent: j = {{"type", "event"}, {"event", report.event}}; break;
    case CredentialBrokerReport::Type::kUsage: {
      Report r;
      r.credentials = report.usage;
      j = {{"type", "usage"}, {"credentials", report_json(r, false).value("credentials", json::array())}};
      break;
    }
  }
  return dump_record(j) + "\n";
}

Result<CredentialBrokerReport> decode_credential_broker_report(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const std::string what = "credential broker report";
  auto parsed = parse_record(line, what);
  if (!parsed.ok()) return parsed.error();
  StrictJsonReader r(what + ": ");
  CredentialBrokerReport out;
  std::string type;
  if (!parsed->is_object() || !parsed->contains("type") || !r.str((*parsed)["type"], "type", type))
    return bad_input(what + ": no type");
  if (type == "ready") {
    out.type = CredentialBrokerReport::Type::kReady;
  } else if (type == "failed") {
    out.type = CredentialBrokerReport::Type::kFailed;
    if (parsed->contains("message")) r.str((*parsed)["message"], "message", out.message);
  } else if (type == "event") {
    out.type = CredentialBrokerReport::Type::kEvent;
    if (!parsed->contains("event") || !(*parsed)["event"].is_object()) r.fail("event", "expected an object");
    else out.event = (*parsed)["event"];
  } else if (type == "usage") {
    out.type = CredentialBrokerReport::Type::kUsage;
    json report = {{"status", "exited"}, {"exit_code", 0}, {"credentials", parsed->value("credentials", json::array())}};
    auto decoded = report_from_json(report, what, /*require_id=*/false);
    if (!decoded.ok()) return decoded.error();
    out.usage = std::move(decoded->credentials);
  } else {
    r.fail("type", "unknown type '" + type + "'");
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

const char* to_string(CredentialBackend b) {
  return b == CredentialBackend::kFile ? "file" : "secret-service";
}

std::string encode_credential_index(const CredentialIndex& index) {
  json list = json::object();
  for (const auto& [name, e] : index)
    list[name] = {{"upstream", e.upstream}, {"placeholder", e.placeholder}, {"backend", to_string(e.backend)},
                  {"created", e.created}};
  return dump_record({{"version", 1}, {"credentials", std::move(list)}}, 2) + "\n";
}

Result<CredentialIndex> decode_credential_index(std::string_view bytes) {
  const std::string what = "credentials.json";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  StrictJsonReader r(what + ": ");
  CredentialIndex out;
  if (r.object(*parsed, "", {"version", "credentials"})) {
    std::int64_t version = 0;
    if (r.integer((*parsed)["version"], "version", version) && version != 1) r.fail("version", "unsupported version");
    const json& list = (*parsed)["credentials"];
    if (!list.is_object()) r.fail("credentials", "expected an object");
    for (auto it = list.begin(); list.is_object() && it != list.end() && r.error().empty(); ++it) {
      const std::string at = "credentials." + it.key();
      if (!r.object(it.value(), at, {"upstream", "placeholder", "backend", "created"})) break;
      CredentialIndexEntry e;
      std::string backend;
      r.str(it.value()["upstream"], at + ".upstream", e.upstream);
      r.str(it.value()["placeholder"], at + ".placeholder", e.placeholder);
      r.str(it.value()["created"], at + ".created", e.created);
      if (r.str(it.value()["backend"], at + ".backend", backend)) {
        if (backend == "file") e.backend = CredentialBackend::kFile;
        else if (backend != "secret-service") r.fail(at + ".backend", "expected secret-service or file");
      }
      if (r.error().empty() && !valid_credential_value(e.placeholder)) r.fail(at + ".placeholder", "not a placeholder a header can carry");
      out[it.key()] = std::move(e);
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

std::string encode_credential_use(const CredentialUseRecord& record) {
  json j = json::object();
  for (const auto& [name, use] : record) j[name] = {{"last_used", use.last_used}, {"session", use.session}};
  return dump_record(j, 2) + "\n";
}

Result<CredentialUseRecord> decode_credential_use(std::string_view bytes) {
  const std::string what = "credential-use.json";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  if (!parsed->is_object()) return bad_input(what + ": not a JSON object");
  StrictJsonReader r(what + ": ");
  CredentialUseRecord out;
  for (auto it = parsed->begin(); it != parsed->end() && r.error().empty(); ++it) {
    if (!r.object(it.value(), it.key(), {"last_used", "session"})) break;
    CredentialLastUse u;
    r.str(it.value()["last_used"], it.key() + ".last_used", u.last_used);
    r.str(it.value()["session"], it.key() + ".session", u.session);
    out[it.key()] = std::move(u);
  }
  if (!r.error().empty()) return bad_input(r.error());
  return out;
}

}  // namespace paddock::session
