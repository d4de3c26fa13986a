// Loads the plan's seccomp filter (libseccomp): default allow, each listed syscall denied with its
// errno (optionally only for a matching argument), and every socket family not in the allowed
// list refused with EAFNOSUPPORT. Syscalls of a foreign architecture (i386 via int 0x80, x32) kill
// the process: the rules are written for the native ABI and would not apply to them.
#pragma once

#include <string>
#include <vector>

#include "backends/linux/linux_plan.h"
#include "engine/status.h"

namespace paddock::helper {

// Requires no_new_privs. Unknown syscall names are refused (never skipped): a typo would be a hole.
Status apply_seccomp(const std::vector<linux_backend::SeccompRule>& rules,
                     const std::vector<std::string>& socket_families_allowed);

}  // namespace paddock::helper
