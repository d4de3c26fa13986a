// Minimal text edits to a YAML layer. yaml-cpp drops comments and key order, so the form view
// never re-emits the document: it changes only the lines of the one sequence or scalar it edits
// (`section: key:`), leaving every other byte — comments, unknown keys, formatting — as it was.
// Shapes it does not understand (flow mappings, multi-line items) are refused with a message
// that points to the YAML view, never rewritten.
#pragma once

#include <string>
#include <vector>

#include "engine/status.h"

namespace paddock::gui {

// Reads section.key as a list of strings ("" if absent). Uses a real YAML parser.
Result<std::vector<std::string>> read_yaml_sequence(const std::string& text, const std::string& section,
                                                   const std::string& key);
// Reads section.key as a scalar ("" if absent).
Result<std::string> read_yaml_scalar(const std::string& text, const std::string& section,
                                     const std::string& key);

// Returns `text` with section.key set to `values`. Items that stay keep their lines (and
// comments); removed items lose their line; new items are appended after the last one.
Result<std::string> set_yaml_sequence(const std::string& text, const std::string& section,
                                      const std::string& key, const std::vector<std::string>& values);
// Returns `text` with section.key set to `value`; an empty value removes the key's line.
Result<std::string> set_yaml_scalar(const std::string& text, const std::string& section,
                                    const std::string& key, const std::string& value);

// A plain scalar when that is unambiguous YAML, else a double-quoted one.
std::string yaml_quote(const std::string& value);

}  // namespace paddock::gui
