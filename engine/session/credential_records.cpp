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
