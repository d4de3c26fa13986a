// Grants added and removed between two frozen IRs, field by field (the Diff tab): what a change
// to a layer does to the policy the helper will enforce.
#pragma once

#include <string>
#include <vector>

#include "engine/ir.h"

namespace paddock::gui {

struct IrChange {
  std::string field;   // IR field path, e.g. "fs.write_roots", "egress.mode", "resources.memory_bytes"
  std::string value;   // the entry or the new value in words
  bool added = false;  // false: removed (for scalar changes: the old value is a removed row)
  bool operator==(const IrChange&) const = default;
};

// Every difference, in the schema's field order (engine/ir_schema.h); lists and maps compare as
// sets of entries, scalars as old -> new pairs. Byte counts and seconds read in units.
std::vector<IrChange> diff_ir(const FrozenIr& before, const FrozenIr& after);

// A field's value as a person reads it: "16 GiB" for a *_bytes field or a quota, "2 h" for a
// *_seconds / *_secs field; anything else as it is.
std::string value_in_units(const std::string& field, const std::string& value);

}  // namespace paddock::gui
