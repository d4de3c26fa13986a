// The kernel probe: which facts this kernel and uid offer (Landlock ABI, namespaces, seccomp,
// cgroups, RLIMIT_DATA), asked of the paddock-helper that will enforce the plan, so that a plan
// and its enforcement cannot disagree. Every front end launches it here: `paddock run`, `plan`
// and `doctor`, the app's capability grid and its doctor page.
//
// `run` keeps the answer per boot (probing forks and unshares, a third of `run`'s start-up
// once). The cache is only a shortcut, never an authority: it lives in the user's private
// runtime directory (Layout::probe_cache, 0700), is used only while its key still matches this
// boot, user, kernel, helper binary, cgroup and user-namespace settings, and a file that is
// unreadable, not owned by us, writable by others or not a valid probe is ignored and rewritten.
// The helper re-validates the facts it relies on (Landlock ABI, privileges) and every other
// fact is re-proven by applying it, failing closed (125); on a refusal it drops the cache.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::platform {

// Runs `<helper> probe` and returns its JSON object. A helper that is missing, fails or prints
// something else is a refusal (125) with one actionable line (its first line of stderr too).
Result<nlohmann::json> run_probe(const std::string& helper_path);

enum class ProbeSource { kCache, kHelper };

struct CachedProbe {
  nlohmann::json probe;
  ProbeSource source = ProbeSource::kHelper;
};

class ProbeCache {
 public:
  // cache_path "" = no cache (no private runtime directory): every load probes.
  ProbeCache(std::string helper_path, std::string cache_path)
      : helper_(std::move(helper_path)), path_(std::move(cache_path)) {}

  // The cached probe when its key matches, else a fresh one from the helper (then cached).
  // fresh = true skips the lookup (and still refreshes the cache).
  Result<CachedProbe> load(bool fresh = false) const;
  // Best effort: a cache that cannot be written just is not used.
  void store(const nlohmann::json& probe) const;
  void drop() const;
  const std::string& path() const { return path_; }

 private:
  std::string helper_, path_;
};

// Removes the cache at path if it is a regular file of this user (the helper drops the caller's
// cache on a refusal, from the path its environment gives).
void drop_probe_cache(const std::string& path);

}  // namespace paddock::platform
