// A throwaway world for engine tests: a temp dir with a fake HOME, XDG dirs, a system dir and a
// project, and Inputs that point at them (never at the real user's files).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <QTemporaryDir>
#include <QtGlobal>

#include "engine/engine.h"
#include "tests/support/test_paths.h"

namespace paddock::test {

struct EngineEnv {
  QTemporaryDir tmp;
  std::string root, home, project, system_dir;

  explicit EngineEnv(const std::string& fixed_root = "") {
    root = fixed_root.empty() ? std::filesystem::canonical(tmp.path().toStdString()).string() : fixed_root;
    if (!fixed_root.empty()) {
      std::filesystem::remove_all(root);
      std::filesystem::create_directories(root);
    }
    home = root + "/home";
    project = root + "/project";
    system_dir = root + "/etc-paddock";
    std::filesystem::create_directories(home);
    std::filesystem::create_directories(project);
  }

  void write(const std::string& path, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  void repo(const std::string& text) const { write(project + "/.paddock/policy.yaml", text); }
  void user(const std::string& text) const { write(home + "/.config/paddock/policy.yaml", text); }
  void system(const std::string& text) const { write(system_dir + "/policy.yaml", text); }

  Inputs inputs() const {
    Inputs in;
    in.project = project;
    in.resources_dir = paddock::test::source_dir() + "/resources";
    in.environment = {{"HOME", home}, {"PATH", "/usr/bin:/bin"}, {"LANG", "C.UTF-8"}};
    // Every test reads its own system dir, never /etc/paddock; the taint this records is
    // expected and checked where it matters.
    in.environment["PADDOCK_SYSTEM_DIR"] = system_dir;
    return in;
  }
};

// The evaluation of in, which must succeed (or fail: eval_err); the test stops otherwise.
inline Evaluation eval_ok(const Inputs& in) {
  auto r = evaluate(in);
  if (!r.ok()) qFatal("evaluate failed: %s", r.error().message.c_str());
  return std::move(*r);
}
inline Error eval_err(const Inputs& in) {
  auto r = evaluate(in);
  if (r.ok()) qFatal("evaluate unexpectedly succeeded");
  return r.error();
}

inline bool has_deny(const FrozenIr& ir, const std::string& path) {
  for (const auto& d : ir.fs.deny)
    if (d.path == path) return true;
  return false;
}

inline bool contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& e : v)
    if (e == x) return true;
  return false;
}

}  // namespace paddock::test
