#include "platform/credential_store.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "engine/credentials.h"
#include "engine/session/record_json.h"
#include "platform/atomic_file.h"
#include "platform/read_file.h"
#include "platform/subprocess.h"

namespace paddock::platform {
namespace {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The values file must be this user's alone: a file others can read is not used (nor written
// through), and the message says how to fix it.
Status check_private(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? Status::Ok() : refused(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return refused(path + " is not a regular file");
  if (st.st_uid != ::geteuid()) return refused(path + " belongs to another user");
  if (st.st_mode & 077) return refused(path + " is readable or writable by others (mode " + std::to_string(st.st_mode & 0777) +
                                       "); its keys may have been read: rotate them, then chmod 600 " + path);
  return Status::Ok();
}

}  // namespace

std::string new_placeholder() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "paddock-placeholder-";
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

CredentialStore::CredentialStore(const session::Layout& layout, std::string keyring_program)
    : index_file_(layout.credential_index()), values_file_(layout.credential_file_store()),
      keyring_(std::move(keyring_program)) {}

Result<session::CredentialIndex> CredentialStore::index() const {
  auto bytes = read_file_if_exists(index_file_, {.max_bytes = 1 << 20, .no_follow = true});
  if (!bytes) return bytes.error();
  if (!*bytes) return session::CredentialIndex{};
  return session::decode_credential_index(**bytes);
}

Status CredentialStore::save_index(const session::CredentialIndex& index) const {
  return write_file_atomic(index_file_, session::encode_credential_index(index), {.mode = 0600, .create_dirs = true});
}

Result<std::map<std::string, std::string>> CredentialStore::file_values() const {
  if (auto s = check_private(values_file_); !s) return s.error();
  auto bytes = read_file_if_exists(values_file_, {.max_bytes = 1 << 20, .no_follow = true, .private_only = true});
  if (!bytes) return bytes.error();
  std::map<std::string, std::string> out;
  if (!*bytes) return out;
  auto j = session::parse_record(**bytes, values_file_);
  if (!j) return j.error();
  if (!j->is_object()) return bad_input(values_file_ + ": not a JSON object");
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (!it.value().is_string()) return bad_input(values_file_ + ": " + it.key() + ": expected a string");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

Status CredentialStore::save_file_values(const std::map<std::string, std::string>& values) const {
  if (auto s = check_private(values_file_); !s) return s;
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values) j[k] = v;
  return write_file_atomic(values_file_, session::dump_record(j, 2) + "\n", {.mode = 0600, .create_dirs = true});
}

Result<int> CredentialStore::keyring(const std::vector<std::string>& args, const std::optional<std::string>& input,
                                     std::string* out) const {
  if (keyring_.empty()) return kKeyringUnavailable;
  auto r = run_capture(keyring_, args, input, "(reinstall Paddock)");
  if (!r) return r.error();
  if (out) *out = std::move(r->out);
  if (r->exit_code != 0 && r->exit_code != kKeyringUnavailable && r->exit_code != kKeyringNotFound) {
    std::string line = r->err.substr(0, r->err.find('\n'));
    return refused("the secret service failed: " + (line.empty() ? "paddock-keyring exited " + std::to_string(r->exit_code) : line));
  }
  return r->exit_code;
}

Result<std::vector<StoredCredential>> CredentialStore::list() const {
  auto idx = index();
  if (!idx) return idx.error();
  std::vector<StoredCredential> out;
  for (auto& [name, e] : *idx) out.push_back({name, e});
  return out;
}

Result<std::map<std::string, std::string>> CredentialStore::bindings() const {
  auto idx = index();
  if (!idx) return idx.error();
  std::map<std::string, std::string> out;
  for (const auto& [name, e] : *idx) out[name] = e.upstream;
  return out;
}

Status CredentialStore::add(const std::string& name, const std::string& upstream, const std::string& value, bool replace) {
  if (!valid_credential_name(name))
    return bad_input("'" + name + "' is not a credential name (a-z, 0-9, '.', '_', '-'; at most 64)");
  auto up = parse_credential_upstream(upstream);
  if (!up) return bad_input("--upstream: " + up.error().message);
  if (!session::valid_credential_value(value))
    return bad_input("the key must be 8 to 8192 printable ASCII characters without spaces (a header carries it)");
  auto idx = index();
  if (!idx) return idx.error();
  const auto existing = idx->find(name);
  if (existing != idx->end() && !replace)
    return bad_input("credential " + name + " is stored already; 'paddock credentials replace " + name + "' changes it");
  if (existing == idx->end() && replace)
    return bad_input("no credential " + name + " is stored; 'paddock credentials add " + name + "' stores it");
  session::CredentialIndexEntry e;
  e.upstream = up->binding();
  e.placeholder = existing != idx->end() ? existing->second.placeholder : new_placeholder();
  e.created = now_utc();
  auto stored = keyring({"store", name}, value);
  if (!stored) return stored.error();
  if (*stored == 0) {
    e.backend = session::CredentialBackend::kSecretService;
    // A value left in the file from before would be read no more; remove it.
    auto values = file_values();
    if (values && values->erase(name))
      if (auto s = save_file_values(*values); !s) return s;
  } else {
    e.backend = session::CredentialBackend::kFile;
    auto values = file_values();
    if (!values) return values.error();
    (*values)[name] = value;
    if (auto s = save_file_values(*values); !s) return s;
  }
  (*idx)[name] = e;
  return save_index(*idx);
}

Status CredentialStore::remove(const std::string& name) {
  auto idx = index();
  if (!idx) return idx.error();
  auto it = idx->find(name);
  if (it == idx->end()) return bad_input("no credential " + name + " is stored (see 'paddock credentials list')");
  if (it->second.backend == session::CredentialBackend::kSecretService) {
    auto cleared = keyring({"clear", name}, std::nullopt);
    if (!cleared) return cleared.error();
    if (*cleared == kKeyringUnavailable)
      return refused("credential " + name + " is in the secret service, which does not answer now; unlock it and retry");
  }
  auto values = file_values();
  if (values && values->erase(name))
    if (auto s = save_file_values(*values); !s) return s;
  idx->erase(it);
  return save_index(*idx);
}

Result<std::string> CredentialStore::value(const std::string& name) const {
  auto idx = index();
  if (!idx) return idx.error();
  auto it = idx->find(name);
  if (it == idx->end()) return bad_input("no credential " + name + " is stored");
  if (it->second.backend == session::CredentialBackend::kFile) {
    auto values = file_values();
    if (!values) return values.error();
    auto v = values->find(name);
    if (v == values->end()) return refused("credential " + name + ": its value is missing from " + values_file_ + "; store it again");
    return v->second;
  }
  std::string out;
  auto found = keyring({"lookup", name}, std::nullopt, &out);
  if (!found) return found.error();
  if (*found == kKeyringUnavailable)
    return refused("credential " + name + " is in the desktop's secret service, which does not answer (is the "
                   "session's keyring unlocked?)");
  if (*found == kKeyringNotFound)
    return refused("credential " + name + " is missing from the secret service; store it again with 'paddock credentials replace " + name + "'");
  return out;
}

StoreStatus CredentialStore::status() const {
  StoreStatus s;
  s.file = values_file_;
  auto r = keyring({"available"}, std::nullopt);
  s.secret_service = r && *r == 0;
  if (s.secret_service) s.detail = "the desktop's secret service (org.freedesktop.secrets)";
  else if (!r) s.detail = "no secret service: " + r.error().message;
  else s.detail = "no secret service answers on this session's D-Bus; new keys go to " + values_file_ + " (0600)";
  if (auto values = file_values()) s.in_file = values->size();
  return s;
}

}  // namespace paddock::platform
