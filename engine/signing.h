// Ed25519 layer signatures (docs/policy-layers.md) with libsodium. Key and signature files are lowercase
// hex, one value per line: `signing_key` (64-byte secret key, mode 0600), `signing_key.pub`
// (32-byte public key), FILE.sig (64-byte detached signature over FILE's raw bytes).
// trusted_keys: one public key per line; blank lines and lines starting with '#' are ignored.
#pragma once

#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/file_writer.h"
#include "engine/status.h"

namespace paddock {

struct KeyPair {
  std::string public_hex;
  std::string secret_hex;
};

KeyPair generate_keypair();
Result<std::string> sign_bytes(const std::string& bytes, const std::string& secret_hex);
// True only if sig_text is exactly one well-formed signature that verifies with one of keys.
bool verify_bytes(const std::string& bytes, const std::string& sig_text, const std::vector<std::string>& public_hex_keys);
// A missing file is an empty list; a malformed line is an error naming file:line.
Result<std::vector<std::string>> read_trusted_keys(const std::string& path);

// `paddock keygen`: writes the pair under config_dir and appends the public key to
// config_dir/trusted_keys. Refuses to overwrite an existing secret key.
Result<KeyPair> keygen(const std::string& config_dir, const FileWriter& out);
// `paddock sign FILE`: writes FILE.sig with the key under config_dir.
Status sign_file(const std::string& file, const std::string& config_dir, const FileWriter& out);
// `paddock verify-signature FILE`: checks FILE.sig against the trusted keys.
Status verify_file_signature(const std::string& file, const std::vector<std::string>& keys);

// The state of FILE given its bytes (overlay or disk) and FILE.sig on disk.
// FILE.sig is read as a small regular file (never waited on; dir_lister.h read_regular).
SignatureState signature_state(const std::string& bytes, const std::string& sig_path, const std::vector<std::string>& keys,
                               const DirectoryLister* lister = nullptr);

}  // namespace paddock
