// The file-system half of the builder: variables and globs to canonical paths, grants, masks,
// the never-reachable unix sockets and hard links to masked files.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <system_error>

#include "engine/glob.h"
#include "engine/ir_builder.h"

namespace paddock {
namespace fs = std::filesystem;
using ir_paths::canonical;
using ir_paths::kind_of;
namespace {

const char* use_key(PathUse u) {
  switch (u) {
    case PathUse::kWrite: return prov_key<&IrFs::write_roots>().c_str();
    case PathUse::kRead: return prov_key<&IrFs::read_roots>().c_str();
    case PathUse::kDeny: return prov_key<&IrFs::deny>().c_str();
    case PathUse::kDenyWrite: return prov_key<&IrFs::deny_write>().c_str();
    case PathUse::kSocketAllow: return prov_key<&IrEgress::unix_socket_files>().c_str();
  }
  return "";
}

bool exists(PathCache& cache, const std::string& p) {
  std::error_code ec;
  return fs::exists(cache.status(p, ec));
}

}  // namespace

namespace ir_paths {

std::string canonical(PathCache& cache, const std::string& p) {
  std::error_code ec;
  auto c = cache.weakly_canonical(p, ec);
  return ec ? p : c.string();
}

// A symlink is what is left where its target cannot be reached (a loop, a target canonical()
// could not resolve): it is then protected as the name it is, never mistaken for a file.
PathKind kind_of(PathCache& cache, const std::string& p) {
  std::error_code ec;
  const auto st = cache.symlink_status(p, ec);
  if (ec || st.type() == fs::file_type::not_found) return PathKind::kAbsent;
  if (st.type() == fs::file_type::symlink) return PathKind::kSymlink;
  return st.type() == fs::file_type::directory ? PathKind::kDir : PathKind::kFile;
}

}  // namespace ir_paths

// Is `path` equal to `root` or below it (component-wise)?
bool path_within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

// The write roots a list entry written for the project applies to as well (every directory
// the session can write holds files the user's tools run and secrets as the project does): each
// write grant of a user's tier or a launch option that is a directory, but not one inside the
// project (its entries cover it), nor the home directory or one above it (the agent's data
// directory is there, with lists of its own: R1 warns about such a grant), nor one in or around
// the agent's data directory.
std::vector<std::string> IrBuilder::other_workspaces() const {
  std::vector<std::string> out;
  for (const auto& r : paths_) {
    // Not Paddock's own grants either (a linked worktree's objects and refs).
    if (r.use != PathUse::kWrite || is_builtin(r.item.at.tier) || r.item.at.tier == "invariant") continue;
    for (const auto& p : r.resolved) {
      std::error_code ec;
      if (path_within(p, ctx_.project) || path_within(ctx_.home, p) ||
          (!ctx_.agent_dir.empty() && (path_within(p, ctx_.agent_dir) || path_within(ctx_.agent_dir, p))) ||
          ctx_.paths->symlink_status(p, ec).type() != fs::file_type::directory)
        continue;
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Status IrBuilder::resolve_paths() {
  std::vector<GlobJob> jobs;
  std::vector<std::size_t> job_owner;
  // A literal path or a glob's expansion, for request i: literal escapes are taken out, and the
  // variables' values put into a pattern are escaped (docs/policy-layers.md, "Paths and globs").
  auto add = [&](std::size_t i, const std::string& text) -> Status {
    auto& r = paths_[i];
    const std::string label = r.item.at.where() + ": key '" + r.item.at.key + "'";
    const bool glob = has_glob(text);
    auto abs = glob ? expand_vars(text, ctx_, label, /*pattern=*/true) : expand_vars(glob_unescape(text), ctx_, label);
    if (!abs.ok()) return with_origin(abs.error(), r.item.at.pos());
    if (glob) {
      if (r.use == PathUse::kSocketAllow) return error_at(ErrorCode::kBadInput, r.item.at.pos(), "socket paths are literal (no globs)");
      jobs.emplace_back(*abs, label, /*fail_closed=*/r.use == PathUse::kDeny || r.use == PathUse::kDenyWrite);
      job_owner.push_back(i);
    } else {
      resolve_one(r, *abs);
    }
    return {};
  };
  // Write grants first: the lists' project entries apply to every write root too.
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (paths_[i].use == PathUse::kWrite)
      if (auto s = add(i, paths_[i].item.text); !s.ok()) return s;
  if (!jobs.empty()) {
    if (auto s = expand_globs(jobs, ctx_.paths.get(), in_.lister); !s.ok()) return s;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (const auto& m : jobs[j].matches) paths_[job_owner[j]].resolved.push_back(canonical(*ctx_.paths, m));
    jobs.clear();
    job_owner.clear();
  }
  const std::vector<std::string> others = other_workspaces();
  workspace_roots_ = others;
  const std::string project_var = "$PROJECT";
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i].use == PathUse::kWrite) continue;
    const std::string text = paths_[i].item.text;
    if (auto s = add(i, text); !s.ok()) return s;
    if (paths_[i].list.empty() || text.rfind(project_var, 0) != 0 ||
        (text.size() > project_var.size() && text[project_var.size()] != '/'))
      continue;
    const std::string rest = text.substr(project_var.size());
    for (const auto& w : others) {
      // The same entry with the write root in the project's place: as a pattern (escaped) or a
      // literal path (the rest's escapes removed by add()).
      if (has_glob(rest)) {
        GlobJob job(glob_escape(w) + rest, paths_[i].item.at.where() + ": key '" + paths_[i].item.at.key + "' in " + w,
                    /*fail_closed=*/true);
        jobs.push_back(std::move(job));
        job_owner.push_back(i);
      } else {
        resolve_one(paths_[i], w + glob_unescape(rest));
      }
    }
  }
  // Repositories in a write root (vendored clones, submodule work trees with a ".git" file,
  // plugin clones in an agent's directory) carry their own git metadata: found by the same walk
  // as the deny globs of the same directory, and so are the sockets under every literal grant.
  const std::size_t deny_jobs = jobs.size();
  std::vector<std::string> roots;
  for (const auto& r : paths_)
    if (r.use == PathUse::kWrite) roots.insert(roots.end(), r.resolved.begin(), r.resolved.end());
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  std::vector<std::string> git_roots;
  for (const auto& w : roots)
    if (git_roots.empty() || !path_within(w, git_roots.back())) git_roots.push_back(w);
  if (std::find(git_roots.begin(), git_roots.end(), ctx_.project) == git_roots.end() &&
      std::none_of(git_roots.begin(), git_roots.end(), [&](const std::string& w) { return path_within(ctx_.project, w); }))
    git_roots.push_back(ctx_.project);
  for (const auto& w : git_roots) jobs.emplace_back(glob_escape(w) + "/**/.git", "builtin:git-metadata");
  const std::size_t socket_jobs = jobs.size();
  add_socket_jobs(jobs);
  if (auto s = expand_globs(jobs, ctx_.paths.get(), ctx_.lister.get()); !s.ok()) {
    // The message starts with the failing job's label; keep that job's origin as data too.
    for (std::size_t j = 0; j < deny_jobs; ++j)
      if (s.error().message.rfind(jobs[j].label + ":", 0) == 0)
        return with_origin(s.error(), paths_[job_owner[j]].item.at.pos());
    return s;
  }
  nested_git_.clear();
  for (std::size_t j = deny_jobs; j < socket_jobs; ++j)
    nested_git_.insert(nested_git_.end(), jobs[j].matches.begin(), jobs[j].matches.end());
  for (std::size_t j = 0; j < deny_jobs; ++j) {
    for (const auto& m : jobs[j].matches) resolve_one(paths_[job_owner[j]], m);
    for (const auto& w : jobs[j].widened) warn(w);
  }
  if (auto s = take_socket_matches(jobs, socket_jobs); !s.ok()) return s;
  return {};
}

// A path as written (or matched) to the path the kernel reaches. A deny or write protection of a
// symlink covers its target, and the link itself where it could be replaced: in a write root an
// agent could point the name your tools open (~/.ssh, .envrc) somewhere else.
void IrBuilder::resolve_one(PathRequest& r, const std::string& lexical) {
  const std::string c = canonical(*ctx_.paths, lexical);
  r.resolved.push_back(c);
  if (c == lexical || (r.use != PathUse::kDeny && r.use != PathUse::kDenyWrite)) return;
  std::error_code ec;
  if (ctx_.paths->symlink_status(lexical, ec).type() == fs::file_type::symlink) r.links.push_back(lexical);
}

Status IrBuilder::check_repository_writes() {
  // Repository-side layers come with the code. A grant that reaches the user's home, its
  // dotfiles (shell startup, configs: persistence outside the sandbox) or a system root is
  // refused outright, approval or not.
  static const std::vector<std::string> kSystemRoots = {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                                        "/libx32", "/boot", "/opt", "/var", "/root", "/sys", "/proc",
                                                        "/dev", "/srv", "/snap", "/run"};
  for (const auto& r : paths_) {
    if (r.use != PathUse::kWrite || !is_repository_side(r.item.at.tier)) continue;
    auto danger = [&](const std::string& p) -> std::string {
      if (p == "/" || path_within(ctx_.home, p)) return "the home directory or one of its parents";
      // Inside the project is the project's own, wherever the project lives: a checkout under
      // /srv, /opt, /var or /root may grant $PROJECT/dist like any other. Decided before the
      // system roots, which would otherwise refuse every path of such a project.
      if (ctx_.project != "/" && path_within(p, ctx_.project)) return "";
      for (const auto& s : kSystemRoots)
        if (path_within(p, s)) return "the system root " + s;
      if (path_within(p, ctx_.home)) {
        const std::string rest = p.substr(ctx_.home.size() + 1);
        if (!rest.empty() && rest[0] == '.') return "a dotfile or configuration directory in the home directory";
      }
      return "";
    };
    std::vector<std::string> candidates = r.resolved;
    if (auto abs = expand_base(r.item.text, ctx_, ""); abs.ok()) {
      const std::string& lit = *abs;
      if (has_glob(r.item.text) && (lit == ctx_.home || lit == "/")) candidates.push_back(lit);
      if (!has_glob(r.item.text)) candidates.push_back(lit);
    }
    for (const auto& p : candidates) {
      const std::string why = danger(p);
      if (!why.empty())
        return error_at(ErrorCode::kPolicyBlocked, r.item.at.pos(),
                        "tier " + r.item.at.tier + " may not grant write to " + p + " (" + why +
                            "); repository layers may only grant paths inside the project");
    }
  }
  return {};
}

void IrBuilder::build_fs() {
  for (const auto& r : paths_) {
    const std::string key = use_key(r.use);
    for (const auto& p : r.resolved) {
      switch (r.use) {
        case PathUse::kWrite:
        case PathUse::kRead:
          if (!exists(*ctx_.paths, p)) {
            // Shipped tiers name optional paths (e.g. ~/.gitconfig); provenance records them.
            if (!is_builtin(r.item.at.tier))
              warn(r.item.at.where() + ": " + r.item.at.key + " '" + r.item.text + "' -> " + p + " does not exist; not granted");
            prov_.add(key + ":" + p, r.item.at, "removed", r.item.text + " (does not exist)");
            continue;
          }
          (r.use == PathUse::kWrite ? ir_.fs.write_roots : ir_.fs.read_roots).push_back(p);
          break;
        case PathUse::kDeny:
          // The shipped profiles deny other users' homes (/root); when that is the user's own
          // home or contains the project (running as root), masking it would hide the very
          // grants the session is for. Only shipped tiers get this exception, and it is reported.
          if (is_builtin(r.item.at.tier) && (path_within(ctx_.home, p) || path_within(ctx_.project, p))) {
            warn(r.item.at.file + ": built-in deny of " + p + " is not applied: it contains the user's home or the project");
            prov_.add(key + ":" + p, r.item.at, "removed", r.item.text + " (contains the home or the project)");
            continue;
          }
          ir_.fs.deny.push_back({p, kind_of(*ctx_.paths, p)});
          break;
        case PathUse::kDenyWrite: {
          PathKind k = kind_of(*ctx_.paths, p);
          if (k == PathKind::kAbsent && !r.item.text.empty() && r.item.text.back() == '/') k = PathKind::kAbsentDir;
          ir_.fs.deny_write.push_back({p, k});
          break;
        }
        case PathUse::kSocketAllow: ir_.egress.unix_socket_files.push_back(p); break;
      }
      prov_.add(key + ":" + p, r.item.at, "added", r.item.text);
    }
    // The symlink a deny or protection named (its target is in `resolved`): kept as it is, so
    // that the name keeps leading where it led.
    for (const auto& l : r.links) {
      ir_.fs.deny_write.push_back({l, PathKind::kSymlink});
      prov_.add(prov_key<&IrFs::deny_write>(l), r.item.at, "added", r.item.text + " (the symlink itself)");
    }
  }
  normalize(ir_);
  // Drop roots already covered: a read root inside a write or read root, a write root inside
  // a write root. The dropped entry's provenance moves to the covering root.
  auto covered = [](const std::string& p, const std::vector<std::string>& roots) -> const std::string* {
    for (const auto& r : roots)
      if (r != p && path_within(p, r)) return &r;
    return nullptr;
  };
  auto prune = [&](std::vector<std::string>& v, const char* key, std::initializer_list<std::pair<const std::vector<std::string>*, const char*>> by) {
    std::vector<std::string> keep;
    for (const auto& p : v) {
      const std::string* cover = nullptr;
      const char* cover_key = nullptr;
      for (const auto& [roots, k] : by)
        if ((cover = covered(p, *roots)) != nullptr) { cover_key = k; break; }
      if (!cover && key == prov_key<&IrFs::read_roots>() &&
          std::find(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(), p) != ir_.fs.write_roots.end()) {
        cover = &p;
        cover_key = prov_key<&IrFs::write_roots>().c_str();
      }
      if (!cover) { keep.push_back(p); continue; }
      if (auto* c = prov_.find(std::string(key) + ":" + p))
        for (auto contribution : *c) {
          contribution.rule += " (covered by " + *cover + ")";
          prov_.add_raw(std::string(cover_key) + ":" + *cover, contribution);
        }
      prov_.entries().erase(std::string(key) + ":" + p);
    }
    v = std::move(keep);
  };
  const char* write_key = prov_key<&IrFs::write_roots>().c_str();
  const char* read_key = prov_key<&IrFs::read_roots>().c_str();
  prune(ir_.fs.write_roots, write_key, {{&ir_.fs.write_roots, write_key}});
  prune(ir_.fs.read_roots, read_key, {{&ir_.fs.write_roots, write_key}, {&ir_.fs.read_roots, read_key}});

  // /tmp: private unless some layer turned it off and none insisted on it.
  ir_.fs.tmp_isolated = tmpfs_true_.has_value() || !tmpfs_false_.has_value();
  if (tmpfs_true_) prov_.add(prov_key<&IrFs::tmp_isolated>(), tmpfs_true_->second, "set", "true");
  else if (tmpfs_false_) prov_.add(prov_key<&IrFs::tmp_isolated>(), tmpfs_false_->second, "set", "false");
  else prov_.add_raw(prov_key<&IrFs::tmp_isolated>(), Contribution{"default", "", "set", "no tier chose: private /tmp"});
}

namespace {

// Trees the socket scan does not enter: the distribution's package and configuration trees
// (root-owned, so only root can create a socket there, and no package or daemon keeps one there;
// /usr alone is some 170,000 entries on a desktop, and walking /etc was most of a launch's engine
// time) and the kernel's pseudo-filesystems, which the sandbox gets its own of (/proc, /dev) or
// which hold no sockets (/sys).
const std::vector<std::string>& unscanned_trees() {
  static const std::vector<std::string> trees = {"/usr",   "/bin",  "/sbin", "/lib", "/lib32", "/lib64",
                                                 "/libx32", "/etc", "/boot", "/proc", "/sys",  "/dev"};
  return trees;
}

// Sorted, without roots inside other roots, without roots inside an unscanned tree.
std::vector<std::string> scan_roots(std::vector<std::string> roots) {
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  std::vector<std::string> out;
  for (const auto& r : roots) {
    bool skip = !out.empty() && path_within(r, out.back());
    for (const auto& t : unscanned_trees()) skip = skip || path_within(r, t);
    if (!skip) out.push_back(r);
  }
  return out;
}

}  // namespace

// Every grant is scanned for unix sockets with a walk bounded like a glob's (over budget: the
// launch is refused): connecting to a named socket is not a file access the kernel lets the
// sandbox withhold (Landlock has no right for it), so a socket the view shows is a socket the
// agent can use. A grant that holds an unscanned tree (a grant of /) is split one level at a time
// around it. A grant that is itself a socket is checked directly.
void IrBuilder::add_socket_jobs(std::vector<GlobJob>& jobs) {
  std::vector<std::string> roots;
  for (const auto& r : paths_)
    if ((r.use == PathUse::kWrite || r.use == PathUse::kRead) && !has_glob(r.item.text))
      roots.insert(roots.end(), r.resolved.begin(), r.resolved.end());
  plan_socket_scan(scan_roots(roots), jobs);
}

void IrBuilder::plan_socket_scan(std::vector<std::string> queue, std::vector<GlobJob>& jobs) {
  while (!queue.empty()) {
    const std::string root = queue.back();
    queue.pop_back();
    socket_scanned_.push_back(root);
    std::error_code ec;
    const auto st = ctx_.paths->symlink_status(root, ec);
    if (st.type() == fs::file_type::socket) sockets_found_.push_back(root);
    if (st.type() != fs::file_type::directory) continue;
    bool holds_unscanned = false;
    for (const auto& t : unscanned_trees()) holds_unscanned = holds_unscanned || (t != root && path_within(t, root));
    if (!holds_unscanned) {
      // Fail closed like a deny: a directory the walk cannot read is masked whole.
      GlobJob job(root == "/" ? "/**" : glob_escape(root) + "/**", "socket scan of the grant " + root, /*fail_closed=*/true);
      job.sockets_only = true;
      jobs.push_back(std::move(job));
      continue;
    }
    for (fs::directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string child = it->path().string();
      bool unscanned = false;
      for (const auto& t : unscanned_trees()) unscanned = unscanned || path_within(child, t);
      if (unscanned) continue;
      if (!it->is_symlink(ec) && it->is_directory(ec)) queue.push_back(child);
      else if (!it->is_symlink(ec) && it->is_socket(ec)) sockets_found_.push_back(child);
    }
  }
}

// The socket jobs' results. A grant too large to walk is refused rather than masked whole (which
// is what a fail-closed job turns into past its budget): the grant would vanish from the view.
Status IrBuilder::take_socket_matches(std::vector<GlobJob>& jobs, std::size_t first) {
  for (std::size_t j = first; j < jobs.size(); ++j) {
    const std::string base = glob_base(jobs[j].pattern);
    if (std::find(jobs[j].matches.begin(), jobs[j].matches.end(), base) != jobs[j].matches.end()) {
      // The walk matches its base whole for two reasons: the base itself cannot be read, or it
      // holds too many entries. Each is said in its own words.
      if (const std::error_code rd = directory_read_error(base))
        return refused(base + " cannot be read by " + reader_name(*ctx_.env) + " (" + rd.message() +
                       "), so Paddock cannot check it for host sockets; make it readable or remove the grant");
      return refused(jobs[j].label + " walks more than " + std::to_string(kGlobWalkBudget) +
                     " entries, too many to prove it holds no host socket; grant narrower directories");
    }
    sockets_found_.insert(sockets_found_.end(), jobs[j].matches.begin(), jobs[j].matches.end());
    for (const auto& w : jobs[j].widened) warn(w);
  }
  return {};
}

// Grants that came from globs are known only once they are resolved: they get a walk of their own.
Status IrBuilder::scan_sockets_under(const std::vector<std::string>& roots) {
  std::vector<std::string> todo;
  for (const auto& r : scan_roots(roots)) {
    bool done = false;
    for (const auto& s : socket_scanned_) done = done || path_within(r, s);
    if (!done) todo.push_back(r);
  }
  if (todo.empty()) return {};
  std::vector<GlobJob> jobs;
  plan_socket_scan(todo, jobs);
  if (auto s = expand_globs(jobs, ctx_.paths.get(), ctx_.lister.get()); !s.ok()) return s;
  return take_socket_matches(jobs, 0);
}

Status IrBuilder::add_sockets() {
  std::vector<std::string> glob_grants;
  for (const auto& r : paths_)
    if ((r.use == PathUse::kWrite || r.use == PathUse::kRead) && has_glob(r.item.text))
      glob_grants.insert(glob_grants.end(), r.resolved.begin(), r.resolved.end());
  if (auto s = scan_sockets_under(glob_grants); !s.ok()) return s;
  // Sockets that hand out the host (container engines, ssh-agent, D-Bus, the user's service
  // manager and desktop) are masked wherever a grant would reach them, also when absent now, so
  // the IR names them; the scan above adds every other socket a grant shows.
  std::vector<std::string> sockets = {"/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock",
                                      "/var/run/podman/podman.sock", "/run/containerd/containerd.sock",
                                      "/var/run/containerd/containerd.sock", "/run/dbus/system_bus_socket",
                                      "/var/run/dbus/system_bus_socket", ctx_.home + "/.docker/run/docker.sock"};
  if (const auto& rt = ctx_.xdg_runtime_dir; !rt.empty())
    for (const char* s : {"/bus", "/docker.sock", "/podman/podman.sock", "/gnupg/S.gpg-agent", "/gnupg/S.gpg-agent.ssh",
                          "/gnupg/S.gpg-agent.extra", "/gnupg/S.gpg-agent.browser", "/ssh-agent.socket",
                          "/systemd/private", "/pulse/native", "/pipewire-0", "/wayland-0"})
      sockets.push_back(rt + s);
  if (const auto a = ctx_.getenv("SSH_AUTH_SOCK"); !a.empty() && a[0] == '/') sockets.push_back(a);
  if (auto d = ctx_.getenv("DBUS_SESSION_BUS_ADDRESS"); d.rfind("unix:path=", 0) == 0) {
    d = d.substr(10);
    if (auto comma = d.find(','); comma != std::string::npos) d.resize(comma);
    if (!d.empty() && d[0] == '/') sockets.push_back(d);
  }
  std::set<std::string> allowed(ir_.egress.unix_socket_files.begin(), ir_.egress.unix_socket_files.end());
  auto mask = [&](const std::string& c, const char* rule, const std::string& why) {
    if (allowed.count(c)) return;
    bool reachable = false;
    for (const auto* roots : {&ir_.fs.write_roots, &ir_.fs.read_roots})
      for (const auto& r : *roots) reachable = reachable || path_within(c, r);
    if (!reachable) return;
    ir_.fs.deny.push_back({c, kind_of(*ctx_.paths, c)});
    prov_.add_raw(prov_key<&IrFs::deny>(c), Contribution{"invariant", rule, "added", why});
  };
  for (const auto& s : sockets)
    mask(canonical(*ctx_.paths, s), "builtin:never-reachable-sockets", "unix socket " + s + " is never implied by a file grant");
  std::sort(sockets_found_.begin(), sockets_found_.end());
  sockets_found_.erase(std::unique(sockets_found_.begin(), sockets_found_.end()), sockets_found_.end());
  for (const auto& s : sockets_found_)
    mask(s, "builtin:sockets-under-grants",
         kind_of(*ctx_.paths, s) == PathKind::kDir
             ? "directory " + s + " under a grant could not be searched for unix sockets, so it is masked whole"
             : "unix socket " + s + " lies under a grant; a socket is connectable wherever the view shows it, so "
               "only unix_sockets.allow makes one reachable");
  return {};
}

void IrBuilder::add_paddock_dirs() {
  // Paddock's own files are never implied by a grant (a profile reading ~, a write grant on
  // ~/.config): the signing key, trusted keys and user-tier policy, the approvals, the session
  // records and control sockets. An agent that could read or write them could sign or approve its
  // own policy, widen its next session, answer its own asks or stop other sessions. Masked
  // wherever a grant reaches them; the system tier (root-owned) is kept from writes.
  // The agents' Paddock-owned state too: one agent's session must not read or plant what
  // another's (or another profile's) keeps there; its own reaches it only through its overlay.
  const std::string agent_states = ctx_.data_dir.empty() ? std::string() : ctx_.data_dir + "/agent-state";
  const std::pair<const std::string*, bool> dirs[] = {{&ctx_.config_dir, true},  {&ctx_.state_dir, true},
                                                      {&ctx_.runtime_dir, true}, {&agent_states, true},
                                                      {&ctx_.system_dir, false}};
  for (const auto& [dir, mask] : dirs) {
    if (dir->empty()) continue;
    const std::string c = canonical(*ctx_.paths, *dir);
    bool readable = false, writable = false;
    for (const auto& r : ir_.fs.write_roots) writable = writable || path_within(c, r);
    for (const auto& r : ir_.fs.read_roots) readable = readable || path_within(c, r);
    if (!(mask ? readable || writable : writable)) continue;
    auto& list = mask ? ir_.fs.deny : ir_.fs.deny_write;
    list.push_back({c, kind_of(*ctx_.paths, c)});
    prov_.add_raw(mask ? prov_key<&IrFs::deny>(c) : prov_key<&IrFs::deny_write>(c),
                  Contribution{"invariant", "builtin:paddock-own-files", "added",
                               "Paddock's own directory " + c + " is never implied by a file grant"});
  }
}

// Every agent's settings files, whichever agent is selected (a layer's grant may make another
// agent's writable too), where the session can write them: inside a write root and under no mask
// or write protection (filesystem.protect_agent_config keeps them read-only, and a protected
// absent file's placeholder is no change). Watched at the path the agent's CLI opens: its
// directory resolved, the name itself not, so that a file the agent replaces with a symlink is
// seen as replaced; a symlink's target the session can write is watched too.
Status IrBuilder::add_watched_configs() {
  auto loaded = builtin("agent-config", "watch", "the watched agent settings");
  if (!loaded.ok()) return loaded.error();
  const BuiltinList* list = *loaded;
  auto under = [](const std::string& p, const std::vector<DenyEntry>& v) {
    return std::any_of(v.begin(), v.end(), [&](const DenyEntry& d) { return path_within(p, d.path); });
  };
  // The agent's own state is an overlay: nothing written there reaches the file the CLI outside
  // Paddock reads.
  auto own_state = [&](const std::string& p) {
    return std::any_of(ir_.fs.agent_state.begin(), ir_.fs.agent_state.end(),
                       [&](const AgentStateRoot& r) { return path_within(p, r.path); });
  };
  auto writable = [&](const std::string& p) {
    return std::any_of(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(),
                       [&](const std::string& w) { return path_within(p, w); }) &&
           !under(p, ir_.fs.deny) && !under(p, ir_.fs.deny_write) && !own_state(p);
  };
  for (const auto& e : list->entries)
    for (const auto& item : e.paths) {
      auto abs = expand_vars(item.text, ctx_, list->file);
      if (!abs.ok()) return abs.error();
      const fs::path lexical = fs::path(*abs).lexically_normal();
      std::string dir = canonical(*ctx_.paths, lexical.parent_path().string());
      if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      const std::string at_name = (dir == "/" ? "" : dir) + "/" + lexical.filename().string();
      std::vector<std::string> paths = {at_name};
      if (std::string target = canonical(*ctx_.paths, at_name); target != at_name) paths.push_back(std::move(target));
      for (const std::string& p : paths) {
        if (!writable(p)) continue;
        ir_.fs.watched_configs.push_back({p, e.format, e.keys});
        prov_.add_raw(prov_key<&IrFs::watched_configs>(p),
                      Contribution{"invariant", list->file, "added",
                                   item.text + " lies where the session can write: " + e.why});
      }
    }
  return {};
}

// Deny beats every allow (docs/policy-layers.md, "Merging"): a grant at or below a denied path
// is no grant at all, and a write grant at or below a write-protected path is a read grant. The
// IR lists only what the sandbox gives, so that explain, the summary, the plan and the helper
// read the same thing: a mask inside a grant is a mount over part of it, but a grant that is
// itself denied has nothing to mount over it, and Landlock would grant what its rule names.
void IrBuilder::apply_deny_precedence() {
  auto covering = [](const std::string& p, const std::vector<DenyEntry>& v) -> const DenyEntry* {
    const DenyEntry* best = nullptr;
    for (const auto& d : v)
      if (path_within(p, d.path) && (!best || d.path.size() < best->path.size())) best = &d;
    return best;
  };
  auto move_provenance = [&](const std::string& from, const std::string& to, const std::string& why) {
    if (auto* c = prov_.find(from)) {
      const auto contributions = *c;
      for (auto contribution : contributions) {
        contribution.rule += " (" + why + ")";
        if (!to.empty()) prov_.add_raw(to, contribution);
        contribution.action = "removed";
        prov_.add_raw(from, contribution);
      }
    }
  };
  const char* write_key = prov_key<&IrFs::write_roots>().c_str();
  const char* read_key = prov_key<&IrFs::read_roots>().c_str();
  std::vector<std::string> writes;
  for (const auto& w : ir_.fs.write_roots) {
    if (const DenyEntry* d = covering(w, ir_.fs.deny)) {
      move_provenance(std::string(write_key) + ":" + w, "", "inside the denied " + d->path + ": deny beats every allow");
      continue;
    }
    if (const DenyEntry* d = covering(w, ir_.fs.deny_write)) {
      move_provenance(std::string(write_key) + ":" + w, std::string(read_key) + ":" + w,
                      "read only: inside the write-protected " + d->path);
      ir_.fs.read_roots.push_back(w);
      continue;
    }
    writes.push_back(w);
  }
  ir_.fs.write_roots = std::move(writes);
  std::vector<std::string> reads;
  for (const auto& r : ir_.fs.read_roots) {
    if (const DenyEntry* d = covering(r, ir_.fs.deny)) {
      move_provenance(std::string(read_key) + ":" + r, "", "inside the denied " + d->path + ": deny beats every allow");
      continue;
    }
    reads.push_back(r);
  }
  ir_.fs.read_roots = std::move(reads);
  std::vector<std::string> sockets;
  for (const auto& s : ir_.egress.unix_socket_files) {
    if (const DenyEntry* d = covering(s, ir_.fs.deny)) {
      move_provenance(prov_key<&IrEgress::unix_socket_files>(s), "", "inside the denied " + d->path + ": deny beats every allow");
      continue;
    }
    sockets.push_back(s);
  }
  ir_.egress.unix_socket_files = std::move(sockets);
  normalize(ir_);
}

Status IrBuilder::add_hardlinks() {
  // A hard link shares the inode of a masked or write-protected file: masking or protecting one
  // name and granting another would leak it, or let the agent rewrite it (a link made in an
  // earlier session, where the file was not yet protected, to a settings file or a file the
  // user's tools run). Only files with more than one link can have such twins: they are looked
  // for among the single-file entries and inside the denied or protected directories of the
  // user's own, then their twins among the files the grants reach (for a protection, the write
  // roots). A directory too big to check in full is not trusted to hold no such file: then every
  // file with several links that the grants reach is masked, or write-protected.
  struct Linked {
    std::string path, key;
  };
  struct Kind {
    std::vector<DenyEntry>* list;
    const char* field;  // "fs.deny" | "fs.deny_write", for warnings
    bool protect;
    std::vector<Linked> linked;
    std::string unchecked;  // a directory past the budget
  };
  Kind kinds[] = {{&ir_.fs.deny, "fs.deny", false, {}, {}}, {&ir_.fs.deny_write, "fs.deny_write", true, {}, {}}};
  auto key_of = [](const Kind& k, const std::string& p) {
    return k.protect ? prov_key<&IrFs::deny_write>(p) : prov_key<&IrFs::deny>(p);
  };
  std::size_t scanned = 0;
  for (auto& k : kinds) {
    for (const auto& d : *k.list) {
      std::error_code ec;
      if (d.kind == PathKind::kFile) {
        if (fs::is_regular_file(fs::symlink_status(d.path, ec)) && fs::hard_link_count(d.path, ec) > 1 && !ec)
          k.linked.push_back({d.path, key_of(k, d.path)});
        continue;
      }
      // Directories outside the home and the write roots (/root, /etc/sudoers.d) hold other
      // users' files: with fs.protected_hardlinks, the kernel's default, nobody who cannot read
      // a file can link it, so only their owner could have made such a link.
      if (d.kind != PathKind::kDir || !k.unchecked.empty()) continue;
      const bool users_own = path_within(d.path, ctx_.home) ||
                             std::any_of(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(),
                                         [&](const std::string& w) { return path_within(d.path, w); });
      if (!users_own) continue;
      for (fs::recursive_directory_iterator it(d.path, ec), end; !ec && it != end; it.increment(ec)) {
        if (++scanned > kHardLinkScanBudget) {
          k.unchecked = d.path;
          break;
        }
        std::error_code e2;
        if (it->is_symlink(e2) || !it->is_regular_file(e2)) continue;
        if (it->hard_link_count(e2) > 1 && !e2) k.linked.push_back({it->path().string(), key_of(k, d.path)});
      }
      if (ec && ec != std::errc::no_such_file_or_directory)
        warn(std::string(k.field) + ": " + d.path + " cannot be read by Paddock (" + ec.message() +
             "); a hard link to a file inside it would not be found");
    }
    if (!k.unchecked.empty())
      warn(std::string(k.field) + ": " + k.unchecked + " holds more than " + std::to_string(kHardLinkScanBudget) +
           " entries to check for hard links; every file with several hard links in the grants is " +
           (k.protect ? "write-protected" : "masked"));
  }
  const bool any = std::any_of(std::begin(kinds), std::end(kinds),
                               [](const Kind& k) { return !k.linked.empty() || !k.unchecked.empty(); });
  if (!any) return {};
  std::vector<std::string> roots = ir_.fs.write_roots;
  for (const auto& r : ir_.fs.read_roots)
    if (path_within(r, ctx_.home)) roots.push_back(r);
  auto writable = [&](const std::string& p) {
    return std::any_of(ir_.fs.write_roots.begin(), ir_.fs.write_roots.end(),
                       [&](const std::string& w) { return path_within(p, w); });
  };
  // A name already masked (or, for a protection, masked or protected) needs nothing more.
  auto covered = [&](const std::string& p, bool protect) {
    for (const auto* list : {&ir_.fs.deny, &ir_.fs.deny_write}) {
      if (list == &ir_.fs.deny_write && !protect) continue;
      for (const auto& d : *list)
        if (d.path == p || (d.kind == PathKind::kDir && path_within(p, d.path))) return true;
    }
    return false;
  };
  std::size_t visited = 0;
  for (const auto& root : roots) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (++visited > kGlobWalkBudget)
        return refused("hard-link scan of the granted roots exceeded " + std::to_string(kGlobWalkBudget) +
                       " entries; narrow the write roots");
      if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
      if (it->hard_link_count(ec) < 2) continue;
      const std::string p = it->path().string();
      for (auto& k : kinds) {
        if ((k.protect && !writable(p)) || covered(p, k.protect)) continue;
        std::string twin_of, key;
        if (!k.unchecked.empty()) {
          twin_of = k.unchecked;
          key = key_of(k, k.unchecked);
        }
        for (const auto& l : k.linked)
          if (fs::equivalent(it->path(), l.path, ec)) {
            twin_of = l.path;
            key = l.key;
            break;
          }
        if (twin_of.empty()) continue;
        k.list->push_back({p, PathKind::kFile});
        if (auto* c = prov_.find(key))
          for (auto contribution : *c) {
            contribution.rule += " (hard link of " + twin_of + ")";
            prov_.add_raw(key_of(k, p), contribution);
          }
        break;  // masked: a protection of the same name adds nothing
      }
    }
  }
  return {};
}

}  // namespace paddock
