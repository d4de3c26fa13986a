#include "engine/session/init_message.h"


#include <nlohmann/json.hpp>

#include "engine/schema_codec.h"
#include "engine/session/record_json.h"

namespace paddock::session {
namespace {

constexpr std::string_view kReadyPrefix = "{\"attestation\":";
constexpr std::string_view kReadySuffix = ",\"type\":\"attestation\"}";

}  // namespace

InitMessage InitMessage::setup_failed(std::string message) {
  InitMessage m;
  m.type = InitMessageType::kSetupFailed;
  m.message = std::move(message);
  return m;
}

InitMessage InitMessage::placeholders_made(std::vector<Placeholder> list) {
  InitMessage m;
  m.type = InitMessageType::kPlaceholders;
  m.placeholders = std::move(list);
  return m;
}

InitMessage InitMessage::proxy_listen() {
  InitMessage m;
  m.type = InitMessageType::kProxyListen;
  return m;
}

InitMessage InitMessage::network_namespace() {
  InitMessage m;
  m.type = InitMessageType::kNetworkNamespace;
  return m;
}

InitMessage InitMessage::credential_listen(std::string name) {
  InitMessage m;
  m.type = InitMessageType::kCredentialListen;
  m.message = std::move(name);
  return m;
}

InitMessage InitMessage::host_port_listen() {
  InitMessage m;
  m.type = InitMessageType::kHostPortListen;
  return m;
}

InitMessage InitMessage::ready(std::string attestation_json) {
  InitMessage m;
  m.type = InitMessageType::kAttestation;
  m.attestation = std::move(attestation_json);
  return m;
}

InitMessage InitMessage::exec_failed(int error_number, std::string message) {
  InitMessage m;
  m.type = InitMessageType::kExecFailed;
  m.error_number = error_number;
  m.message = std::move(message);
  return m;
}

InitMessage InitMessage::deadline() {
  InitMessage m;
  m.type = InitMessageType::kDeadline;
  return m;
}

std::string encode_init_message(const InitMessage& m) {
  if (m.type == InitMessageType::kAttestation) {
    // The attestation's bytes as they are (the helper stores exactly these): the object
    // json::dump would give for {"attestation": ..., "type": "attestation"}.
    std::string text;
    text.reserve(kReadyPrefix.size() + m.attestation.size() + kReadySuffix.size());
    text.append(kReadyPrefix).append(m.attestation).append(kReadySuffix);
    return text;
  }
  return dump_record(schema::tagged_to_json(m));
}

Result<InitMessage> decode_init_message(std::string_view bytes, std::string_view readiness) {
  if (!readiness.empty() && bytes == readiness && bytes.size() > kReadyPrefix.size() + kReadySuffix.size())
    return InitMessage::ready(
        std::string(bytes.substr(kReadyPrefix.size(), bytes.size() - kReadyPrefix.size() - kReadySuffix.size())));
  const std::string what = "message from the sandbox";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  schema::Reader r(what + ": ", "");
  InitMessage m;
  if (!r.read_tagged(*parsed, m)) return bad_input(r.error());
  return m;
}

}  // namespace paddock::session
