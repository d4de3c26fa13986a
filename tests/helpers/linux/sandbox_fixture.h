// Test fixture for the Linux helper: a throwaway HOME and project (secrets included) readable by
// the uid under test, a hand-built frozen IR over them, and a runner that computes the expected
// plan hash exactly like `paddock run` does and starts the real paddock-helper (as root, or as
// uid 65534 through setpriv).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "engine/ir.h"
#include "tests/support/process_runner.h"

namespace paddock::test {

struct SandboxFixture {
  uid_t uid = 0;
  std::string root;     // temp dir holding everything below
  std::string home;     // $HOME: .ssh/id_rsa, .aws/credentials, notes.txt
  std::string project;  // write root: .env, src/main.txt, link-to-env, link-to-ssh
  std::string outside;  // a read root next to the project (never writable)
  std::string tools;    // sandbox_probe lives here (read root)
  std::string state;    // session dirs and control sockets
  std::string probe_file;

  std::vector<std::string> prefix() const;  // setpriv ... for uid 65534, empty for root
  std::string probe_tool() const { return tools + "/sandbox_probe"; }
};

// Creates the tree (chowned to uid) and probes the kernel as that uid. Empty root on failure.
SandboxFixture make_fixture(uid_t uid);
void remove_fixture(const SandboxFixture& f);

FrozenIr base_ir(const SandboxFixture& f);

struct HelperInvocation {
  std::vector<std::string> argv;  // full command line (prefix included)
  std::string session_dir;
  std::string control_socket;
  std::string plan_hash;
};

// Writes ir.json into a new session dir and returns the helper command line for cmd.
HelperInvocation prepare_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                                const std::vector<std::string>& extra_args = {});
ProcessResult run_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                         const std::vector<std::string>& extra_args = {}, RunOptions options = {});


std::string uid_label(uid_t uid);  // "root" | "uid65534"

}  // namespace paddock::test
