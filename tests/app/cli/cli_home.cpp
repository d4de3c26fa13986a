#include "tests/app/cli/cli_home.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tests/support/test_util.h"

namespace paddock::test {

bool CliHome::create(uid_t for_uid, const std::string& name, const std::vector<std::string>& unset_env,
                     const std::string& home_name, const std::string& project_name, const std::string& base) {
  namespace fs = std::filesystem;
  uid = for_uid;
  std::string tmpl = base + "/paddock-" + name + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return false;
  root = tmpl;
  ::chmod(root.c_str(), 0755);
  home = root + "/" + home_name;
  project = home + "/" + project_name;
  std::error_code ec;
  for (const auto& d : {home + "/.ssh", project, root + "/state", root + "/run", root + "/config"})
    if (!fs::create_directories(d, ec) && ec) return false;
  ::chmod((root + "/run").c_str(), 0700);  // XDG_RUNTIME_DIR must be private
  opts = {};
  opts.cwd = project;
  opts.env_override = {{"HOME", home}, {"XDG_STATE_HOME", root + "/state"},
                       {"XDG_RUNTIME_DIR", root + "/run"}, {"XDG_CONFIG_HOME", root + "/config"}};
  opts.env_unset = unset_env;
  opts.prefix = as_uid(uid);
  return true;
}

void CliHome::chown_all() const { chown_tree(root, uid); }

ProcessResult CliHome::paddock(std::vector<std::string> args) const {
  args.insert(args.begin(), paddock_bin());
  RunOptions o = opts;
  o.timeout_ms = 120000;
  return run_process(args, o);
}

std::vector<std::string> CliHome::session_ids() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(sessions_dir(), ec)) ids.push_back(e.path().filename().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string CliHome::new_session(const std::vector<std::string>& before) const {
  std::string made;
  for (const auto& id : session_ids())
    if (std::find(before.begin(), before.end(), id) == before.end()) {
      if (!made.empty()) return {};
      made = id;
    }
  return made;
}

}  // namespace paddock::test
