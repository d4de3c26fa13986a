// Copies a fixture project (tests/data/projects/<name>) to a fixed path so that golden IRs are
// byte-stable: /tmp/paddock-golden/<name>/{project,home,etc-paddock}. `HEAD.fixture` becomes
// .git/HEAD (a real .git directory cannot live in the source tree).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "tests/support/test_paths.h"

namespace paddock::test {

struct FixtureProject {
  std::string root, project, home;

  FixtureProject(const std::string& name, const std::string& base = "/tmp/paddock-golden") {
    namespace fs = std::filesystem;
    root = base + "/" + name;
    project = root + "/project";
    home = root + "/home";
    fs::remove_all(root);
    fs::create_directories(home + "/.claude");
    fs::create_directories(root + "/etc-paddock");
    fs::copy(paddock::test::test_data() + "/projects/" + name, project, fs::copy_options::recursive);
    if (fs::exists(project + "/HEAD.fixture")) {
      fs::create_directories(project + "/.git");
      fs::rename(project + "/HEAD.fixture", project + "/.git/HEAD");
    }
  }

  Inputs inputs(const std::string& agent = "claude-code") const {
    Inputs in;
    in.project = project;
    in.agent = agent;
    in.resources_dir = paddock::test::source_dir() + "/resources";
    in.environment = {{"HOME", home},           {"PATH", "/usr/local/bin:/usr/bin:/bin:."},
                      {"LANG", "C.UTF-8"},      {"TERM", "xterm"},
                      {"NODE_ENV", "test"},     {"NODE_AUTH_TOKEN", "t"},
                      {"NPM_TOKEN", "t"},       {"RUSTFLAGS", "-g"},
                      {"GITHUB_TOKEN", "t"},    {"PADDOCK_SYSTEM_DIR", root + "/etc-paddock"}};
    return in;
  }
};

inline const std::vector<std::string>& fixture_names() {
  static const std::vector<std::string> names = {"rust-service", "node-app", "plain"};
  return names;
}

}  // namespace paddock::test
