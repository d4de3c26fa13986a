#include "app/cli/cli_context.h"

#include <unistd.h>

#include <iostream>
#include <system_error>

#include "engine/display_text.h"

extern char** environ;

namespace paddock::cli {

CliContext CliContext::from_process(const char* argv0) {
  CliContext ctx;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) self = std::filesystem::absolute(argv0, ec);
  ctx.exe_dir = self.parent_path();
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    ctx.environment.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return ctx;
}

std::filesystem::path CliContext::resources_dir() const {
  return (exe_dir / ".." / PADDOCK_DATA_REL).lexically_normal();
}

std::filesystem::path CliContext::helper_path() const {
  return (exe_dir / ".." / PADDOCK_LIBEXEC_REL / "paddock-helper").lexically_normal();
}

std::filesystem::path CliContext::keyring_path() const {
  return (exe_dir / ".." / PADDOCK_LIBEXEC_REL / "paddock-keyring").lexically_normal();
}

std::string CliContext::env(const std::string& name, const std::string& fallback) const {
  auto it = environment.find(name);
  return it == environment.end() ? fallback : it->second;
}

std::vector<std::string> absolute_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    std::string abs = p.empty() || p[0] == '/' ? p : (std::filesystem::current_path(ec) / p).lexically_normal().string();
    while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
    out.push_back(abs);
  }
  return out;
}

// One line, whatever the message holds: its paths may be names someone else chose.
void print_error(const std::string& message) { std::cerr << "paddock: " << display_text(message) << "\n"; }

int fail(const Error& e) {
  print_error(e.message);
  return e.exit_code();
}

}  // namespace paddock::cli
