// The file-system half of the builder: variables and globs to canonical paths, grants, masks,
// the never-reachable unix sockets and hard links to masked files.
#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "engine/glob.h"
#include "engine/ir_builder.h"

namespace paddock {
namespace fs = std::filesystem;
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

std::string canonical(PathCache& cache, const std::string& p) {
  std::error_code ec;
  auto c = cache.weakly_canonical(p, ec);
  return ec ? p : c.string();
}

PathKind kind_of(PathCache& cache, const std::string& p) {
  std::error_code ec;
  const auto st = cache.symlink_status(p, ec);
  if (ec || st.type() == fs::file_type::not_found) return PathKind::kAbsent;
  return st.type() == fs::file_type::directory ? PathKind::kDir : PathKind::kFile;
}

bool exists(PathCache& cache, const std::string& p) {
  std::error_code ec;
  return fs::exists(cache.status(p, ec));
}

}  // namespace

// Is `path` equal to `root` or below it (component-wise)?
bool path_within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

Status IrBuilder::resolve_paths() {
  std::vector<GlobJob> jobs;
  std::vector<std::size_t> job_owner;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    auto& r = paths_[i];
    const std::string label = r.item.at.where() + ": key '" + r.item.at.key + "'";
    auto abs = expand_vars(r.item.text, ctx_, label);
    if (!abs.ok()) return with_origin(abs.error(), r.item.at.pos());
    if (has_glob(r.item.text)) {
      if (r.use == PathUse::kSocketAllow) return error_at(ErrorCode::kBadInput, r.item.at.pos(), "socket paths are literal (no globs)");
      jobs.push_back(GlobJob{*abs, label, {}});
      job_owner.push_back(i);
    } else {
      r.resolved.push_back(canonical(*ctx_.paths, *abs));
    }
  }
  if (auto s = expand_globs(jobs, ctx_.paths.get()); !s.ok()) {
    // The message starts with the failing job's label; keep that job's origin as data too.
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (s.error().message.rfind(jobs[j].label + ":", 0) == 0)
        return with_origin(s.error(), paths_[job_owner[j]].item.at.pos());
    return s;
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (const auto& m : jobs[j].matches) paths_[job_owner[j]].resolved.push_back(canonical(*ctx_.paths, m));
  return {};
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
      for (const auto& s : kSystemRoots)
        if (path_within(p, s)) return "the system root " + s;
      if (path_within(p, ctx_.home) && !path_within(p, ctx_.project)) {
        const std::string rest = p.substr(ctx_.home.size() + 1);
        if (!rest.empty() && rest[0] == '.') return "a dotfile or configuration directory in the home directory";
      }
      return "";
    };
    std::vector<std::string> candidates = r.resolved;
    if (auto abs = expand_vars(r.item.text, ctx_, ""); abs.ok()) {
      std::string lit = *abs;
      if (auto g = lit.find_first_of("*?["); g != std::string::npos) lit = lit.substr(0, lit.rfind('/', g));
      if (lit.empty()) lit = "/";
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
        case PathUse::kDenyWrite: ir_.fs.deny_write.push_back({p, kind_of(*ctx_.paths, p)}); break;
        case PathUse::kSocketAllow: ir_.egress.unix_socket_files.push_back(p); break;
      }
      prov_.add(key + ":" + p, r.item.at, "added", r.item.text);
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

void IrBuilder::add_sockets() {
  // Sockets that hand out the host (container engines, ssh-agent, D-Bus) are never implied by
  // a file grant: masked wherever a grant would reach them, unless unix_sockets.allow names one.
  std::vector<std::string> sockets = {"/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock",
                                      "/var/run/podman/podman.sock", "/run/containerd/containerd.sock",
                                      "/var/run/containerd/containerd.sock", "/run/dbus/system_bus_socket",
                                      "/var/run/dbus/system_bus_socket", ctx_.home + "/.docker/run/docker.sock"};
  if (const auto rt = ctx_.getenv("XDG_RUNTIME_DIR"); !rt.empty() && rt[0] == '/')
    for (const char* s : {"/bus", "/docker.sock", "/podman/podman.sock", "/gnupg/S.gpg-agent.ssh", "/ssh-agent.socket"})
      sockets.push_back(rt + s);
  if (const auto a = ctx_.getenv("SSH_AUTH_SOCK"); !a.empty() && a[0] == '/') sockets.push_back(a);
  if (auto d = ctx_.getenv("DBUS_SESSION_BUS_ADDRESS"); d.rfind("unix:path=", 0) == 0) {
    d = d.substr(10);
    if (auto comma = d.find(','); comma != std::string::npos) d.resize(comma);
    if (!d.empty() && d[0] == '/') sockets.push_back(d);
  }
  std::set<std::string> allowed(ir_.egress.unix_socket_files.begin(), ir_.egress.unix_socket_files.end());
  for (const auto& s : sockets) {
    const std::string c = canonical(*ctx_.paths, s);
    if (allowed.count(c)) continue;
    bool reachable = false;
    for (const auto* roots : {&ir_.fs.write_roots, &ir_.fs.read_roots})
      for (const auto& r : *roots) reachable = reachable || path_within(c, r);
    if (!reachable) continue;
    ir_.fs.deny.push_back({c, kind_of(*ctx_.paths, c) == PathKind::kAbsent ? PathKind::kAbsent : PathKind::kFile});
    prov_.add_raw(prov_key<&IrFs::deny>(c), Contribution{"invariant", "builtin:never-reachable-sockets", "added",
                                               "unix socket " + s + " is never implied by a file grant"});
  }
}

void IrBuilder::add_paddock_dirs() {
  // Paddock's own files are never implied by a grant (a profile reading ~, a write grant on
  // ~/.config): the signing key, trusted keys and user-tier policy, the approvals, the session
  // records and control sockets. An agent that could read or write them could sign or approve its
  // own policy, widen its next session, answer its own asks or stop other sessions. Masked
  // wherever a grant reaches them; the system tier (root-owned) is kept from writes.
  const std::pair<const std::string*, bool> dirs[] = {
      {&ctx_.config_dir, true}, {&ctx_.state_dir, true}, {&ctx_.runtime_dir, true}, {&ctx_.system_dir, false}};
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

Status IrBuilder::add_hardlinks() {
  // A hard link shares the inode of a masked file: masking one name and granting another would
  // leak it. Only files with more than one link can have such twins, so the scan is rare.
  std::vector<std::pair<std::string, std::string>> linked;  // (path, deny key)
  for (const auto& d : ir_.fs.deny) {
    if (d.kind != PathKind::kFile) continue;
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(d.path, ec)) && fs::hard_link_count(d.path, ec) > 1 && !ec)
      linked.emplace_back(d.path, prov_key<&IrFs::deny>(d.path));
  }
  if (linked.empty()) return {};
  std::vector<std::string> roots = ir_.fs.write_roots;
  for (const auto& r : ir_.fs.read_roots)
    if (path_within(r, ctx_.home)) roots.push_back(r);
  std::size_t visited = 0;
  std::set<std::string> masked;
  for (const auto& d : ir_.fs.deny) masked.insert(d.path);
  std::vector<DenyEntry> extra;
  for (const auto& root : roots) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      if (++visited > kGlobWalkBudget)
        return refused("hard-link scan of the granted roots exceeded " + std::to_string(kGlobWalkBudget) +
                       " entries; narrow the write roots");
      if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
      if (it->hard_link_count(ec) < 2 || masked.count(it->path().string())) continue;
      for (const auto& [m, key] : linked) {
        if (!fs::equivalent(it->path(), m, ec)) continue;
        const std::string p = it->path().string();
        extra.push_back({p, PathKind::kFile});
        masked.insert(p);
        if (auto* c = prov_.find(key))
          for (auto contribution : *c) {
            contribution.rule += " (hard link of " + m + ")";
            prov_.add_raw(prov_key<&IrFs::deny>(p), contribution);
          }
        break;
      }
    }
  }
  for (auto& e : extra) ir_.fs.deny.push_back(std::move(e));
  return {};
}

}  // namespace paddock
