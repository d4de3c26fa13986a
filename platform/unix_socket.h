// Whether a session is still there to talk to: its control socket accepts a connection. A socket
// file left by a helper that was killed refuses (ECONNREFUSED); no file at all is the same answer.
#pragma once

#include <string>

namespace paddock::platform {

bool unix_socket_accepts(const std::string& path);

}  // namespace paddock::platform
