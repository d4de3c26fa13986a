#include "app/cli/launch_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace paddock::cli {
namespace fs = std::filesystem;
namespace {

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_on_path(const std::string& name, const std::string& path_var, const std::string& cwd) {
  if (name.find('/') != std::string::npos) {
    const std::string p = name[0] == '/' ? name : (fs::path(cwd) / name).lexically_normal().string();
    return is_executable_file(p) ? p : "";
  }
  std::size_t start = 0;
  while (start <= path_var.size()) {
    std::size_t colon = path_var.find(':', start);
    if (colon == std::string::npos) colon = path_var.size();
    const std::string dir = path_var.substr(start, colon - start);
    start = colon + 1;
    if (!dir.empty() && dir[0] == '/') {
      const std::string p = (fs::path(dir) / name).lexically_normal().string();
      if (is_executable_file(p)) return p;
    }
    if (colon == path_var.size()) break;
  }
  return "";
}

namespace {

std::string real(const std::string& p) {
  std::error_code ec;
  auto c = fs::canonical(p, ec);
  return ec ? p : c.string();
}

// "#!/usr/bin/env node" -> ("/usr/bin/env", "node"); "#!/bin/sh -e" -> ("/bin/sh", "").
std::pair<std::string, std::string> shebang(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line(256, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<std::size_t>(in.gcount()));
  if (line.rfind("#!", 0) != 0) return {};
  line = line.substr(2, line.find('\n') == std::string::npos ? std::string::npos : line.find('\n') - 2);
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  if (words.empty()) return {};
  if (fs::path(words[0]).filename() == "env")
    for (std::size_t k = 1; k < words.size(); ++k)
      if (words[k][0] != '-' && words[k].find('=') == std::string::npos) return {words[0], words[k]};
  return {words[0], ""};
}

}  // namespace

std::string installation_of(const std::string& executable) {
  // npm: the outermost node_modules holds the package and the dependencies npm hoisted beside
  // it. When that tree is a node prefix's lib/node_modules next to its own bin/node (nvm keeps
  // one prefix per node version), the version directory is the installation: the package's
  // shebang finds that node on PATH.
  const fs::path p(executable);
  fs::path prefix;
  for (const auto& part : p) {
    prefix /= part;
    if (part == "node_modules") {
      const fs::path lib = prefix.parent_path();
      std::error_code ec;
      if (lib.filename() == "lib" && fs::exists(lib.parent_path() / "bin" / "node", ec)) return lib.parent_path().string();
      return prefix.string();
    }
  }
  // nvm's node itself (…/versions/node/vX/bin/node): its version directory.
  if (p.parent_path().filename() == "bin" && p.filename() == "node") {
    std::error_code ec;
    if (fs::is_directory(p.parent_path().parent_path() / "lib" / "node_modules", ec))
      return p.parent_path().parent_path().string();
  }
  // Anything else (Claude Code's native build under ~/.local/share/claude/versions is one
  // self-contained file): the file alone.
  return executable;
}

Result<LaunchCommand> resolve_launch_command(const std::string& command, const std::string& path_var,
                                             const std::string& cwd) {
  LaunchCommand c;
  c.found = find_on_path(command, path_var, cwd);
  if (c.found.empty())
    return Error{ErrorCode::kNotFound, command + ": command not found" +
                                           (command.find('/') == std::string::npos ? " on PATH (" + path_var + ")" : "")};
  c.executable = real(c.found);
  c.grants.push_back(installation_of(c.executable));
  auto [interp, program] = shebang(c.executable);
  if (!interp.empty()) {
    std::string target = interp;
    if (!program.empty()) {
      c.grants.push_back(installation_of(real(interp)));  // env itself
      target = find_on_path(program, path_var, cwd);
    }
    if (!target.empty()) {
      c.interpreter = real(target);
      c.grants.push_back(installation_of(c.interpreter));
    }
  }
  return c;
}

}  // namespace paddock::cli
