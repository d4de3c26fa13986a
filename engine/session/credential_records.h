// The records brokered credentials cross process boundaries in (docs/credentials.md):
//
// - the store's index, `$XDG_CONFIG_HOME/paddock/credentials.json` (0600): each stored
//   credential's name, the one upstream it is bound to, its placeholder, where its value is kept
//   and when it was stored; never a value;
// - the hand-off from `paddock run` to the helper: each credential the IR names, with its value
//   and placeholder, in an anonymous memory file the helper reads only once the sandbox's init
//   runs (--credentials); the one record that holds a key, and never written to disk;
// - the credentials' last use, `$XDG_STATE_HOME/paddock/credential-use.json`: {NAME: {last_used,
//   session}}, which the helper updates when a session that used one ends and the credential list
//   (CLI, app) reads.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

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

std::string encode_credential_secrets(const std::vector<CredentialSecret>& secrets);
// Every field present and typed, every value and placeholder valid; names unique.
Result<std::vector<CredentialSecret>> decode_credential_secrets(std::string_view bytes);

// The placeholders alone ({NAME: placeholder}): not secret, so the helper reads them before the
// sandbox exists (--placeholders), to give the agent its variables.
std::string encode_credential_placeholders(const std::map<std::string, std::string>& placeholders);
Result<std::map<std::string, std::string>> decode_credential_placeholders(std::string_view bytes);

enum class CredentialBackend { kSecretService, kFile };
const char* to_string(CredentialBackend b);  // "secret-service" | "file"

struct CredentialIndexEntry {
  std::string upstream;     // "host:port"
  std::string placeholder;
  CredentialBackend backend = CredentialBackend::kSecretService;
  std::string created;      // UTC
};
using CredentialIndex = std::map<std::string, CredentialIndexEntry>;

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
