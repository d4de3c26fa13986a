// The records brokered credentials cross process boundaries in (docs/credentials.md):
//
// - the store's index, `$XDG_CONFIG_HOME/paddock/credentials.json` (0600): each stored
//   credential's name, the one upstream it is bound to, its placeholder, where its value is kept
//   and when it was stored; never a value;
// - the hand-off from `paddock run` to the helper: each credential the IR names, with its value
//   and placeholder, in an anonymous memory file the helper reads only once the sandbox's init
//   runs (--credentials); the one record that holds a key, and never written to disk;
// - the helper's hand-over to paddock-credential-broker, the process that holds the keys: what
//   each endpoint is (name, upstream, header, placeholder, budgets; no key) and which descriptor
//   brings its listening socket and which the keys; and that process's reports back on its
//   standard output, one JSON line each: ready, failed, an event, its usage at the end;
// - the credentials' last use, `$XDG_STATE_HOME/paddock/credential-use.json`: {NAME: {last_used,
//   session}}, which the helper updates when a session that used one ends and the credential list
//   (CLI, app) reads.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/schema.h"
#include "engine/session/report.h"
#include "engine/status.h"

namespace paddock::session {

// A key or placeholder as a header may carry it: 8 to 8192 bytes, each printable ASCII other
// than space (0x21..0x7e), so that it can never end a header line or start another (and is long
// enough to be recognised where an upstream echoes it back).
bool valid_credential_value(std::string_view value);

struct CredentialSecret {
  std::string name;
  std::string upstream;     // "host:port" it was stored for
  std::string placeholder;  // what the agent sends instead
  std::string value;        // the key
};
// The hand-off as written: {"credentials": [...]}.
struct CredentialSecrets {
  std::vector<CredentialSecret> credentials;
};

std::string encode_credential_secrets(const std::vector<CredentialSecret>& secrets);
// Every field present and typed, every value and placeholder valid; names unique.
Result<std::vector<CredentialSecret>> decode_credential_secrets(std::string_view bytes);

// The placeholders alone ({NAME: placeholder}): not secret, so the helper reads them before the
// sandbox exists (--placeholders), to give the agent its variables.
std::string encode_credential_placeholders(const std::map<std::string, std::string>& placeholders);
Result<std::map<std::string, std::string>> decode_credential_placeholders(std::string_view bytes);

// One endpoint as paddock-credential-broker serves it (the plan's CredentialPlan, plus its
// placeholder and the descriptor its listening socket arrives on).
struct CredentialEndpoint {
  std::string name, upstream, connect_to, header, scheme, basic_user, placeholder;
  int upstream_port = 443;
  int endpoint_port = 0;
  int listen_fd = -1;
  std::optional<std::int64_t> max_requests, max_bytes;
  std::int64_t max_request_bytes = 0, max_response_bytes = 0;
};

struct CredentialBrokerSpec {
  std::vector<CredentialEndpoint> endpoints;
  int secrets_fd = -1;         // the hand-off (above), read by the broker process alone
  std::string extra_ca;        // PADDOCK_DEBUG_UPSTREAM_CA, "" otherwise
  bool tainted = false;        // every event then says "taint": "PADDOCK_DEBUG_UPSTREAM"
  std::int64_t parent_pid = 0; // the helper: the broker ends with it
};

std::string encode_credential_broker_spec(const CredentialBrokerSpec& spec);
Result<CredentialBrokerSpec> decode_credential_broker_spec(std::string_view bytes);

// A line on paddock-credential-broker's standard output.
struct CredentialBrokerReport {
  enum class Type { kReady, kFailed, kEvent, kUsage } type = Type::kFailed;
  std::string message;                      // kFailed
  nlohmann::json event;                     // kEvent: a session event as a sink carries it
  std::vector<CredentialUsage> usage;       // kUsage
};
std::string encode_credential_broker_report(const CredentialBrokerReport& r);  // one line, with its newline
Result<CredentialBrokerReport> decode_credential_broker_report(std::string_view line);

enum class CredentialBackend { kSecretService, kFile };
const char* to_string(CredentialBackend b);  // "secret-service" | "file"

// The store's index as written: {"version": 1, "credentials": {NAME: entry}}.
struct CredentialIndexEntry {
  std::string upstream;     // "host:port"
  std::string placeholder;
  CredentialBackend backend = CredentialBackend::kSecretService;
  std::string created;      // UTC
};
using CredentialIndex = std::map<std::string, CredentialIndexEntry>;
struct CredentialIndexFile {
  int version = 1;
  CredentialIndex credentials;
};

std::string encode_credential_index(const CredentialIndex& index);
Result<CredentialIndex> decode_credential_index(std::string_view bytes);

struct CredentialLastUse {
  std::string last_used;  // UTC time of its last relayed request
  std::string session;    // the session that made it
};
using CredentialUseRecord = std::map<std::string, CredentialLastUse>;

std::string encode_credential_use(const CredentialUseRecord& record);
Result<CredentialUseRecord> decode_credential_use(std::string_view bytes);

}  // namespace paddock::session

// The records' declarations (engine/schema.h): their JSON and strict readers derive from these
// lines; the checks a declaration cannot state (a key a header can carry, unique names, the one
// version, that a report's event is an object) follow the read in credential_records.cpp.
namespace paddock::schema {

template <>
struct EnumNames<session::CredentialBrokerReport::Type> {
  using T = session::CredentialBrokerReport::Type;
  static constexpr NameTable<T, 4> values{{{T::kReady, "ready"}, {T::kFailed, "failed"}, {T::kEvent, "event"},
                                           {T::kUsage, "usage"}}};
};

// The broker's report lines, one kind each: {"type": "ready"}, {"type": "failed", "message"},
// {"type": "event", "event": a session event}, {"type": "usage", "credentials": the report's rows}.
template <>
struct Tagged<session::CredentialBrokerReport> {
  using R = session::CredentialBrokerReport;
  using T = R::Type;
  static constexpr auto tag = field("type", &R::type);
  static constexpr auto variants =
      std::make_tuple(variant<T::kReady>(), variant<T::kFailed>(field("message", &R::message, kMayBeAbsent)),
                      variant<T::kEvent>(field("event", &R::event)), variant<T::kUsage>(field("credentials", &R::usage)));
};

template <>
struct Schema<session::CredentialSecret> {
  using S = session::CredentialSecret;
  static constexpr auto fields = std::make_tuple(field("name", &S::name), field("upstream", &S::upstream),
                                                 field("placeholder", &S::placeholder), field("value", &S::value));
};

template <>
struct Schema<session::CredentialSecrets> {
  static constexpr auto fields = std::make_tuple(field("credentials", &session::CredentialSecrets::credentials));
};

template <>
struct Schema<session::CredentialEndpoint> {
  using E = session::CredentialEndpoint;
  static constexpr auto fields = std::make_tuple(
      field("name", &E::name), field("upstream", &E::upstream), field("upstream_port", &E::upstream_port, kPort),
      field("connect_to", &E::connect_to), field("header", &E::header), field("scheme", &E::scheme),
      field("basic_user", &E::basic_user), field("placeholder", &E::placeholder),
      field("endpoint_port", &E::endpoint_port, kPort), field("listen_fd", &E::listen_fd),
      field("max_requests", &E::max_requests, kNonNegative), field("max_bytes", &E::max_bytes, kNonNegative),
      field("max_request_bytes", &E::max_request_bytes, kNonNegative),
      field("max_response_bytes", &E::max_response_bytes, kNonNegative));
};

template <>
struct Schema<session::CredentialBrokerSpec> {
  using S = session::CredentialBrokerSpec;
  static constexpr auto fields =
      std::make_tuple(field("endpoints", &S::endpoints), field("secrets_fd", &S::secrets_fd), field("extra_ca", &S::extra_ca),
                      field("tainted", &S::tainted), field("parent_pid", &S::parent_pid));
};

template <>
struct EnumNames<session::CredentialBackend> {
  static constexpr NameTable<session::CredentialBackend, 2> values{
      {{session::CredentialBackend::kSecretService, "secret-service"}, {session::CredentialBackend::kFile, "file"}}};
};

template <>
struct Schema<session::CredentialIndexEntry> {
  using E = session::CredentialIndexEntry;
  static constexpr auto fields = std::make_tuple(field("upstream", &E::upstream), field("placeholder", &E::placeholder),
                                                 field("backend", &E::backend), field("created", &E::created));
};

template <>
struct Schema<session::CredentialIndexFile> {
  using F = session::CredentialIndexFile;
  static constexpr auto fields = std::make_tuple(field("version", &F::version), field("credentials", &F::credentials));
};

template <>
struct Schema<session::CredentialLastUse> {
  using U = session::CredentialLastUse;
  static constexpr auto fields = std::make_tuple(field("last_used", &U::last_used), field("session", &U::session));
};

}  // namespace paddock::schema
