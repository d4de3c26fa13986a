// Test support: run a program and capture its exit code, stdout and stderr.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace paddock::test {

struct ProcessResult {
  int exit_code = -1;   // 128+N when killed by signal N
  std::string out;
  std::string err;
};

struct RunOptions {
  std::string cwd;                                   // "" = inherit
  std::map<std::string, std::string> env_override;   // added/overridden variables
  std::vector<std::string> env_unset;
  std::vector<std::string> prefix;                   // e.g. {"setpriv", "--reuid=65534", ...}
  std::string stdin_data;
  int timeout_ms = 60000;                            // the child is SIGKILLed past this
};

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options = {});

// Starts argv in the background with options' directory, environment and prefix (not its stdin
// or timeout), stdout and stderr to the file `log` ("" keeps the test's own); returns the pid.
pid_t spawn_process(const std::vector<std::string>& argv, const std::string& log, const RunOptions& options = {});
// Waits for pid; its exit code, or 128+N when signal N killed it.
int wait_exit(pid_t pid);

std::string paddock_bin();          // build-tree bin/paddock
std::string helper_bin();           // build-tree libexec/paddock/paddock-helper

}  // namespace paddock::test
