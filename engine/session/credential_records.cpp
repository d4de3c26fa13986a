#include "engine/session/credential_records.h"

#include <set>

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {


bool valid_credential_value(std::string_view value) {
  if (value.size() < 8 || value.size() > 8192) return false;
  for (char c : value)
    if (c < 0x21 || c > 0x7e) return false;
  return true;
}

std::string encode_credential_secrets(const std::vector<CredentialSecret>& secrets) {
  return dump_record(schema::to_json_value(CredentialSecrets{secrets}));
}

Result<std::vector<CredentialSecret>> decode_credential_secrets(std::string_view bytes) {
  const std::string what = "credentials hand-off";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  auto read = schema::from_json_value<CredentialSecrets>(*parsed, what + ": ");
  if (!read.ok()) return read.error();
  std::set<std::string> names;
  for (std::size_t i = 0; i < read->credentials.size(); ++i) {
    const CredentialSecret& s = read->credentials[i];
    const std::string at = what + ": credentials[" + std::to_string(i) + "]";
    // Never quoted back: the message names the field, not what it holds.
    if (!valid_credential_value(s.value)) return bad_input(at + ".value: not a key a header can carry");
    if (!valid_credential_value(s.placeholder)) return bad_input(at + ".placeholder: not a placeholder a header can carry");
    if (!names.insert(s.name).second) return bad_input(at + ".name: a second entry for " + s.name);
  }
  return std::move(read->credentials);
}

std::string encode_credential_placeholders(const std::map<std::string, std::string>& placeholders) {
  return dump_record(schema::to_json_value(placeholders));
}

Result<std::map<std::string, std::string>> decode_credential_placeholders(std::string_view bytes) {
  const std::string what = "credential placeholders";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  auto read = schema::from_json_value<std::map<std::string, std::string>>(*parsed, what + ": ");
  if (!read.ok()) return read.error();
  for (const auto& [name, p] : *read)
    if (!valid_credential_value(p)) return bad_input(what + ": " + name + ": not a placeholder a header can carry");
  return read;
}

std::string encode_credential_broker_spec(const CredentialBrokerSpec& spec) {
  return dump_record(schema::to_json_value(spec));
}

Result<CredentialBrokerSpec> decode_credential_broker_spec(std::string_view bytes) {
  const std::string what = "credential broker spec";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  return schema::from_json_value<CredentialBrokerSpec>(*parsed, what + ": ");
}

std::string encode_credential_broker_report(const CredentialBrokerReport& report) {
  return dump_record(schema::tagged_to_json(report)) + "\n";
}

Result<CredentialBrokerReport> decode_credential_broker_report(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const std::string what = "credential broker report";
  auto parsed = parse_record(line, what);
  if (!parsed.ok()) return parsed.error();
  schema::Reader r(what + ": ", "");
  CredentialBrokerReport out;
  if (!r.read_tagged(*parsed, out)) return bad_input(r.error());
  if (out.type == CredentialBrokerReport::Type::kEvent && !out.event.is_object())
    return bad_input(what + ": event: expected an object");
  return out;
}

const char* to_string(CredentialBackend b) { return schema::enum_name(b).data(); }

std::string encode_credential_index(const CredentialIndex& index) {
  return dump_record(schema::to_json_value(CredentialIndexFile{1, index}), 2) + "\n";
}

Result<CredentialIndex> decode_credential_index(std::string_view bytes) {
  const std::string what = "credentials.json";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  auto read = schema::from_json_value<CredentialIndexFile>(*parsed, what + ": ");
  if (!read.ok()) return read.error();
  if (read->version != 1) return bad_input(what + ": version: unsupported version");
  for (const auto& [name, e] : read->credentials)
    if (!valid_credential_value(e.placeholder))
      return bad_input(what + ": credentials." + name + ".placeholder: not a placeholder a header can carry");
  return std::move(read->credentials);
}

std::string encode_credential_use(const CredentialUseRecord& record) {
  return dump_record(schema::to_json_value(record), 2) + "\n";
}

Result<CredentialUseRecord> decode_credential_use(std::string_view bytes) {
  const std::string what = "credential-use.json";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  return schema::from_json_value<CredentialUseRecord>(*parsed, what + ": ");
}

}  // namespace paddock::session
