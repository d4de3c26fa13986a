// The kernel probe `paddock run` compiles its plan against, cached per boot (issue 5: probing
// forks and unshares on every run and was a third of `paddock run`'s start-up).
//
// The cache is only a shortcut, never an authority: it lives in the user's private runtime
// directory ($XDG_RUNTIME_DIR/paddock, 0700), is used only when its key still matches this
// boot, user, kernel, helper binary, cgroup and user-namespace settings, and a file that is
// unreadable, not owned by us, writable by others or not a valid probe is ignored and
// rewritten. The helper re-validates the facts it relies on (Landlock ABI, privileges) and
// every other fact is re-proven by applying it, failing closed (125).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/cli_context.h"
#include "engine/status.h"

namespace paddock::cli {

enum class ProbeSource { kCache, kHelper };

struct CachedProbe {
  nlohmann::json probe;
  ProbeSource source = ProbeSource::kHelper;
};

// Runs `paddock-helper probe` (the facts come from the helper that will enforce the plan).
Result<nlohmann::json> probe_with_helper(const CliContext& ctx);

// The cached probe when its key matches, else a fresh one from the helper (then cached).
// fresh = true skips the lookup (and still refreshes the cache).
Result<CachedProbe> load_probe(const CliContext& ctx, bool fresh = false);

// Writes probe to the cache (best effort: a cache that cannot be written just is not used).
void store_probe(const CliContext& ctx, const nlohmann::json& probe);

// Forgets the cached probe, e.g. after the helper failed closed on facts it could not apply.
void drop_probe_cache(const CliContext& ctx);

// Where the cache lives ("" when there is no private runtime dir): `run` hands it to the helper,
// which drops it on a refusal (the helper replaces the `paddock` process, so nothing runs after).
std::string probe_cache_path(const CliContext& ctx);

}  // namespace paddock::cli
