// The IR's canonical bytes written directly: `paddock run` serialises the IR three times before
// the helper starts (the schema hash, ir.json and the plan's ir_hash), and building an nlohmann
// tree only to dump it was most of that cost. The bytes are exactly canonical_bytes(to_json(ir))
// (tests/engine/ir_test compares the two on every golden and on an IR with every field set): the
// schema (ir_schema.h) gives each object's keys in byte order at compile time.
#include "engine/canonical_writer.h"
#include "engine/ir.h"
#include "engine/ir_schema.h"

namespace paddock {
namespace {

using namespace ir_schema;

template <class T>
void write(CanonicalWriter& w, const T& v) {
  if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
    if (v) w.value(*v);
    else w.null();
  } else if constexpr (Enum<T>) {
    w.value(enum_name(v));
  } else if constexpr (is_vector<T>) {
    w.begin_array();
    for (const auto& x : v) write(w, x);
    w.end_array();
  } else if constexpr (is_map<T>) {
    w.map(v, [&](const auto& x) { write(w, x); });
  } else if constexpr (Described<T>) {
    w.begin_object();
    for_each_field_canonical(v, [&](const FieldInfo& info, const auto& member) {
      w.key(info.key);
      write(w, member);
    });
    w.end_object();
  } else {
    w.value(v);  // strings, booleans, integers, the extensions (already JSON)
  }
}

}  // namespace

std::string canonical_bytes(const FrozenIr& ir) {
  CanonicalWriter w;
  write(w, ir);
  return w.take();
}

}  // namespace paddock
