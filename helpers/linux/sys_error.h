// Setup errors inside the sandbox child: what failed, on which path, and errno. Every one is fatal
// (exit 125 before exec); the helper never falls back to a weaker step.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/status.h"

namespace paddock::helper {

inline Error sys_error(const std::string& what, const std::string& path = "") {
  std::string msg = what;
  if (!path.empty()) msg += " " + path;
  msg += ": ";
  msg += std::strerror(errno);
  return refused(std::move(msg));
}

}  // namespace paddock::helper
