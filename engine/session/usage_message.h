// The session's usage while it runs, the answer to the control socket's usage request
// (engine/session/control.h):
//
//   -> {"cmd":"usage"}
//   <- {"ok":true,"usage":{"cpu_ms":N,"memory_bytes":N,"processes":N,
//                          "limits":{"cpu_ms":N|null,"memory_bytes":N|null,"processes":N|null}}}
//
// cpu_ms: CPU time of the whole tree so far (including processes that have ended); memory_bytes:
// memory in use now, as the memory limit counts it (the cgroup's charge, or the processes'
// resident memory where there is no cgroup); processes: processes and threads alive now. The
// limits are the plan's (null: none). One encoder and one decoder, for the helper and the app,
// derived from the declaration (engine/schema.h) at the end of this header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock::session {

struct LiveUsage {
  std::int64_t cpu_ms = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t processes = 0;
  struct Limits {
    std::optional<std::int64_t> cpu_ms, memory_bytes, processes;
    bool operator==(const Limits&) const = default;
  } limits;
  bool operator==(const LiveUsage&) const = default;
};

// The answer line as a whole.
struct UsageReply {
  bool ok = true;
  LiveUsage usage;
  bool operator==(const UsageReply&) const = default;
};

// The answer line's JSON (without its newline).
std::string encode_usage_reply(const LiveUsage& usage);
// From an answer line: an error names the field when it is not a usage answer
// ({"ok":false,...} gives its "error").
Result<LiveUsage> decode_usage_reply(std::string_view line);

}  // namespace paddock::session

namespace paddock::schema {

template <>
struct Schema<session::LiveUsage::Limits> {
  using L = session::LiveUsage::Limits;
  static constexpr auto fields = std::make_tuple(field("cpu_ms", &L::cpu_ms, kNonNegative),
                                                 field("memory_bytes", &L::memory_bytes, kNonNegative),
                                                 field("processes", &L::processes, kNonNegative));
};

template <>
struct Schema<session::LiveUsage> {
  using U = session::LiveUsage;
  static constexpr auto fields =
      std::make_tuple(field("cpu_ms", &U::cpu_ms, kNonNegative), field("memory_bytes", &U::memory_bytes, kNonNegative),
                      field("processes", &U::processes, kNonNegative), field("limits", &U::limits));
};

template <>
struct Schema<session::UsageReply> {
  static constexpr auto fields =
      std::make_tuple(field("ok", &session::UsageReply::ok), field("usage", &session::UsageReply::usage));
};

}  // namespace paddock::schema
