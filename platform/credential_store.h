// Where brokered credentials live on the host (docs/credentials.md): each value in the desktop's
// secret service (through libexec/paddock/paddock-keyring, which links libsecret; the CLI itself
// is a static program), or, where no secret service answers, in a 0600 file that `paddock doctor`
// reports; the index beside the user's policy says which credentials exist, the one upstream each
// is bound to and its placeholder. The CLI and the app both use this; nothing else reads values.
// Never a policy layer, never the IR, never the sandbox (Paddock's own directories are masked).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/session/credential_records.h"
#include "engine/session/layout.h"
#include "engine/status.h"

namespace paddock::platform {

struct StoredCredential {
  std::string name;
  session::CredentialIndexEntry entry;
};

// Which place a new value would go now, and why (doctor, the app's Credentials page).
struct StoreStatus {
  bool secret_service = false;
  std::string detail;      // "secret service (org.freedesktop.secrets)" or why it is not used
  std::string file;        // the fallback file
  std::size_t in_file = 0; // credentials whose value is in the file
};

class CredentialStore {
 public:
  // keyring_program: paddock-keyring's path ("" = no secret service: the file only).
  CredentialStore(const session::Layout& layout, std::string keyring_program);

  Result<std::vector<StoredCredential>> list() const;
  // name -> "host:port": what the engine's Inputs::stored_credentials holds.
  Result<std::map<std::string, std::string>> bindings() const;
  // Stores (or, with replace, replaces) a value bound to `upstream` ("host:port"). A new
  // credential gets a new random placeholder; a replaced one keeps its placeholder.
  Status add(const std::string& name, const std::string& upstream, const std::string& value, bool replace);
  Status remove(const std::string& name);
  // The value, for `paddock run` to hand to the helper.
  Result<std::string> value(const std::string& name) const;
  StoreStatus status() const;

 private:
  Result<session::CredentialIndex> index() const;
  Status save_index(const session::CredentialIndex& index) const;
  Result<std::map<std::string, std::string>> file_values() const;
  Status save_file_values(const std::map<std::string, std::string>& values) const;
  // paddock-keyring's answer: 0 done, kUnavailable, kNotFound, or another failure.
  Result<int> keyring(const std::vector<std::string>& args, const std::optional<std::string>& input,
                      std::string* out = nullptr) const;

  std::string index_file_, values_file_, keyring_;
};

// paddock-keyring's exit codes (helpers/keyring): no secret service answers; no such item.
inline constexpr int kKeyringUnavailable = 3;
inline constexpr int kKeyringNotFound = 4;

// A placeholder a header can carry, random, recognisable in a log: "paddock-placeholder-" and
// 32 hex digits.
std::string new_placeholder();

}  // namespace paddock::platform
