// The one mechanism by which Paddock declares what it writes and reads (docs/architecture.md,
// "Declared once"): every struct that crosses a file or process boundary declares its members
// once, as the specialisation schema::Schema<T> next to the struct (one line per member: its JSON
// key and traits), and every enum whose values are written declares its names once, as
// schema::EnumNames<E>. Everything that writes, reads, compares or hashes such a value is derived
// from the declarations: engine/schema_codec.h gives the JSON value, the strict reader and the
// canonical bytes. The IR (engine/ir_schema.h), the plans, attestation, report, the messages of
// the session and the payload of every event are declared this way.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace paddock::schema {

// Traits of a field.
enum Trait : unsigned {
  kPlain = 0,
  kSet = 1u << 0,          // a list normalize sorts and de-duplicates (a map: each of its value lists)
  kNoDiff = 1u << 1,       // left out of the app's Diff of two IRs
  kOmitEmpty = 1u << 2,    // written only when it is not empty (unset, false, 0, ""); absent reads as empty
  kMayBeAbsent = 1u << 3,  // always written; a reader takes its absence as the default (older writers)
  kNonNegative = 1u << 4,  // an integer (or each one, in a list or map) that is never negative
  kPort = 1u << 5,         // an integer (or each one) 0..65535
  kStepEach = 1u << 6,     // a list of the Linux plan whose entries are each a step of their own
  kJsonText = 1u << 7,     // a string holding JSON text, written as the JSON it holds (an object)
};

// How the fail-closed check (engine/capability.cpp) asks a backend for an IR field. Only the IR's
// fields state one (engine/ir_schema.h); every other record's fields leave it kNever.
enum class Request {
  kNever,                // never asked for on its own: `covered_by` names the field whose rows
                         // enforce it, or is empty for what only describes the IR
  kWhenSet,              // row "<path>" when non-empty, true or set
  kValue,                // row "<path>=<value>": rows are the default (a string) or each enum value
  kValueWhenNetworked,   // kValue, asked only when egress.mode is not off
  kValueUnlessDefault,   // "<path>=<value>" only for a value other than the default, which every
                         // backend honours by construction (so the default has no row)
  kClassified,           // rows "<path>.<row>"; capability.cpp decides which rows an IR asks for
};

struct Gate {
  Request request = Request::kNever;
  std::span<const std::string_view> rows{};  // kClassified only
  std::string_view covered_by{};             // kNever only
};

inline constexpr Gate when_set{Request::kWhenSet};
inline constexpr Gate by_value{Request::kValue};
inline constexpr Gate by_value_when_networked{Request::kValueWhenNetworked};
inline constexpr Gate by_value_unless_default{Request::kValueUnlessDefault};
inline constexpr Gate no_enforcement{Request::kNever};  // meta data, warnings, sections
constexpr Gate enforced_by(std::string_view field) { return {Request::kNever, {}, field}; }
constexpr Gate classified(std::span<const std::string_view> rows) { return {Request::kClassified, rows, {}}; }

// What every walker needs to know about a field, whatever its C++ type.
struct FieldInfo {
  std::string_view key;  // the JSON key
  unsigned traits = kPlain;
  Gate gate{};
};

template <class S, class T>
struct Field {
  FieldInfo info;
  T S::*member;
};

template <class S, class T>
constexpr Field<S, T> field(std::string_view key, T S::*member, unsigned traits = kPlain) {
  return {{key, traits, {}}, member};
}
template <class S, class T>
constexpr Field<S, T> field(std::string_view key, T S::*member, Gate gate, unsigned traits = kPlain) {
  return {{key, traits, gate}, member};
}

// Specialised next to each declared struct: static constexpr auto fields = std::make_tuple(...).
template <class T>
struct Schema;

// Specialised next to each declared enum: static constexpr std::array values of
// {enumerator, name}, listing every enumerator (a missing one does not compile, see below).
template <class E>
struct EnumNames;

// The type of EnumNames<E>::values: {{E::kA, "a"}, {E::kB, "b"}}.
template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

// ---- Enums -------------------------------------------------------------------------------------

// Whether V is one of its enum's enumerators: the compiler names an enumerator in the function's
// signature ("V = paddock::NetMode::kOff") and any other value as a cast ("V = (paddock::NetMode)4").
// This lets EnumNames be checked complete: an enumerator added without its name does not compile.
template <auto V>
constexpr bool is_enumerator() {
  constexpr std::string_view sig = __PRETTY_FUNCTION__;
  constexpr std::size_t eq = sig.rfind("= ");
  return eq != std::string_view::npos && sig[eq + 2] != '(';
}

template <class E, int... I>
constexpr std::size_t count_enumerators(std::integer_sequence<int, I...>) {
  return (std::size_t{0} + ... + (is_enumerator<static_cast<E>(I)>() ? 1u : 0u));
}

// The number of enumerators of E with values 0..63 (every declared enum's values are there).
template <class E>
inline constexpr std::size_t enumerator_count = count_enumerators<E>(std::make_integer_sequence<int, 64>{});

template <class E>
constexpr bool names_complete() {
  const auto& values = EnumNames<E>::values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (static_cast<long long>(values[i].first) < 0 || static_cast<long long>(values[i].first) >= 64) return false;
    for (std::size_t j = i + 1; j < values.size(); ++j)
      if (values[i].first == values[j].first || values[i].second == values[j].second) return false;
  }
  return values.size() == enumerator_count<E>;
}

template <class T>
concept Enum = requires { EnumNames<std::remove_cvref_t<T>>::values; };

template <Enum E>
constexpr std::string_view enum_name(E value) {
  static_assert(names_complete<E>(),
                "EnumNames<E> must name every enumerator once, each with its own name (values 0..63)");
  for (const auto& [v, name] : EnumNames<E>::values)
    if (v == value) return name;
  return {};  // not an enumerator: a value made by a cast, which nothing here does
}

template <Enum E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  static_assert(names_complete<E>(),
                "EnumNames<E> must name every enumerator once, each with its own name (values 0..63)");
  for (const auto& [v, n] : EnumNames<E>::values)
    if (n == name) return v;
  return std::nullopt;
}

// "a, b or c": what a reader expected.
template <Enum E>
std::string enum_choices(std::string_view last_sep = " or ") {
  std::string out;
  const auto& values = EnumNames<E>::values;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == values.size() ? last_sep : ", ") + std::string(values[i].second);
  return out;
}

// Every enumerator, in the order its names are declared.
template <Enum E>
constexpr auto enum_values() {
  std::array<E, EnumNames<E>::values.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = EnumNames<E>::values[i].first;
  return out;
}

// ---- Structs -----------------------------------------------------------------------------------

template <class T>
concept Described = requires { Schema<std::remove_cvref_t<T>>::fields; };

template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};
template <class T> struct IsMap : std::false_type {};
template <class V> struct IsMap<std::map<std::string, V>> : std::true_type {};
template <class T> struct IsOptional : std::false_type {};
template <class T> struct IsOptional<std::optional<T>> : std::true_type {};
template <class T> inline constexpr bool is_vector = IsVector<std::remove_cvref_t<T>>::value;
template <class T> inline constexpr bool is_map = IsMap<std::remove_cvref_t<T>>::value;
template <class T> inline constexpr bool is_optional = IsOptional<std::remove_cvref_t<T>>::value;

template <class T>
inline constexpr std::size_t field_count = std::tuple_size_v<std::remove_cvref_t<decltype(Schema<T>::fields)>>;

// Calls f(info, member) for every field of obj, in declaration order (obj may be const).
template <class S, class F>
void for_each_field(S& obj, F&& f) {
  std::apply([&](const auto&... fd) { (f(fd.info, obj.*(fd.member)), ...); }, Schema<std::remove_const_t<S>>::fields);
}

// The same over two objects of one type: f(info, member of a, member of b).
template <class S, class F>
void for_each_field(const S& a, const S& b, F&& f) {
  std::apply([&](const auto&... fd) { (f(fd.info, a.*(fd.member), b.*(fd.member)), ...); }, Schema<S>::fields);
}

template <class S>
constexpr auto declared_keys() {
  return std::apply([](const auto&... f) { return std::array<std::string_view, field_count<S>>{f.info.key...}; },
                    Schema<S>::fields);
}

// The fields' indices in the byte order of their keys: the order of canonical JSON.
template <class S>
constexpr auto canonical_order() {
  constexpr std::size_t n = field_count<S>;
  const auto keys = declared_keys<S>();
  std::array<std::size_t, n> order{};
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}

template <class S>
constexpr bool keys_are_unique() {
  constexpr auto order = canonical_order<S>();
  const auto keys = declared_keys<S>();
  for (std::size_t i = 1; i < order.size(); ++i)
    if (keys[order[i - 1]] == keys[order[i]]) return false;
  return true;
}

// Calls f(info, member) in canonical (key byte) order.
template <class S, class F>
void for_each_field_canonical(S& obj, F&& f) {
  using T = std::remove_const_t<S>;
  static_assert(keys_are_unique<T>(), "two fields of one declared struct share a JSON key");
  static constexpr auto order = canonical_order<T>();
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (f(std::get<order[K]>(Schema<T>::fields).info, obj.*(std::get<order[K]>(Schema<T>::fields).member)), ...);
  }(std::make_index_sequence<order.size()>{});
}

// ---- Tagged records ----------------------------------------------------------------------------
// A message whose kind is named by one field (the tag: "type", "cmd") and whose other fields
// depend on that kind, kept in one struct: Tagged<T> names the tag field and, per kind, the fields
// it carries: static constexpr auto tag = field("type", &T::type); static constexpr auto variants
// = std::make_tuple(variant<E::kA>(field(...), ...), variant<E::kB>(), ...). Every enumerator of
// the tag's enum has its variant (checked where it is encoded).

template <auto Tag, class... F>
struct Variant {
  static constexpr auto tag = Tag;
  std::tuple<F...> fields;
};

template <auto Tag, class... F>
constexpr Variant<Tag, F...> variant(F... f) {
  return {std::make_tuple(f...)};
}

template <class T>
struct Tagged;

template <class T>
concept TaggedRecord = requires { Tagged<T>::variants; };

template <class T>
constexpr bool variants_complete() {
  using E = std::remove_cvref_t<decltype(std::declval<T>().*(Tagged<T>::tag.member))>;
  return std::apply(
      [](const auto&... v) {
        constexpr std::size_t n = sizeof...(v);
        const E tags[] = {std::remove_cvref_t<decltype(v)>::tag...};
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = i + 1; j < n; ++j)
            if (tags[i] == tags[j]) return false;
        return n == EnumNames<E>::values.size();
      },
      Tagged<T>::variants);
}

// f(variant) for the variant of `tag`.
template <class T, class E, class F>
void with_variant(E tag, F&& f) {
  std::apply([&](const auto&... v) { ((std::remove_cvref_t<decltype(v)>::tag == tag ? f(v) : void()), ...); },
             Tagged<T>::variants);
}

// A value kOmitEmpty can leave out: unset, false, zero, empty.
template <class T>
concept CanBeEmpty = is_optional<T> || std::is_arithmetic_v<T> || requires(const T& v) { v.empty(); };

template <CanBeEmpty T>
bool is_empty_value(const T& v) {
  if constexpr (is_optional<T>) return !v.has_value();
  else if constexpr (std::is_arithmetic_v<T>) return v == T{};
  else return v.empty();
}

// Left out of what is written: a kOmitEmpty field whose value is empty.
template <class T>
bool omitted(const FieldInfo& info, const T& v) {
  if constexpr (CanBeEmpty<T>) return (info.traits & kOmitEmpty) && is_empty_value(v);
  else return false;
}

// Integers (in a list, a map or an optional) that kPort and kNonNegative describe.
template <class T>
constexpr bool integers_in() {
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) return true;
  else if constexpr (is_optional<T> || is_vector<T>) return integers_in<typename T::value_type>();
  else if constexpr (is_map<T>) return integers_in<typename T::mapped_type>();
  else return false;
}

// Each field's traits fit its type: kOmitEmpty a value that can be empty, kPort and kNonNegative
// integers, kStepEach a list, kJsonText a string.
template <class S>
constexpr bool traits_fit() {
  return std::apply(
      [](const auto&... f) {
        const auto fits = [](const auto& fd) {
          using T = std::remove_cvref_t<decltype(std::declval<S>().*(fd.member))>;
          const unsigned t = fd.info.traits;
          if ((t & kOmitEmpty) && !CanBeEmpty<T>) return false;
          if ((t & (kPort | kNonNegative)) && !integers_in<T>()) return false;
          if ((t & kStepEach) && !is_vector<T>) return false;
          if ((t & kJsonText) && !std::is_same_v<T, std::string>) return false;
          return true;
        };
        return (fits(f) && ...);
      },
      Schema<S>::fields);
}

}  // namespace paddock::schema
