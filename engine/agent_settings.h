// What Paddock writes into an agent's own settings in its Paddock-owned state at the start of each
// session (fs.agent_state's settings, docs/agents.md): keys set to a value, and keys copied in
// from one of the user's own files. Pure: bytes in, bytes out; the helper reads the files as the
// agent would see them and writes the result into the session's top layer, never into a file of
// the user's.
#pragma once

#include <optional>
#include <string>

#include "engine/ir.h"
#include "engine/status.h"

namespace paddock {

// The settings file's new bytes. `current`: the file as the agent would see it without Paddock's
// layer (std::nullopt: no file); `imported`: import_from's bytes (std::nullopt: no such file, so
// nothing is imported). JSON: keys of `set` replace whatever is there (objects are made on the
// way); an imported object key is merged entry by entry, the agent's own entries winning, and
// `set` is applied last. TOML: a key is set by editing the text (comments and the rest of the
// file kept): its definitions in the matching tables are replaced, a "*" token matches every
// table at that level (only tables that already set the key are edited there), and the result is
// parsed again to check that every key says what it must. An error says why the file could not
// be written (it does not parse, or a key is defined in a way the text edit cannot change); the
// caller then leaves the file as it is and says so.
Result<std::string> apply_agent_setting(const AgentSetting& setting, const std::optional<std::string>& current,
                                        const std::optional<std::string>& imported);

}  // namespace paddock
