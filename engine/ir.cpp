#include "engine/ir.h"

#include <sodium.h>

#include <cstdlib>

#include <algorithm>
#include <type_traits>

#include "engine/ir_schema.h"
#include "engine/json_text.h"
#include "engine/schema_codec.h"

namespace paddock {
namespace {

using nlohmann::json;
using namespace ir_schema;

// Sorted and de-duplicated; elements that order as equal (deny entries on one path) are one.
template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end(), [](const T& a, const T& b) { return !(a < b) && !(b < a); }), v.end());
}

template <class T>
void normalize_value(T& v, unsigned traits) {
  if constexpr (Described<T>) {
    for_each_field(v, [](const FieldInfo& info, auto& member) { normalize_value(member, info.traits); });
  } else if constexpr (SortableList<T>) {
    if (traits & kSet) sort_unique(v);
  } else if constexpr (SortableMap<T>) {
    if (traits & kSet)
      for (auto& [key, list] : v) sort_unique(list);
  }
}

}  // namespace

const char* to_string(NetMode mode) { return enum_name(mode).data(); }

std::optional<NetMode> net_mode_from_string(const std::string& s) { return enum_from_name<NetMode>(s); }

const char* to_string(PathKind kind) { return enum_name(kind).data(); }

const char* to_string(CredentialScheme scheme) { return enum_name(scheme).data(); }

std::optional<CredentialScheme> credential_scheme_from_string(const std::string& s) {
  return enum_from_name<CredentialScheme>(s);
}

void normalize(FrozenIr& ir) { normalize_value(ir, kPlain); }

json to_json(const FrozenIr& ir) { return to_json_value(ir); }

// Written straight into a string, without a json tree: `paddock run` serialises the IR three times
// before the helper starts (the schema hash, ir.json and the plan's ir_hash). tests/engine/ir_test
// compares these bytes with canonical_bytes(to_json(ir)) on every golden IR.
std::string canonical_bytes(const FrozenIr& ir) { return canonical_bytes_of(ir); }

Result<FrozenIr> ir_from_json(const json& j) {
  Reader r("IR field ", "ir");
  FrozenIr ir;
  // The version first: an IR from another Paddock says so rather than naming a field it lacks.
  if (j.is_object() && j.contains("meta") && j["meta"].is_object() && j["meta"].contains("ir_version") &&
      j["meta"]["ir_version"].is_string() && j["meta"]["ir_version"].get_ref<const std::string&>() != kIrVersion)
    return bad_input("IR field meta.ir_version: unsupported version " + j["meta"]["ir_version"].get<std::string>());
  auto ok = [&]() -> bool {
    if (!r.read(j, "", ir)) return false;
    if (!ir.extensions.is_object()) return r.fail("extensions", "expected an object");
    if (ir.env.mode != "allowlist") return r.fail("env.mode", "only allowlist exists");
    for (auto it = ir.extensions.begin(); it != ir.extensions.end(); ++it)
      if (it.key() != "linux" && it.key() != "macos" && it.key() != "windows")
        return r.fail("extensions." + it.key(), "unknown extension (only linux, macos, windows)");
    return true;
  }();
  if (!ok) return bad_input(r.error());
  return ir;
}

std::string canonical_bytes(const json& j) {
  // nlohmann::json objects are std::map-backed, so dump() emits keys sorted by byte value;
  // with no indent there is no insignificant whitespace. Strings are emitted as UTF-8 and
  // control characters (including LF) are escaped, so the bytes never contain a raw LF.
  return j.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::strict);
}

std::string sha256_hex(const std::string& bytes) {
  // libsodium asks for sodium_init() before any call (once per process; it is idempotent).
  static const bool sodium_ready = sodium_init() >= 0;
  if (!sodium_ready) std::abort();
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = "sha256:";
  for (unsigned char c : out) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0xf]);
  }
  return hex;
}

std::string ir_hash(const FrozenIr& ir) { return sha256_hex(canonical_bytes(ir)); }

}  // namespace paddock
