#include "engine/ir.h"

#include <sodium.h>

#include <cstdlib>

#include <algorithm>
#include <type_traits>

#include "engine/ir_schema.h"
#include "engine/json_text.h"
#include "engine/strict_json_reader.h"

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

template <class T>
json value_json(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return json_text_value(v);
  } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
    return v ? json(*v) : json(nullptr);
  } else if constexpr (Enum<T>) {
    return json(std::string(enum_name(v)));
  } else if constexpr (is_vector<T>) {
    json out = json::array();
    for (const auto& x : v) out.push_back(value_json(x));
    return out;
  } else if constexpr (is_map<T>) {
    json out = json::object();
    for (const auto& [k, x] : v) out[encode_json_text(k)] = value_json(x);
    return out;
  } else if constexpr (Described<T>) {
    json out = json::object();
    for_each_field(v, [&](const FieldInfo& info, const auto& member) { out[std::string(info.key)] = value_json(member); });
    return out;
  } else {
    return json(v);  // bool, integers, the extensions (already JSON)
  }
}

// The IR's reader: the shared strict reader driven by the schema.
class Reader : public StrictJsonReader {
 public:
  Reader() : StrictJsonReader("IR field ") {}

  template <class T>
  bool read(const json& j, const std::string& path, T& out) {
    if constexpr (std::is_same_v<T, std::string>) {
      return str(j, path, out);
    } else if constexpr (std::is_same_v<T, bool>) {
      return boolean(j, path, out);
    } else if constexpr (std::is_same_v<T, int>) {
      return int32(j, path, out);
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      return integer(j, path, out);
    } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
      return opt_integer(j, path, out);
    } else if constexpr (Enum<T>) {
      std::string name;
      if (!str(j, path, name)) return false;
      std::string expected;
      const auto& values = EnumNames<T>::values;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i].second == name) {
          out = values[i].first;
          return true;
        }
        expected += std::string(i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::string(values[i].second);
      }
      return fail(path, "expected " + expected);
    } else if constexpr (is_vector<T>) {
      if (!j.is_array()) return fail(path, "expected an array");
      out.clear();
      out.reserve(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) {
        typename T::value_type x{};
        if (!read(j[i], path + "[" + std::to_string(i) + "]", x)) return false;
        out.push_back(std::move(x));
      }
      return true;
    } else if constexpr (is_map<T>) {
      if (!j.is_object()) return fail(path, "expected an object");
      out.clear();
      for (auto it = j.begin(); it != j.end(); ++it) {
        const auto key = decode_json_text(it.key());
        if (!key) return fail(path + "." + it.key(), "a key that is not valid encoded text");
        if (!read(it.value(), path + "." + it.key(), out[*key])) return false;
      }
      return true;
    } else if constexpr (Described<T>) {
      std::vector<std::string_view> keys;
      for_each_field(out, [&](const FieldInfo& info, auto&) { keys.push_back(info.key); });
      if (!object(j, path.empty() ? "ir" : path, keys)) return false;
      bool ok = true;
      for_each_field(out, [&](const FieldInfo& info, auto& member) {
        const std::string key(info.key);
        ok = ok && read(j[key], path.empty() ? key : path + "." + key, member);
      });
      return ok;
    } else {
      static_assert(std::is_same_v<T, json>, "no JSON reading for this IR field type");
      out = j;
      return true;
    }
  }
};

}  // namespace

const char* to_string(NetMode mode) { return enum_name(mode).data(); }

std::optional<NetMode> net_mode_from_string(const std::string& s) {
  for (const auto& [mode, name] : EnumNames<NetMode>::values)
    if (name == s) return mode;
  return std::nullopt;
}

const char* to_string(PathKind kind) { return enum_name(kind).data(); }

const char* to_string(CredentialScheme scheme) { return enum_name(scheme).data(); }

std::optional<CredentialScheme> credential_scheme_from_string(const std::string& s) {
  for (const auto& [scheme, name] : EnumNames<CredentialScheme>::values)
    if (name == s) return scheme;
  return std::nullopt;
}

void normalize(FrozenIr& ir) { normalize_value(ir, kPlain); }

json to_json(const FrozenIr& ir) { return value_json(ir); }

Result<FrozenIr> ir_from_json(const json& j) {
  Reader r;
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
