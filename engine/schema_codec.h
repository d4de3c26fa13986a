// JSON for every declared value (engine/schema.h), derived from its declaration: the JSON value
// (to_json_value), the strict reader (Reader: every object has exactly its declared keys, each of
// its declared type; the first failure names the JSON path) and the canonical bytes written
// straight into a string (write_canonical: keys in byte order, no whitespace, integers only; the
// same bytes canonical_bytes() gives for to_json_value's tree). Strings cross the boundary as
// engine/json_text.h encodes them. Included by the .cpp files that encode or decode records, not
// by headers.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/canonical_writer.h"
#include "engine/json_text.h"
#include "engine/schema.h"
#include "engine/status.h"
#include "engine/strict_json_reader.h"

namespace paddock::schema {

// ---- The JSON value ----------------------------------------------------------------------------

template <class T>
nlohmann::json to_json_value(const T& v);

// A field's value: as its type says, or, for kJsonText, the JSON its text holds.
template <class T>
nlohmann::json field_json(const FieldInfo& info, const T& v) {
  if constexpr (std::is_same_v<T, std::string>)
    if (info.traits & kJsonText) return nlohmann::json::parse(v, nullptr, /*allow_exceptions=*/false);
  return to_json_value(v);
}

template <class T>
nlohmann::json to_json_value(const T& v) {
  using nlohmann::json;
  if constexpr (std::is_same_v<T, std::string>) {
    return json_text_value(v);
  } else if constexpr (is_optional<T>) {
    return v ? to_json_value(*v) : json(nullptr);
  } else if constexpr (Enum<T>) {
    return json(std::string(enum_name(v)));
  } else if constexpr (is_vector<T>) {
    json out = json::array();
    for (const auto& x : v) out.push_back(to_json_value(x));
    return out;
  } else if constexpr (is_map<T>) {
    json out = json::object();
    for (const auto& [k, x] : v) out[encode_json_text(k)] = to_json_value(x);
    return out;
  } else if constexpr (Described<T>) {
    static_assert(traits_fit<T>(), "a field's traits do not fit its type (see engine/schema.h, Trait)");
    json out = json::object();
    for_each_field(v, [&](const FieldInfo& info, const auto& member) {
      if (omitted(info, member)) return;
      out[std::string(info.key)] = field_json(info, member);
    });
    return out;
  } else {
    static_assert(std::is_same_v<T, bool> || std::is_integral_v<T> || std::is_same_v<T, json>,
                  "no JSON for this declared field's type");
    return json(v);  // bool, integers, a value that is JSON already
  }
}

// A tagged record (schema.h): its tag's name and the fields of its variant.
template <TaggedRecord T>
nlohmann::json tagged_to_json(const T& m) {
  static_assert(variants_complete<T>(), "Tagged<T> needs one variant per value of its tag, each once");
  constexpr auto tag = Tagged<T>::tag;
  nlohmann::json out = nlohmann::json::object();
  out[std::string(tag.info.key)] = to_json_value(m.*(tag.member));
  with_variant<T>(m.*(tag.member), [&](const auto& v) {
    std::apply(
        [&](const auto&... f) {
          ((omitted(f.info, m.*(f.member)) ? void() : void(out[std::string(f.info.key)] = field_json(f.info, m.*(f.member)))),
           ...);
        },
        v.fields);
  });
  return out;
}

// ---- Canonical bytes ---------------------------------------------------------------------------

template <class T>
void write_canonical(CanonicalWriter& w, const T& v) {
  if constexpr (is_optional<T>) {
    if (v) write_canonical(w, *v);
    else w.null();
  } else if constexpr (Enum<T>) {
    w.value(enum_name(v));
  } else if constexpr (is_vector<T>) {
    w.begin_array();
    for (const auto& x : v) write_canonical(w, x);
    w.end_array();
  } else if constexpr (is_map<T>) {
    w.map(v, [&](const auto& x) { write_canonical(w, x); });
  } else if constexpr (Described<T>) {
    static_assert(traits_fit<T>(), "a field's traits do not fit its type (see engine/schema.h, Trait)");
    w.begin_object();
    for_each_field_canonical(v, [&](const FieldInfo& info, const auto& member) {
      if (omitted(info, member)) return;
      w.key(info.key);
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(member)>, std::string>)
        if (info.traits & kJsonText) {
          w.value(field_json(info, member));
          return;
        }
      write_canonical(w, member);
    });
    w.end_object();
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>) {
    w.value(v);
  } else {
    static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, bool> || std::is_same_v<T, nlohmann::json>,
                  "no canonical bytes for this declared field's type");
    w.value(v);  // strings (encoded by the writer), booleans, a value that is JSON already
  }
}

template <class T>
std::string canonical_bytes_of(const T& v) {
  CanonicalWriter w;
  write_canonical(w, v);
  return w.take();
}

// The canonical bytes of v with the value of one key given as its canonical bytes already (a
// plan's steps, which the helper holds as bytes and never as a tree).
template <Described T>
std::string canonical_bytes_with(const T& v, std::string_view key, std::string_view canonical) {
  CanonicalWriter w;
  w.begin_object();
  for_each_field_canonical(v, [&](const FieldInfo& info, const auto& member) {
    if (omitted(info, member)) return;
    w.key(info.key);
    if (info.key == key) w.canonical(canonical);
    else write_canonical(w, member);
  });
  w.end_object();
  return w.take();
}

// ---- A plan's steps ----------------------------------------------------------------------------
// A backend plan declares its steps as the fields of one struct, in the order they are applied:
// each is written {"step": key, "value": ...}; a kStepEach list gives a step per entry.

template <Described T, class F>
void for_each_step(const T& plan, F&& f) {
  for_each_field(plan, [&](const FieldInfo& info, const auto& member) {
    if constexpr (is_vector<decltype(member)>) {
      if (info.traits & kStepEach) {
        for (const auto& each : member) f(info.key, each);
        return;
      }
    }
    f(info.key, member);
  });
}

template <Described T>
std::string canonical_steps_of(const T& plan) {
  CanonicalWriter w;
  w.begin_array();
  for_each_step(plan, [&](std::string_view name, const auto& value) {
    w.begin_object().key("step").value(name).key("value");
    write_canonical(w, value);
    w.end_object();
  });
  w.end_array();
  return w.take();
}

template <Described T>
nlohmann::json steps_json(const T& plan) {
  nlohmann::json out = nlohmann::json::array();
  for_each_step(plan, [&](std::string_view name, const auto& value) {
    out.push_back({{"step", std::string(name)}, {"value", to_json_value(value)}});
  });
  return out;
}

// ---- The strict reader -------------------------------------------------------------------------

class Reader : public StrictJsonReader {
 public:
  using json = nlohmann::json;
  // prefix starts every error message ("IR field ", "report.json: "); root names the outermost
  // object in messages about its own keys ("ir": "IR field ir.extra: unknown field").
  Reader(std::string prefix, std::string root) : StrictJsonReader(std::move(prefix)), root_(std::move(root)) {}

  template <class T>
  bool read(const json& j, const std::string& path, T& out, unsigned traits = kPlain) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (traits & kJsonText) {
        if (!j.is_object()) return fail(path, "expected an object");
        out = j.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
        return true;
      }
      return str(j, path, out);
    } else if constexpr (std::is_same_v<T, bool>) {
      return boolean(j, path, out);
    } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) {
      std::int64_t v = 0;
      if (!integer(j, path, v)) return false;
      if ((traits & kPort) && (v < 0 || v > 65535)) return fail(path, "out of range 0..65535");
      if ((traits & kNonNegative) && v < 0) return fail(path, "must not be negative");
      if constexpr (std::is_same_v<T, int>)
        if (v < INT_MIN || v > INT_MAX) return fail(path, "out of range");
      out = static_cast<T>(v);
      return true;
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      if (!j.is_number_unsigned()) return fail(path, "expected a non-negative integer");
      out = j.get<std::uint64_t>();
      return true;
    } else if constexpr (is_optional<T>) {
      // null is how an unset value is written, except where an unset value is left out.
      if (j.is_null() && !(traits & kOmitEmpty)) {
        out.reset();
        return true;
      }
      typename T::value_type x{};
      if (!read(j, path, x, traits)) return false;
      out = std::move(x);
      return true;
    } else if constexpr (Enum<T>) {
      std::string name;
      if (!str(j, path, name)) return false;
      if (auto v = enum_from_name<T>(name)) {
        out = *v;
        return true;
      }
      return fail(path, "expected " + enum_choices<T>());
    } else if constexpr (is_vector<T>) {
      if (!j.is_array()) return fail(path, "expected an array");
      out.clear();
      out.reserve(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) {
        typename T::value_type x{};
        if (!read(j[i], path + "[" + std::to_string(i) + "]", x, traits)) return false;
        out.push_back(std::move(x));
      }
      return true;
    } else if constexpr (is_map<T>) {
      if (!j.is_object()) return fail(path, "expected an object");
      out.clear();
      for (auto it = j.begin(); it != j.end(); ++it) {
        const auto key = decode_json_text(it.key());
        if (!key) return fail(path + "." + it.key(), "a key that is not valid encoded text");
        if (!read(it.value(), path + "." + it.key(), out[*key], traits)) return false;
      }
      return true;
    } else if constexpr (Described<T>) {
      const std::string here = path.empty() ? root_ : path;
      const auto child = [&](std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
      };
      const auto named = [&](std::string_view key) {
        return here.empty() ? std::string(key) : here + "." + std::string(key);
      };
      if (!j.is_object()) return fail(here, "expected an object");
      for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for_each_field(out, [&](const FieldInfo& info, auto&) { known = known || info.key == it.key(); });
        if (!known) return fail(named(it.key()), "unknown field");
      }
      bool ok = true;
      for_each_field(out, [&](const FieldInfo& info, auto& member) {
        if (!ok) return;
        const auto it = j.find(std::string(info.key));
        if (it == j.end()) {
          if (!(info.traits & (kOmitEmpty | kMayBeAbsent))) ok = fail(named(info.key), "missing field");
          return;
        }
        ok = read(*it, child(info.key), member, info.traits);
      });
      return ok;
    } else {
      static_assert(std::is_same_v<T, json>, "no JSON reading for this declared field's type");
      out = j;
      return true;
    }
  }

  // A tagged record: the tag first (its absence or an unknown value names it), then exactly the
  // fields of its variant.
  template <TaggedRecord T>
  bool read_tagged(const json& j, T& out) {
    static_assert(variants_complete<T>(), "Tagged<T> needs one variant per value of its tag, each once");
    constexpr auto tag = Tagged<T>::tag;
    const std::string tag_key(tag.info.key);
    if (!j.is_object()) return fail(root_, "expected an object");
    if (!j.contains(tag_key)) return fail(tag_key, "missing field");
    if (!read(j[tag_key], tag_key, out.*(tag.member))) return false;
    bool ok = true;
    with_variant<T>(out.*(tag.member), [&](const auto& v) {
      for (auto it = j.begin(); it != j.end() && ok; ++it) {
        bool known = it.key() == tag_key;
        std::apply([&](const auto&... f) { ((known = known || f.info.key == it.key()), ...); }, v.fields);
        if (!known) ok = fail(it.key(), "unknown field");
      }
      std::apply(
          [&](const auto&... f) {
            const auto one = [&](const auto& fd) {
              if (!ok) return;
              const auto it = j.find(std::string(fd.info.key));
              if (it == j.end()) {
                if (!(fd.info.traits & (kOmitEmpty | kMayBeAbsent))) ok = fail(std::string(fd.info.key), "missing field");
                return;
              }
              ok = read(*it, std::string(fd.info.key), out.*(fd.member), fd.info.traits);
            };
            (void)one;  // a variant without fields
            (one(f), ...);
          },
          v.fields);
    });
    return ok;
  }

 private:
  std::string root_;
};

// A declared value from JSON; an error is kBadInput "<prefix><path>: <what>".
template <class T>
Result<T> from_json_value(const nlohmann::json& j, const std::string& prefix, const std::string& root = {}) {
  Reader r(prefix, root);
  T out{};
  if (!r.read(j, "", out)) return bad_input(r.error());
  return out;
}

}  // namespace paddock::schema
