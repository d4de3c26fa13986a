// What every CLI command needs to know about where it runs: its own location (from which the
// helper and resources are found, so an installed prefix is relocatable) and the environment.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "engine/session/layout.h"
#include "engine/status.h"

namespace paddock::cli {

struct CliContext {
  std::filesystem::path exe_dir;                  // directory of the running paddock binary
  std::map<std::string, std::string> environment; // snapshot of environ at start
  int exit_code = 0;                              // set by the command that ran

  static CliContext from_process(const char* argv0);
  std::filesystem::path resources_dir() const;    // <prefix>/share/paddock
  std::filesystem::path helper_path() const;      // <prefix>/libexec/paddock/paddock-helper
  std::filesystem::path keyring_path() const;     // <prefix>/libexec/paddock/paddock-keyring
  std::string env(const std::string& name, const std::string& fallback = "") const;
  // Paddock's directories for this environment (the one derivation every front end uses).
  Result<session::Layout> layout() const { return session::from_env(environment); }
};

// Prints "paddock: <message>" on stderr as one line.
void print_error(const std::string& message);
// Prints e's message that way and returns its exit code.
int fail(const Error& e);

}  // namespace paddock::cli
