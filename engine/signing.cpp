#include "engine/signing.h"

#include <sodium.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>


namespace paddock {
namespace fs = std::filesystem;
namespace {

std::string to_hex(const unsigned char* p, std::size_t n) {
  std::string s(n * 2 + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), p, n);
  s.resize(n * 2);
  return s;
}

// Exactly 2*n lowercase/uppercase hex digits, nothing else.
bool from_hex(const std::string& hex, unsigned char* out, std::size_t n) {
  if (hex.size() != n * 2 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return false;
  std::size_t len = 0;
  return sodium_hex2bin(out, n, hex.data(), hex.size(), nullptr, &len, nullptr) == 0 && len == n;
}

std::string strip_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string slurp(const std::string& path, bool& ok) {
  std::ifstream f(path, std::ios::binary);
  ok = static_cast<bool>(f);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

KeyPair generate_keypair() {
  if (sodium_init() < 0) return {};
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  KeyPair k{to_hex(pk, sizeof pk), to_hex(sk, sizeof sk)};
  sodium_memzero(sk, sizeof sk);
  return k;
}

Result<std::string> sign_bytes(const std::string& bytes, const std::string& secret_hex) {
  if (sodium_init() < 0) return internal_error("libsodium failed to initialise");
  unsigned char sk[crypto_sign_SECRETKEYBYTES], sig[crypto_sign_BYTES];
  if (!from_hex(strip_newline(secret_hex), sk, sizeof sk)) return bad_input("the signing key is malformed (expected 128 hex digits)");
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), sk);
  sodium_memzero(sk, sizeof sk);
  return to_hex(sig, sizeof sig);
}

bool verify_bytes(const std::string& bytes, const std::string& sig_text, const std::vector<std::string>& keys) {
  if (sodium_init() < 0) return false;
  unsigned char sig[crypto_sign_BYTES];
  if (!from_hex(strip_newline(sig_text), sig, sizeof sig)) return false;
  for (const auto& k : keys) {
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    if (!from_hex(k, pk, sizeof pk)) continue;
    if (crypto_sign_verify_detached(sig, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), pk) == 0)
      return true;
  }
  return false;
}

Result<std::vector<std::string>> read_trusted_keys(const std::string& path) {
  std::vector<std::string> keys;
  std::error_code ec;
  if (!fs::exists(path, ec)) return keys;
  if (sodium_init() < 0) return internal_error("libsodium failed to initialise");
  bool ok = false;
  const std::string text = slurp(path, ok);
  if (!ok) return bad_input(path + ":1:1: cannot be read");
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    if (!from_hex(line, pk, sizeof pk))
      return error_at(ErrorCode::kBadInput, {path, n, 1, ""}, "not a public key (expected 64 hex digits)");
    keys.push_back(line);
  }
  return keys;
}

Result<KeyPair> keygen(const std::string& config_dir, const FileWriter& out) {
  const std::string sk_path = config_dir + "/signing_key";
  std::error_code ec;
  if (fs::exists(sk_path, ec))
    return bad_input(sk_path + " already exists; move it away first to make a new key");
  KeyPair k = generate_keypair();
  if (k.public_hex.empty()) return internal_error("libsodium failed to initialise");
  if (auto s = out.write_file(sk_path, k.secret_hex + "\n", 0600); !s.ok()) return s.error();
  if (auto s = out.write_file(config_dir + "/signing_key.pub", k.public_hex + "\n", 0644); !s.ok()) return s.error();
  bool ok = false;
  std::string trusted = slurp(config_dir + "/trusted_keys", ok);
  if (!trusted.empty() && trusted.back() != '\n') trusted += "\n";
  trusted += k.public_hex + "\n";
  if (auto s = out.write_file(config_dir + "/trusted_keys", trusted, 0644); !s.ok()) return s.error();
  return k;
}

Status sign_file(const std::string& file, const std::string& config_dir, const FileWriter& out) {
  bool ok = false;
  const std::string sk = slurp(config_dir + "/signing_key", ok);
  if (!ok) return bad_input(config_dir + "/signing_key: no signing key (run 'paddock keygen' first)");
  const std::string bytes = slurp(file, ok);
  if (!ok) return bad_input(file + ": cannot be read");
  auto sig = sign_bytes(bytes, sk);
  if (!sig.ok()) return bad_input(config_dir + "/signing_key:1:1: " + sig.error().message);
  return out.write_file(file + ".sig", *sig + "\n", 0644);
}

Status verify_file_signature(const std::string& file, const std::vector<std::string>& keys) {
  bool ok = false;
  const std::string bytes = slurp(file, ok);
  if (!ok) return bad_input(file + ": cannot be read");
  const std::string sig = slurp(file + ".sig", ok);
  if (!ok) return blocked(file + ".sig: missing (sign the file with 'paddock sign " + file + "')");
  if (keys.empty()) return blocked(file + ": no trusted keys (run 'paddock keygen' or add a key to trusted_keys)");
  if (!verify_bytes(bytes, sig, keys))
    return blocked(file + ".sig: signature does not verify with any trusted key (file modified or signature malformed)");
  return {};
}

SignatureState signature_state(const std::string& bytes, const std::string& sig_path, const std::vector<std::string>& keys,
                               const DirectoryLister* lister) {
  std::error_code ec;
  if (fs::symlink_status(sig_path, ec).type() == fs::file_type::not_found) return SignatureState::kUnsigned;
  auto sig = read_regular(lister, sig_path, 4096, /*prefix=*/false);
  return sig.ok() && *sig && verify_bytes(bytes, **sig, keys) ? SignatureState::kVerified : SignatureState::kFailed;
}

}  // namespace paddock
