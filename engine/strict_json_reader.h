// Strict reading of JSON written by Paddock itself: every object has exactly the expected keys,
// each of the expected type; the first failure is kept, naming the JSON path. The reader of every
// declared record (engine/schema_codec.h) is built on it.
#pragma once

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/json_text.h"

namespace paddock {

class StrictJsonReader {
 public:
  using json = nlohmann::json;
  // prefix starts every error message, e.g. "IR field ".
  explicit StrictJsonReader(std::string prefix) : prefix_(std::move(prefix)) {}

  bool fail(const std::string& path, const std::string& what) {
    if (error_.empty()) error_ = prefix_ + path + ": " + what;
    return false;
  }
  const std::string& error() const { return error_; }

  bool object(const json& j, const std::string& path, std::initializer_list<const char*> keys) {
    return object(j, path, std::vector<std::string_view>(keys.begin(), keys.end()));
  }
  bool object(const json& j, const std::string& path, const std::vector<std::string_view>& keys) {
    if (!j.is_object()) return fail(path, "expected an object");
    std::set<std::string_view> allowed(keys.begin(), keys.end());
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!allowed.count(it.key())) return fail(path + "." + it.key(), "unknown field");
    for (const auto& k : allowed)
      if (!j.contains(std::string(k))) return fail(path + "." + std::string(k), "missing field");
    return true;
  }
  // Strings are decoded as they were encoded (engine/json_text.h).
  bool str(const json& j, const std::string& path, std::string& out) {
    if (!j.is_string()) return fail(path, "expected a string");
    auto text = decode_json_text(j.get_ref<const std::string&>());
    if (!text) return fail(path, "not text Paddock writes (a malformed \"bytes:\" encoding)");
    out = std::move(*text);
    return true;
  }
  bool boolean(const json& j, const std::string& path, bool& out) {
    if (!j.is_boolean()) return fail(path, "expected true or false");
    out = j.get<bool>();
    return true;
  }
  bool integer(const json& j, const std::string& path, std::int64_t& out) {
    if (!j.is_number_integer()) return fail(path, "expected an integer");
    out = j.get<std::int64_t>();
    return true;
  }
  // Any value an int holds.
  bool int_value(const json& j, const std::string& path, int& out) {
    std::int64_t v = 0;
    if (!integer(j, path, v)) return false;
    if (v < INT_MIN || v > INT_MAX) return fail(path, "out of range");
    out = static_cast<int>(v);
    return true;
  }
  // A TCP or UDP port number, 0..65535.
  bool port(const json& j, const std::string& path, int& out) {
    std::int64_t v = 0;
    if (!integer(j, path, v)) return false;
    if (v < 0 || v > 65535) return fail(path, "out of range 0..65535");
    out = static_cast<int>(v);
    return true;
  }
  bool opt_integer(const json& j, const std::string& path, std::optional<std::int64_t>& out) {
    if (j.is_null()) { out.reset(); return true; }
    std::int64_t v = 0;
    if (!integer(j, path, v)) return false;
    if (v < 0) return fail(path, "must not be negative");
    out = v;
    return true;
  }
  bool strings(const json& j, const std::string& path, std::vector<std::string>& out) {
    if (!j.is_array()) return fail(path, "expected an array of strings");
    out.clear();
    for (std::size_t i = 0; i < j.size(); ++i) {
      std::string s;
      if (!str(j[i], path + "[" + std::to_string(i) + "]", s)) return false;
      out.push_back(std::move(s));
    }
    return true;
  }
 private:
  std::string prefix_;
  std::string error_;
};

}  // namespace paddock
