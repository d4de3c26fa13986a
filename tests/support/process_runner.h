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
// tests/helpers/linux's no_userns: runs its arguments where user namespaces are refused.
std::string no_userns_bin();
// The head of a `paddock run` command line: {paddock, "run"}; in the landlock tier, {no_userns,
// paddock, "run", "--tier", "landlock"}. The tier is what people choose where user namespaces are
// refused (a container's default seccomp profile, a hardened sysctl), so its sessions start under
// no_userns (tests/helpers/linux), which refuses them the same way: nothing the tier does may
// lean on a namespace the user does not have.
// `command` names another subcommand that takes the tier (hash, plan, explain).
std::vector<std::string> paddock_run_argv(bool landlock_tier, const std::string& command = "run");

}  // namespace paddock::test
