#include "engine/context.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "engine/glob.h"
#include "engine/session/layout.h"

namespace paddock {
namespace fs = std::filesystem;

std::string reader_name(const std::map<std::string, std::string>& env) {
  for (const char* var : {"USER", "LOGNAME"})
    if (auto it = env.find(var); it != env.end() && !it->second.empty()) return it->second;
  return "the user running Paddock";
}

std::string unreadable_project_message(const std::string& dir, std::error_code why,
                                       const std::map<std::string, std::string>& env) {
  const std::string user = reader_name(env);
  return "the project folder " + dir + " cannot be read by " + user + " (" + why.message() + "); give " + user +
         " read access to it, or choose a folder it can read";
}

std::error_code directory_read_error(const std::string& dir) {
  std::error_code ec;
  // Listing needs the read bit; reaching anything inside needs the search bit.
  fs::directory_iterator list(dir, ec);
  if (!ec) (void)fs::symlink_status(fs::path(dir) / ".", ec);
  return ec;
}

Result<EvalContext> make_context(const Inputs& in) {
  EvalContext c;
  c.env = &in.environment;
  c.os = in.os;
  c.agent = in.agent;
  auto layout = session::from_env(*c.env);
  if (!layout.ok()) return layout.error();
  const std::string& home = layout->home;
  std::error_code ec;
  c.home = c.paths->weakly_canonical(home, ec).string();
  if (ec) return bad_input("HOME " + home + ": " + ec.message());
  fs::path project = in.project.empty() ? fs::path(".") : fs::path(in.project);
  if (project.is_relative()) {
    // Relative project paths are relative to PWD from the environment, never to getcwd here.
    const std::string pwd = c.getenv("PWD");
    project = (pwd.empty() ? fs::current_path(ec) : fs::path(pwd)) / project;
  }
  const fs::path canon = c.paths->weakly_canonical(project, ec);
  if (ec || !fs::is_directory(c.paths->status(canon, ec)))
    return bad_input("--project " + in.project + ": not a directory");
  // A project its user cannot list or enter is said to be one first: every later step (the
  // repository's layers, the deny globs, the socket scan) would otherwise fail on it in its own
  // words, none of which names the folder's permissions.
  if (const std::error_code rd = directory_read_error(canon.string()))
    return bad_input(unreadable_project_message(canon.string(), rd, *c.env));
  c.project = canon.string();
  c.config_dir = layout->config_dir;
  c.state_dir = layout->state_dir;
  c.data_dir = layout->data_dir;
  c.profile = in.profile;
  c.system_dir = layout->system_dir;
  c.runtime_dir = layout->runtime_dir;
  c.xdg_runtime_dir = layout->xdg_runtime_dir;
  const DirectoryLister* lister = in.lister ? in.lister : &portable_lister();
  if (in.placeholders.empty()) {
    c.lister = std::shared_ptr<const DirectoryLister>(std::shared_ptr<const DirectoryLister>(), lister);
  } else {
    for (const auto& p : in.placeholders) c.paths->treat_as_absent(p);
    c.lister = std::make_shared<HidingLister>(*lister, in.placeholders);
  }
  return c;
}

Result<std::string> expand_vars(const std::string& text, const EvalContext& ctx, const std::string& label,
                                bool pattern) {
  auto value = [&](const std::string& v) { return pattern ? glob_escape(v) : v; };
  struct Var {
    const char* name;
    const std::string* value;
  };
  const Var vars[] = {{"$PROJECT", &ctx.project}, {"$HOME", &ctx.home}, {"$AGENT", &ctx.agent_dir}, {"$TMP", &ctx.tmp}};
  std::string out;
  std::size_t rest = 0;  // where the text written in the layer (after its variable) starts
  if (text == "~" || text.rfind("~/", 0) == 0) {
    out = value(ctx.home) + text.substr(1);
    rest = 1;
  } else if (text[0] == '$') {
    bool found = false;
    for (const auto& v : vars) {
      const std::string n = v.name;
      if (text.compare(0, n.size(), n) == 0 && (text.size() == n.size() || text[n.size()] == '/')) {
        if (v.value->empty())
          return bad_input(label + ": " + n + " is used but no agent is selected (pass --agent NAME)");
        out = value(*v.value) + text.substr(n.size());
        rest = n.size();
        found = true;
        break;
      }
    }
    if (!found) return bad_input(label + ": unknown variable in '" + text + "' (allowed: $PROJECT, $HOME, $AGENT, $TMP, ~/)");
  } else if (text[0] == '/') {
    out = text;
  } else {
    return bad_input(label + ": '" + text + "' is relative (start it with /, ~/, $PROJECT, $HOME, $AGENT or $TMP)");
  }
  // On the layer's own text: a value ($HOME, the project) may hold a '$' of its own.
  if (text.find('$', rest) != std::string::npos)
    return bad_input(label + ": '" + text + "' has a variable in the middle (variables may only start a path)");
  // Lexical normalisation only; symlinks are resolved after glob expansion. Most paths (every
  // built-in list's, hundreds per evaluation) are normal already: checked on the string, since
  // building a std::filesystem::path splits it.
  bool normal = out.size() > 1 && out[0] == '/' && out.back() != '/';
  for (std::size_t i = 1; normal && i < out.size();) {
    const std::size_t end = std::min(out.find('/', i), out.size());
    const std::size_t n = end - i;
    normal = !(n == 0 || (n == 1 && out[i] == '.') || (n == 2 && out[i] == '.' && out[i + 1] == '.'));
    i = end + 1;
  }
  if (normal) return out;
  std::string norm = fs::path(out).lexically_normal().string();
  while (norm.size() > 1 && norm.back() == '/') norm.pop_back();
  return norm;
}

Result<std::string> expand_base(const std::string& text, const EvalContext& ctx, const std::string& label) {
  if (!has_glob(text)) return expand_vars(glob_unescape(text), ctx, label);
  auto pattern = expand_vars(text, ctx, label, /*pattern=*/true);
  if (!pattern.ok()) return pattern;
  return glob_base(*pattern);
}

}  // namespace paddock
