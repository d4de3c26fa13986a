// A private world for running the real `paddock` CLI in a test: a temp root with a HOME (and its
// ~/.ssh), a project inside it, and the XDG state/runtime/config dirs, with the options that run
// the CLI there as the row's uid and without the switches that would taint or redirect it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "tests/support/process_runner.h"

namespace paddock::test {

struct CliHome {
  std::string root, home, project;
  uid_t uid = 0;
  RunOptions opts;  // cwd = project, HOME and XDG_* under root, setpriv prefix for non-root

  // Creates the tree under <base>/paddock-<name>-XXXXXX; false when it cannot. The home and the
  // project directory may be given other names (a test of names with special characters), and
  // the tree may live outside /tmp (where the sandbox's private /tmp would hide what a write
  // outside every grant does: it lands in the sandbox's own /tmp, not on the host).
  bool create(uid_t for_uid, const std::string& name, const std::vector<std::string>& unset_env,
              const std::string& home_name = "home", const std::string& project_name = "proj",
              const std::string& base = "/tmp");
  // Hands the tree to the uid under test (after the test wrote its files).
  void chown_all() const;
  std::string sessions_dir() const { return root + "/state/paddock/sessions"; }

  // The real `paddock` CLI with `args`, run in this world (two minutes at most).
  ProcessResult paddock(std::vector<std::string> args) const;
  // The ids in the sessions directory, sorted; and the one session made since `before` ("" when
  // none or several were: ids of sessions started in the same second do not sort by their start,
  // so the greatest id is not always the newest).
  std::vector<std::string> session_ids() const;
  std::string new_session(const std::vector<std::string>& before) const;
};

}  // namespace paddock::test
