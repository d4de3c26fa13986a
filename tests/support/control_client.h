// A test's side of a session's control socket (engine/session/control.h): one request line, one
// answer line.
#pragma once

#include <string>

namespace paddock::test {

// Sends one request line to a session's control socket and returns the answer line without its
// newline: "" when none came within 20 s (a helper that cannot accept must fail the test, not
// hang it), "connect failed" when nothing listens.
std::string control_line(const std::string& socket_path, const std::string& request);

}  // namespace paddock::test
