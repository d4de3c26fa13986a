// Test fixture for the Linux helper: a throwaway HOME and project (secrets included) readable by
// the uid under test, a hand-built frozen IR over them, and a runner that computes the expected
// plan hash exactly like `paddock run` does and starts the real paddock-helper (as root, or as
// uid 65534 through setpriv).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/ir.h"
#include "engine/session/run_args.h"
#include "tests/support/control_client.h"
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

// Replaces f with a fresh fixture for the uid of the current data row (add_uid_rows): false when
// the fixture or its kernel probe failed.
bool fixture_for_row(SandboxFixture& f);

FrozenIr base_ir(const SandboxFixture& f);

// The helper's arguments as `paddock run` passes them (the session module's encoder), which a
// test may change before it runs them.
struct HelperInvocation {
  session::HelperRunArgs args;
  std::vector<std::string> prefix;  // setpriv ... for uid 65534
  std::string session_dir;
  std::string control_socket;
  std::string plan_hash;

  std::vector<std::string> helper_argv() const;  // paddock-helper run ...
  std::vector<std::string> argv() const;         // prefix + helper_argv()
};

using ArgsTweak = std::function<void(session::HelperRunArgs&)>;

// Writes ir.json into a new session dir and returns the helper invocation for cmd.
HelperInvocation prepare_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                                const ArgsTweak& tweak = {});
ProcessResult run_helper(const SandboxFixture& f, const FrozenIr& ir, const std::vector<std::string>& cmd,
                         const ArgsTweak& tweak = {}, RunOptions options = {});
// Runs `/bin/sh -c script` in the sandbox of ir, from the project directory.
ProcessResult run_sh(const SandboxFixture& f, const FrozenIr& ir, const std::string& script);


std::string uid_label(uid_t uid);  // "root" | "uid65534"

}  // namespace paddock::test
