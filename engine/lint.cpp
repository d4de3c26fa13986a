#include "engine/lint.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "engine/glob.h"

namespace paddock {
namespace fs = std::filesystem;
namespace {

std::pair<std::string, std::string> origin_of(const Provenance& prov, const std::string& key) {
  if (auto* c = prov.find(key))
    for (const auto& x : *c)
      if (x.action != "removed") return {x.tier, x.file};
  return {"", ""};
}

bool denied(const FrozenIr& ir, const std::string& p) {
  for (const auto& d : ir.fs.deny)
    if (path_within(p, d.path)) return true;
  return false;
}

}  // namespace

bool is_secret_shaped(const std::string& name) {
  for (const char* pat : {".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.kdbx"})
    if (match_component(pat, name, /*case_insensitive=*/true)) return true;
  return false;
}

bool is_escape_socket(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const char* pat : {"docker.sock", "podman.sock", "containerd.sock", "system_bus_socket", "bus", "S.gpg-agent*",
                          "ssh-agent*", "agent.*", "*.ssh-agent*"})
    if (match_component(pat, name)) return true;
  return path.find("/ssh-") != std::string::npos;
}

std::vector<LintFinding> lint_ir(const FrozenIr& ir, const Provenance& prov, const EvalContext& ctx) {
  std::vector<LintFinding> out;
  auto add = [&](const char* rule, const std::string& msg, const std::string& key) {
    auto [tier, file] = origin_of(prov, key);
    out.push_back({rule, msg, tier, file});
  };
  for (const auto& w : ir.fs.write_roots)
    if (path_within(ctx.home, w))
      add("R1", "write access to " + w + " covers the whole home directory (shell startup files, keys)", prov_key<&IrFs::write_roots>(w));
  for (const auto& r : ir.fs.read_roots)
    if (path_within(ctx.home, r))
      add("R2", "read access to " + r + " covers the whole home directory; grant the folders the agent needs", prov_key<&IrFs::read_roots>(r));
  for (const auto& d : ir.fs.deny) {
    bool inside = false;
    for (const auto* roots : {&ir.fs.write_roots, &ir.fs.read_roots})
      for (const auto& r : *roots) inside = inside || path_within(d.path, r);
    if (inside) continue;
    // Shipped profiles deny defensively (e.g. /root); only user-written denies are linted.
    auto [tier, file] = origin_of(prov, prov_key<&IrFs::deny>(d.path));
    if (tier.empty() || is_builtin(tier) || tier == "invariant") continue;
    add("R3", "deny " + d.path + " is outside every grant, so it changes nothing", prov_key<&IrFs::deny>(d.path));
  }
  // R4: walk the grants that hold user data (project, home), bounded.
  std::size_t visited = 0;
  std::vector<std::string> unmasked;
  std::vector<std::string> roots = ir.fs.write_roots;
  for (const auto& r : ir.fs.read_roots)
    if (path_within(r, ctx.home) || path_within(r, ctx.project)) roots.push_back(r);
  std::sort(roots.begin(), roots.end());
  for (const auto& root : roots) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && visited < kLintScanBudget; it.increment(ec)) {
      ++visited;
      const std::string p = it->path().string();
      if (denied(ir, p)) {
        if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
        continue;
      }
      if (!it->is_symlink(ec) && it->is_regular_file(ec) && is_secret_shaped(it->path().filename().string()))
        unmasked.push_back(p);
    }
  }
  std::sort(unmasked.begin(), unmasked.end());
  unmasked.erase(std::unique(unmasked.begin(), unmasked.end()), unmasked.end());
  for (const auto& p : unmasked)
    out.push_back({"R4", "secret-shaped file " + p + " is readable by the agent; add it to filesystem.deny", "", ""});
  if (visited >= kLintScanBudget)
    out.push_back({"R4", "secret scan stopped after " + std::to_string(kLintScanBudget) + " entries; some grants were not checked", "", ""});
  const auto& r = ir.resources;
  if (!r.cpu_seconds && !r.memory_bytes && !r.processes && !r.open_files && !r.file_size_bytes && !r.wall_time_secs)
    out.push_back({"R5", "no resource limits are set; a runaway agent can exhaust the machine", "", ""});
  for (const auto& s : ir.egress.unix_socket_files)
    if (is_escape_socket(s))
      add("ESC", "unix socket " + s + " is escape-equivalent: whoever reaches it controls the host (containers, "
                 "ssh keys or the desktop session)", prov_key<&IrEgress::unix_socket_files>(s));
  std::stable_sort(out.begin(), out.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.rule, a.message) < std::tie(b.rule, b.message);
  });
  return out;
}

}  // namespace paddock
