#include "engine/session/layout.h"

#include <algorithm>
#include <filesystem>

namespace paddock::session {
namespace {

std::string get(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

// Lexical only: "//a/./b/" -> "/a/b". No file is looked at.
std::string normal(const std::string& path) {
  std::string out = std::filesystem::path(path).lexically_normal().generic_string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool absolute(const std::string& p) { return !p.empty() && p[0] == '/'; }

// $VAR if it is absolute, else ~/<fallback>.
std::string base(const std::map<std::string, std::string>& env, const char* var, const std::string& home,
                 const char* fallback) {
  const std::string v = get(env, var);
  return absolute(v) ? normal(v) : (home == "/" ? "" : home) + "/" + fallback;
}

}  // namespace

std::string Layout::control_socket(const std::string& id) const {
  if (!runtime_dir.empty()) return runtime_dir + "/" + id + ".sock";
  return session_dir(id) + "/control.sock";
}

std::string Layout::probe_cache() const { return runtime_dir.empty() ? std::string() : runtime_dir + "/probe-cache.json"; }

Result<Layout> from_env(const std::map<std::string, std::string>& env) {
  const std::string home = get(env, "HOME");
  if (!absolute(home))
    return bad_input("HOME is not set to an absolute path; Paddock resolves ~, $HOME and its own directories from it");
  Layout l;
  l.home = normal(home);
  l.config_dir = base(env, "XDG_CONFIG_HOME", l.home, ".config") + "/paddock";
  l.state_dir = base(env, "XDG_STATE_HOME", l.home, ".local/state") + "/paddock";
  l.data_dir = base(env, "XDG_DATA_HOME", l.home, ".local/share") + "/paddock";
  if (const std::string rt = get(env, "XDG_RUNTIME_DIR"); absolute(rt)) {
    l.xdg_runtime_dir = normal(rt);
    l.runtime_dir = l.xdg_runtime_dir + "/paddock";
  }
  const std::string sys = get(env, "PADDOCK_SYSTEM_DIR");
  l.system_dir = sys.empty() ? "/etc/paddock" : sys;
  return l;
}

bool valid_session_id(const std::string& id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
         });
}

}  // namespace paddock::session
