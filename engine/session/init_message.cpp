#include "engine/session/init_message.h"


#include <nlohmann/json.hpp>

#include "engine/json_text.h"
#include "engine/session/record_json.h"
#include "engine/strict_json_reader.h"

namespace paddock::session {
namespace {

using nlohmann::json;

constexpr std::pair<InitMessageType, const char*> kTypeNames[] = {
    {InitMessageType::kSetupFailed, "setup_failed"}, {InitMessageType::kPlaceholders, "placeholders"},
    {InitMessageType::kProxyListen, "proxy_listen"}, {InitMessageType::kNetworkNamespace, "network_namespace"},
    {InitMessageType::kCredentialListen, "credential_listen"},
    {InitMessageType::kHostPortListen, "host_port_listen"},
    {InitMessageType::kAttestation, "attestation"},  {InitMessageType::kExecFailed, "exec_failed"},
    {InitMessageType::kDeadline, "deadline"},        {InitMessageType::kExit, "exit"},
};

const char* type_name(InitMessageType t) {
  for (const auto& [type, name] : kTypeNames)
    if (type == t) return name;
  return "setup_failed";
}

constexpr std::string_view kReadyPrefix = "{\"attestation\":";
constexpr std::string_view kReadySuffix = ",\"type\":\"attestation\"}";

bool read_int(StrictJsonReader& r, const json& j, const char* key, int& out) {
  if (!j.contains(key)) return r.fail(key, "missing field");
  return r.int_value(j[key], key, out);
}

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
  switch (m.type) {
    case InitMessageType::kAttestation: {
      // The attestation's bytes as they are (the helper stores exactly these): the object
      // json::dump would give for {"attestation": ..., "type": "attestation"}.
      std::string text;
      text.reserve(kReadyPrefix.size() + m.attestation.size() + kReadySuffix.size());
      text.append(kReadyPrefix).append(m.attestation).append(kReadySuffix);
      return text;
    }
    // Messages and paths may hold bytes that are not UTF-8 (a file name): encoded as all of
    // Paddock's JSON is (engine/json_text.h), and StrictJsonReader::str decodes them.
    case InitMessageType::kSetupFailed:
      return dump_record({{"type", type_name(m.type)}, {"message", encode_json_text(m.message)}});
    case InitMessageType::kPlaceholders: {
      json list = json::array();
      for (const auto& p : m.placeholders)
        list.push_back({{"path", encode_json_text(p.path)}, {"dir", p.dir}, {"dev", p.dev}, {"ino", p.ino},
                        {"ctime_ns", p.ctime_ns}, {"content", encode_json_text(p.content)}});
      return dump_record({{"type", type_name(m.type)}, {"list", std::move(list)}});
    }
    case InitMessageType::kExecFailed:
      return dump_record({{"type", type_name(m.type)}, {"errno", m.error_number}, {"message", encode_json_text(m.message)}});
    case InitMessageType::kCredentialListen:
      return dump_record({{"type", type_name(m.type)}, {"name", m.message}});
    case InitMessageType::kProxyListen:
    case InitMessageType::kNetworkNamespace:
    case InitMessageType::kHostPortListen:
    case InitMessageType::kDeadline: return dump_record({{"type", type_name(m.type)}});
    case InitMessageType::kExit: {
      json j = {{"type", type_name(m.type)}, {"status", m.status}, {"pids", m.pids}};
      if (m.cpu_ms) j["cpu_ms"] = *m.cpu_ms;
      if (m.max_rss) j["max_rss"] = *m.max_rss;
      if (m.timed_out) j["timed_out"] = true;
      if (m.left_cgroup) j["left_cgroup"] = true;
      return dump_record(j);
    }
  }
  return dump_record({{"type", "setup_failed"}, {"message", "unencodable message"}});
}

Result<InitMessage> decode_init_message(std::string_view bytes, std::string_view readiness) {
  if (!readiness.empty() && bytes == readiness && bytes.size() > kReadyPrefix.size() + kReadySuffix.size())
    return InitMessage::ready(
        std::string(bytes.substr(kReadyPrefix.size(), bytes.size() - kReadyPrefix.size() - kReadySuffix.size())));
  const std::string what = "message from the sandbox";
  auto parsed = parse_record(bytes, what);
  if (!parsed.ok()) return parsed.error();
  const json& j = *parsed;
  StrictJsonReader r(what + ": ");
  std::string type;
  if (!j.contains("type") || !r.str(j["type"], "type", type)) {
    if (r.error().empty()) r.fail("type", "missing field");
    return bad_input(r.error());
  }
  InitMessage m;
  bool known = false;
  for (const auto& [t, name] : kTypeNames)
    if (type == name) {
      m.type = t;
      known = true;
    }
  if (!known) return bad_input(what + ": unknown type '" + type + "'");
  switch (m.type) {
    case InitMessageType::kSetupFailed:
      if (!j.contains("message")) r.fail("message", "missing field");
      else r.str(j["message"], "message", m.message);
      break;
    case InitMessageType::kPlaceholders:
      if (!j.contains("list") || !j["list"].is_array()) {
        r.fail("list", "expected an array");
        break;
      }
      for (std::size_t i = 0; i < j["list"].size(); ++i) {
        const json& p = j["list"][i];
        const std::string at = "list[" + std::to_string(i) + "]";
        InitMessage::Placeholder ph;
        if (!r.object(p, at, {"path", "dir", "dev", "ino", "ctime_ns", "content"}) ||
            !r.str(p["path"], at + ".path", ph.path) || !r.boolean(p["dir"], at + ".dir", ph.dir) ||
            !r.str(p["content"], at + ".content", ph.content))
          break;
        if (!p["dev"].is_number_unsigned() || !p["ino"].is_number_unsigned()) {
          r.fail(at, "dev and ino must be unsigned integers");
          break;
        }
        ph.dev = p["dev"].get<std::uint64_t>();
        ph.ino = p["ino"].get<std::uint64_t>();
        if (!p["ctime_ns"].is_number_integer()) {
          r.fail(at + ".ctime_ns", "expected an integer");
          break;
        }
        ph.ctime_ns = p["ctime_ns"].get<std::int64_t>();
        m.placeholders.push_back(std::move(ph));
      }
      break;
    case InitMessageType::kExecFailed:
      read_int(r, j, "errno", m.error_number);
      if (!j.contains("message")) r.fail("message", "missing field");
      else r.str(j["message"], "message", m.message);
      break;
    case InitMessageType::kCredentialListen:
      if (!j.contains("name")) r.fail("name", "missing field");
      else r.str(j["name"], "name", m.message);
      break;
    case InitMessageType::kAttestation:
      if (!j.contains("attestation") || !j["attestation"].is_object()) r.fail("attestation", "expected an object");
      else m.attestation = dump_record(j["attestation"]);
      break;
    case InitMessageType::kProxyListen:
    case InitMessageType::kNetworkNamespace:
    case InitMessageType::kHostPortListen:
    case InitMessageType::kDeadline: break;
    case InitMessageType::kExit: {
      read_int(r, j, "status", m.status);
      if (!j.contains("pids")) r.fail("pids", "missing field");
      else r.integer(j["pids"], "pids", m.pids);
      for (auto [key, out] : {std::pair<const char*, std::optional<std::int64_t>*>{"cpu_ms", &m.cpu_ms},
                              {"max_rss", &m.max_rss}})
        if (j.contains(key)) {
          std::int64_t v = 0;
          if (r.integer(j[key], key, v)) *out = v;
        }
      if (j.contains("timed_out")) r.boolean(j["timed_out"], "timed_out", m.timed_out);
      if (j.contains("left_cgroup")) r.boolean(j["left_cgroup"], "left_cgroup", m.left_cgroup);
      break;
    }
  }
  if (!r.error().empty()) return bad_input(r.error());
  return m;
}

}  // namespace paddock::session
