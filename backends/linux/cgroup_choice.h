// How the memory and process limits are enforced on a probed kernel: which cgroup hierarchy (if
// any) carries them, and which fall back to an rlimit. Shared by the plan compiler and the
// capability matrix so that they cannot disagree.
#pragma once

#include <string>

#include "backends/linux/kernel_probe.h"
#include "engine/schema.h"

namespace paddock::linux_backend {

// The cgroup hierarchy that carries the limits which use one (written "none", "v1", "v2").
enum class CgroupMechanism { kNone, kV1, kV2 };
const char* to_string(CgroupMechanism mechanism);

// kV2 when the delegated cgroup2 subtree is writable and enables every needed controller;
// else kV1 when the v1 memory+pids trees are writable and mounted; else kNone.
CgroupMechanism choose_cgroup(const CgroupProbe& probe, bool need_memory, bool need_pids);

enum class LimitVia {
  kNone,    // no mechanism: a policy asking for the limit is refused (125)
  kCgroup,  // memory.max / memory.limit_in_bytes, or pids.max, on the whole sandbox tree
  kRlimit,  // RLIMIT_DATA per process, or RLIMIT_NPROC inside the sandbox's user namespace
};

// Which tasks an RLIMIT_NPROC set inside the sandbox's fresh user namespace counts.
enum class NprocScope {
  kNotEnforced,  // the caller is root: the kernel exempts real uid 0 from RLIMIT_NPROC
  kSandbox,      // Linux >= 5.14 counts per (user namespace, uid): the sandbox's tasks only
  kWholeUid,     // older kernels count every process of the uid on the machine
};
NprocScope nproc_scope(const KernelProbe& probe);

struct LimitChoice {
  CgroupMechanism cgroup = CgroupMechanism::kNone;  // the hierarchy of the limits that use one
  LimitVia memory = LimitVia::kNone;
  LimitVia processes = LimitVia::kNone;
  bool operator==(const LimitChoice&) const = default;
};

// Decided for both limits at once, independent of which of them an IR requests, so that the
// capability matrix (which sees no IR) and every plan report each limit the same way.
LimitChoice choose_limits(const KernelProbe& probe);

}  // namespace paddock::linux_backend

template <>
struct paddock::schema::EnumNames<paddock::linux_backend::CgroupMechanism> {
  using M = paddock::linux_backend::CgroupMechanism;
  static constexpr NameTable<M, 3> values{{{M::kNone, "none"}, {M::kV1, "v1"}, {M::kV2, "v2"}}};
};
