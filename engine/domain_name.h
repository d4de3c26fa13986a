// Domain names as policies write them (docs/network.md), and the loopback addresses the test
// seams may name.
#pragma once

#include <string>

#include "engine/status.h"

namespace paddock {

// Lowercases, strips one trailing dot, checks the shape: an LDH name of two labels or more,
// "*." + such a name for a pattern; an IP literal in any spelling is an error.
Result<std::string> normalize_domain(std::string d);
// A loopback address in its canonical spelling (127.a.b.c or ::1), or "" for anything else.
std::string loopback_literal(const std::string& ip);

}  // namespace paddock
