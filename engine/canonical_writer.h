// Canonical JSON bytes (UTF-8, keys sorted by byte value, no insignificant whitespace, integers
// only) written straight into a string, for the plan data whose hash paddock-helper recomputes on
// every start (docs/cli.md, "run: start-up"): building an nlohmann tree only to dump it
// cost the helper more than the rest of its user-space work together.
//
// The caller writes each object's keys in byte order; the bytes are then exactly what
// canonical_bytes() gives for the same data as a json tree (tests/engine/canonical_writer_test
// and the plan goldens hold the two together).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/json_text.h"

namespace paddock {

class CanonicalWriter {
 public:
  CanonicalWriter& begin_object() { return open('{'); }
  CanonicalWriter& end_object() { return close('}'); }
  CanonicalWriter& begin_array() { return open('['); }
  CanonicalWriter& end_array() { return close(']'); }

  CanonicalWriter& key(std::string_view k) {
    separate();
    string(k);
    out_ += ':';
    need_comma_ = false;
    return *this;
  }

  CanonicalWriter& value(std::string_view s) {
    separate();
    string(s);
    need_comma_ = true;
    return *this;
  }
  CanonicalWriter& value(const char* s) { return value(std::string_view(s)); }
  CanonicalWriter& value(const std::string& s) { return value(std::string_view(s)); }
  CanonicalWriter& value(bool b) { return raw(b ? "true" : "false"); }
  CanonicalWriter& value(std::int64_t v) { return number(v); }
  CanonicalWriter& value(std::uint64_t v) { return number(v); }
  CanonicalWriter& value(int v) { return number(static_cast<std::int64_t>(v)); }
  CanonicalWriter& null() { return raw("null"); }

  CanonicalWriter& value(const std::vector<std::string>& list) {
    begin_array();
    for (const auto& s : list) value(s);
    return end_array();
  }
  CanonicalWriter& value(const std::map<std::string, std::string>& m) {
    return map(m, [this](const std::string& v) { value(v); });
  }
  CanonicalWriter& value(const std::map<std::string, std::vector<std::string>>& m) {
    return map(m, [this](const std::vector<std::string>& v) { value(v); });
  }
  // An object from a map: each value written by write(value). std::map iterates in byte order
  // of its keys, which is the canonical order as long as no key needs encoding
  // (json_text.h); when one does, the keys are put in the byte order of their encoded form,
  // which is the order a json tree of the same map has.
  template <class V, class Write>
  CanonicalWriter& map(const std::map<std::string, V>& m, Write&& write) {
    begin_object();
    bool plain = true;
    for (const auto& [k, v] : m) plain = plain && json_text_is_plain(k);
    if (plain) {
      for (const auto& [k, v] : m) {
        key(k);
        write(v);
      }
      return end_object();
    }
    std::vector<std::pair<std::string, const V*>> sorted;
    for (const auto& [k, v] : m) sorted.emplace_back(encode_json_text(k), &v);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [k, v] : sorted) {
      key_encoded(k);
      write(*v);
    }
    return end_object();
  }
  // A value given as its canonical bytes already.
  CanonicalWriter& canonical(std::string_view bytes) { return raw(bytes); }
  // A value that is already a json tree (small, e.g. the kernel probe).
  CanonicalWriter& value(const nlohmann::json& j) {
    return raw(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict));
  }

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void separate() {
    if (need_comma_) out_ += ',';
  }
  CanonicalWriter& open(char c) {
    separate();
    out_ += c;
    need_comma_ = false;
    return *this;
  }
  CanonicalWriter& close(char c) {
    out_ += c;
    need_comma_ = true;
    return *this;
  }
  CanonicalWriter& raw(std::string_view text) {
    separate();
    out_ += text;
    need_comma_ = true;
    return *this;
  }
  template <typename T>
  CanonicalWriter& number(T v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return raw(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }
  CanonicalWriter& key_encoded(const std::string& encoded) {
    separate();
    dump(encoded);
    out_ += ':';
    need_comma_ = false;
    return *this;
  }
  void dump(const std::string& utf8) {
    out_ += nlohmann::json(utf8).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  }
  // Printable ASCII is escaped here (only '"' and '\\' need it); anything else (control
  // characters, UTF-8) goes through nlohmann's own serializer, so escapes are exactly those of
  // canonical_bytes(); bytes that are not UTF-8 are encoded first (json_text.h), as every
  // writer of Paddock's JSON encodes them.
  void string(std::string_view s) {
    if (s.substr(0, kJsonBytesPrefix.size()) == kJsonBytesPrefix) return dump(encode_json_text(s));
    for (unsigned char c : s)
      if (c < 0x20 || c >= 0x7f) return dump(encode_json_text(s));
    // Runs between escapes are appended whole: a character at a time was the writer's main cost.
    out_ += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] == '"' || s[i] == '\\') {
        out_.append(s.data() + run, i - run);
        out_ += '\\';
        run = i;  // the escaped character starts the next run
      }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
  }

  std::string out_;
  bool need_comma_ = false;
};

}  // namespace paddock
