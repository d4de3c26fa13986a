#include "engine/conditions.h"

#include <filesystem>
#include <system_error>

#include "engine/glob.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

std::string read_small(const fs::path& p, std::size_t max, const DirectoryLister* lister) {
  auto text = read_regular(lister, p.string(), max, /*prefix=*/true, /*follow=*/false);
  return text.ok() && *text ? **text : std::string();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Relative path inside the project, no "..", no absolute part, no symlink component.
Result<bool> file_exists_inside(const EvalContext& ctx, const Item& it) {
  const fs::path rel(it.text);
  if (rel.is_absolute())
    return error_at(ErrorCode::kBadInput, it.at.pos(), "must be relative to the project");
  fs::path cur(ctx.project);
  for (const auto& part : rel) {
    if (part == "..")
      return error_at(ErrorCode::kBadInput, it.at.pos(), "'..' is not allowed (the file must be inside the project)");
    if (part == "." || part.empty()) continue;
    cur /= part;
    std::error_code ec;
    const auto st = fs::symlink_status(cur, ec);
    if (ec || st.type() == fs::file_type::not_found || st.type() == fs::file_type::symlink) return false;
  }
  return true;
}

struct ContainsScan {
  const std::string* pattern;
  std::size_t files = 0, bytes = 0;
  bool found = false;
  bool over = false;

  void walk(const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && !found && !over; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (++files > kContainsFileBudget) { over = true; return; }
      bytes += it->path().native().size();
      if (bytes > kContainsByteBudget) { over = true; return; }
      if (match_component(*pattern, name)) { found = true; return; }
      if (name != ".git" && !it->is_symlink(ec) && it->is_directory(ec)) walk(it->path());
    }
  }
};

}  // namespace

std::string current_branch(const std::string& project, const DirectoryLister* lister) {
  fs::path git = fs::path(project) / ".git";
  std::error_code ec;
  const auto st = fs::symlink_status(git, ec);
  if (st.type() == fs::file_type::regular) {  // worktree or submodule: "gitdir: <path>"
    const std::string s = trim(read_small(git, 4096, lister));
    if (s.rfind("gitdir: ", 0) != 0) return "";
    fs::path gd(s.substr(8));
    git = gd.is_absolute() ? gd : fs::path(project) / gd;
  } else if (st.type() != fs::file_type::directory) {
    return "";
  }
  const std::string head = trim(read_small(git / "HEAD", 4096, lister));
  const std::string prefix = "ref: refs/heads/";
  return head.rfind(prefix, 0) == 0 ? head.substr(prefix.size()) : "";
}

Result<ConditionResult> evaluate_when(const Layer::When& w, const EvalContext& ctx) {
  ConditionResult r;
  auto add = [&](bool ok, const std::string& what) {
    r.holds = r.holds && ok;
    r.description += (r.description.empty() ? "" : "; ") + what + (ok ? " (holds)" : " (does not hold)");
  };
  auto host = [&](bool ok, const std::string& what) {
    r.host_facts_hold = r.host_facts_hold && ok;
    add(ok, what);
  };
  r.reads_project = w.branch || w.file_exists || w.project_contains;
  if (w.branch) {
    const std::string b = current_branch(ctx.project, ctx.lister.get());
    add(b == w.branch->text, "branch is " + w.branch->text + ", current " + (b.empty() ? "none" : b));
  }
  if (w.file_exists) {
    auto e = file_exists_inside(ctx, *w.file_exists);
    if (!e.ok()) return e.error();
    add(*e, "file " + w.file_exists->text + " exists");
  }
  if (w.project_contains) {
    const std::string& pat = w.project_contains->text;
    if (pat.find('/') != std::string::npos)
      return error_at(ErrorCode::kBadInput, w.project_contains->at.pos(),
                      "a file name pattern without '/' (e.g. \"*.tf\")");
    ContainsScan scan{&pat};
    scan.walk(ctx.project);
    if (scan.over)
      return error_at(ErrorCode::kRefused, w.project_contains->at.pos(),
                      "scanning the project for '" + pat + "' exceeded its budget of " +
                          std::to_string(kContainsFileBudget) + " files / 8 MiB of names; use file_exists instead");
    add(scan.found, "project contains " + pat);
  }
  if (w.os) host(w.os->text == ctx.os, "os is " + w.os->text);
  if (w.agent_is) host(w.agent_is->text == ctx.agent, "agent is " + w.agent_is->text);
  return r;
}

Layer restrictions_of(const Layer& l) {
  Layer r;
  r.tier = l.tier;
  r.file = l.file;
  r.sha256 = l.sha256;
  r.deny = l.deny;
  r.deny_write = l.deny_write;
  r.deny_preset = l.deny_preset;
  r.deny_write_preset = l.deny_write_preset;
  r.env_deny = l.env_deny;
  r.brokered_env = l.brokered_env;
  r.limits = l.limits;
  r.quotas = l.quotas;
  if (l.net_mode && *l.net_mode == NetMode::kOff) {
    r.net_mode = l.net_mode;
    r.net_mode_at = l.net_mode_at;
  }
  if (l.tmpfs_tmp.value_or(false)) {
    r.tmpfs_tmp = l.tmpfs_tmp;
    r.tmpfs_at = l.tmpfs_at;
  }
  if (l.protect_agent_config.value_or(false)) {
    r.protect_agent_config = l.protect_agent_config;
    r.protect_agent_config_at = l.protect_agent_config_at;
  }
  if (l.loopback_bind && !*l.loopback_bind) {
    r.loopback_bind = l.loopback_bind;
    r.loopback_bind_at = l.loopback_bind_at;
  }
  if (l.immutable.value_or(false)) {
    r.immutable = l.immutable;
    r.immutable_at = l.immutable_at;
  }
  if (l.require_signed.value_or(false)) r.require_signed = l.require_signed;
  return r;
}

}  // namespace paddock
