#include "engine/lint.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
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

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Files in the project are the agent's: read bounded, and never waited on (a FIFO is skipped).
// The lint's own walks run without the front end's reader, so the portable one checks first.
std::string read_head(const std::string& path, std::size_t max) {
  auto text = read_regular(nullptr, path, max);
  return text.ok() && *text ? **text : std::string();
}

// A service-account key has no fixed file name; its first bytes say what it is (Google's key
// files start with "type": "service_account" and carry a private_key).
bool looks_like_service_account_key(const std::string& head) {
  std::string squeezed;
  for (char c : head)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') squeezed += c;
  return squeezed.find("\"type\":\"service_account\"") != std::string::npos &&
         squeezed.find("\"private_key") != std::string::npos;
}

// Userinfo in a URL that is a credential: a password, or a user part that is a token (forges
// accept a token as the user name). "git@" in ssh:// URLs and plain user names are not.
bool url_has_credentials(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return false;
  const std::string scheme = lower(url.substr(0, scheme_end));
  const auto auth_begin = scheme_end + 3;
  const auto auth_end = url.find_first_of("/?#", auth_begin);
  const std::string authority = url.substr(auth_begin, auth_end == std::string::npos ? std::string::npos : auth_end - auth_begin);
  const auto at = authority.rfind('@');
  if (at == std::string::npos) return false;
  const std::string userinfo = authority.substr(0, at);
  const auto colon = userinfo.find(':');
  if (colon != std::string::npos) return colon + 1 < userinfo.size();  // user:password
  if (scheme != "http" && scheme != "https") return false;
  const std::string u = lower(userinfo);
  for (const char* prefix : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "x-access-token", "oauth2"})
    if (u.rfind(prefix, 0) == 0) return true;
  return userinfo.size() >= 20;  // a user name that long is a token
}

// "https://user:secret@host/x" -> "https://***@host/x" (shown), or "https://host/x" (the fix).
std::string redact(const std::string& url, const std::string& mark = "***@") {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url;
  const auto auth_end = url.find_first_of("/?#", scheme_end + 3);
  const auto at = url.rfind('@', auth_end == std::string::npos ? std::string::npos : auth_end);
  if (at == std::string::npos || at < scheme_end) return url;
  return url.substr(0, scheme_end + 3) + mark + url.substr(at + 1);
}

std::string first_line(const std::string& path) {
  const std::string head = read_head(path, 4096);
  return trim(head.substr(0, head.find('\n')));
}

void lint_git_file(const std::string& path, const std::string& shown, std::vector<LintFinding>& out) {
  auto text = read_regular(nullptr, path, std::size_t{1} << 20);
  if (!text.ok() || !*text) return;
  std::istringstream f(**text);
  std::string line, section, subsection;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t[0] == '[') {
      const auto close = t.find(']');
      std::string head = t.substr(1, close == std::string::npos ? std::string::npos : close - 1);
      const auto quote = head.find('"');
      section = lower(trim(head.substr(0, quote)));
      subsection = quote == std::string::npos ? "" : head.substr(quote + 1, head.rfind('"') - quote - 1);
      if (section == "url" && url_has_credentials(subsection))
        out.push_back({"R6", shown + ":" + std::to_string(n) + ": url \"" + redact(subsection) +
                                 "\" carries credentials in its URL, readable by anyone who can read the project (the "
                                 "agent included); delete that [url] section and keep the token in a credential helper",
                      "", ""});
      continue;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = lower(trim(t.substr(0, eq)));
    std::string value = trim(t.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    const std::string name = section + (subsection.empty() ? "" : "." + subsection) + "." + key;
    if ((key == "url" || key == "pushurl") && url_has_credentials(value))
      out.push_back({"R6", shown + ":" + std::to_string(n) + ": " + name + " carries credentials in its URL (" + redact(value) +
                               "), readable by anyone who can read the project (the agent included); remove them: git "
                               "config " + name + " '" + redact(value, "") + "', and keep the token in a credential helper",
                   "", ""});
    if (section == "http" && key == "extraheader")
      out.push_back({"R6", shown + ":" + std::to_string(n) + ": " + name + " stores an HTTP header (an Authorization token, "
                               "as CI checkouts leave it) in plain text, readable by the agent; remove it: git config "
                               "--unset-all " + name, "", ""});
  }
}

}  // namespace

bool matches_secret_name(const BuiltinList& list, const std::vector<std::string>& rel) {
  static const std::string kPrefix = "$PROJECT/**/";
  for (const auto& e : list.entries)
    for (const auto& p : e.paths) {
      if (p.text.rfind(kPrefix, 0) != 0) continue;
      std::vector<std::string> tail;
      std::stringstream ss(p.text.substr(kPrefix.size()));
      for (std::string c; std::getline(ss, c, '/');) tail.push_back(c);
      if (tail.empty() || tail.size() > rel.size()) continue;
      bool all = true;
      for (std::size_t i = 0; i < tail.size() && all; ++i)
        all = match_component(tail[i], rel[rel.size() - tail.size() + i]);
      if (all) return true;
    }
  return false;
}

bool is_escape_socket(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const char* pat : {"docker.sock", "podman.sock", "containerd.sock", "system_bus_socket", "bus", "S.gpg-agent*",
                          "ssh-agent*", "agent.*", "*.ssh-agent*", "snapd.socket", "libvirt-sock*"})
    if (match_component(pat, name)) return true;
  return path.find("/ssh-") != std::string::npos;
}

std::string escape_directory_reason(const std::string& grant, const EvalContext& ctx) {
  std::vector<std::pair<std::string, const char*>> dirs = {
      {"/run", "the system's runtime directory: the init system's, D-Bus's and container engines' control sockets and "
               "every user's runtime directory"},
      {"/var/run", "the system's runtime directory (/run): the init system's, D-Bus's and container engines' sockets"},
      {"/tmp/.X11-unix", "the X server's sockets: a client controls every window and keystroke of the desktop"},
      {"/tmp/.ICE-unix", "the desktop session manager's sockets"}};
  const std::string& rt = ctx.xdg_runtime_dir;
  if (!rt.empty()) {
    std::error_code ec;
    const auto c = ctx.paths->weakly_canonical(rt, ec);
    dirs.emplace_back(ec ? rt : c.string(), "your runtime directory: the systemd user manager, D-Bus, gpg-agent, "
                                            "PipeWire, PulseAudio and the display server listen there");
  }
  for (const auto& [d, why] : dirs)
    if (path_within(grant, d) || path_within(d, grant)) return std::string(why) + " (" + d + ")";
  return "";
}

std::vector<LintFinding> git_config_credentials(const std::string& project) {
  std::vector<LintFinding> out;
  std::error_code ec;
  const fs::path dot = fs::path(project) / ".git";
  const auto st = fs::symlink_status(dot, ec);
  fs::path gitdir;
  if (st.type() == fs::file_type::directory) {
    gitdir = dot;
  } else if (st.type() == fs::file_type::regular) {
    // A worktree or submodule checkout: ".git" is a file naming the git dir.
    const std::string head = first_line(dot.string());
    if (head.rfind("gitdir:", 0) != 0) return out;
    gitdir = trim(head.substr(7));
    if (gitdir.is_relative()) gitdir = fs::path(project) / gitdir;
  } else {
    return out;
  }
  std::vector<fs::path> files = {gitdir / "config"};
  // A linked worktree shares the main repository's config (commondir).
  if (fs::is_regular_file(gitdir / "commondir", ec)) {
    fs::path common = first_line((gitdir / "commondir").string());
    if (common.is_relative()) common = gitdir / common;
    files.push_back(common / "config");
  }
  for (const auto& f : files) {
    const std::string p = f.lexically_normal().string();
    std::string shown = p;
    if (path_within(p, project)) shown = p.substr(project.size() + 1);
    lint_git_file(p, shown, out);
  }
  return out;
}

std::vector<LintFinding> lint_ir(const FrozenIr& ir, const Provenance& prov, const EvalContext& ctx,
                                 const LintInputs& extra) {
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
    // A deny that took a grant away (deny beats every allow) changed that grant.
    const std::string marker = "inside the denied " + d.path + ":";
    bool took_a_grant = false;
    for (const auto& [key, contributions] : prov.entries())
      for (const auto& c : contributions) took_a_grant = took_a_grant || (c.action == "removed" && c.rule.find(marker) != std::string::npos);
    if (took_a_grant) continue;
    add("R3", "deny " + d.path + " is outside every grant, so it changes nothing", prov_key<&IrFs::deny>(d.path));
  }
  // R4: walk the grants that hold user data (project, home), bounded. Names come from the
  // project-secrets list the profiles mask; a service-account key is recognised by its first
  // bytes (a bounded read of small JSON files), as it has no name of its own.
  constexpr std::size_t kJsonHead = 4096, kJsonMaxSize = 64 * 1024, kJsonBudget = 2000;
  std::size_t visited = 0, json_read = 0;
  std::vector<std::string> unmasked, keys;
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
      if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
      std::vector<std::string> rel;
      for (const auto& c : fs::path(p.substr(root.size())).relative_path()) rel.push_back(c.string());
      if (extra.secret_names && matches_secret_name(*extra.secret_names, rel)) {
        unmasked.push_back(p);
      } else if (it->path().extension() == ".json" && json_read < kJsonBudget && it->file_size(ec) <= kJsonMaxSize && !ec) {
        ++json_read;
        if (looks_like_service_account_key(read_head(p, kJsonHead))) keys.push_back(p);
      }
    }
  }
  std::sort(unmasked.begin(), unmasked.end());
  unmasked.erase(std::unique(unmasked.begin(), unmasked.end()), unmasked.end());
  for (const auto& p : unmasked)
    out.push_back({"R4", "secret-shaped file " + p + " is readable by the agent; add it to filesystem.deny", "", ""});
  std::sort(keys.begin(), keys.end());
  for (const auto& p : keys)
    out.push_back({"R4", "file " + p + " is a cloud service-account key (type service_account, with a private_key) and is "
                         "readable by the agent; move it out of the granted folders or add it to filesystem.deny", "", ""});
  if (visited >= kLintScanBudget)
    out.push_back({"R4", "secret scan stopped after " + std::to_string(kLintScanBudget) + " entries; some grants were not checked", "", ""});
  const auto& r = ir.resources;
  if (!r.cpu_seconds && !r.memory_bytes && !r.processes && !r.open_files && !r.file_size_bytes && !r.wall_time_secs)
    out.push_back({"R5", "no resource limits are set; a runaway agent can exhaust the machine", "", ""});
  for (auto& f : git_config_credentials(ctx.project)) out.push_back(std::move(f));
  for (const auto& u : extra.unprotects) {
    std::string what = u.lifted.empty() ? "lifts nothing in this project" : "lets the agent write";
    for (std::size_t i = 0; i < u.lifted.size(); ++i) what += (i ? ", " : " ") + u.lifted[i];
    out.push_back({"R7", "filesystem.unprotect '" + u.item.text + "' (" + u.item.at.where() + ") " + what +
                             (u.lifted.empty() ? "" : ": files your own tools execute when you next open the project; "
                                                      "review them before you do"),
                   u.item.at.tier, u.item.at.file});
  }
  for (const auto& s : ir.egress.unix_socket_files)
    if (is_escape_socket(s) || !escape_directory_reason(s, ctx).empty())
      add("ESC", "unix socket " + s + " is escape-equivalent: whoever reaches it controls the host (containers, "
                 "ssh keys or the desktop session)", prov_key<&IrEgress::unix_socket_files>(s));
  for (const auto* grants : {&ir.fs.write_roots, &ir.fs.read_roots})
    for (const auto& g : *grants) {
      // A grant of /tmp itself is covered by the private /tmp.
      if (ir.fs.tmp_isolated && g == ctx.tmp) continue;
      const std::string why = escape_directory_reason(g, ctx);
      if (why.empty()) continue;
      const bool write = grants == &ir.fs.write_roots;
      const std::string key = write ? prov_key<&IrFs::write_roots>(g) : prov_key<&IrFs::read_roots>(g);
      add("ESC", std::string(write ? "write" : "read") + " access to " + g + " is escape-equivalent: " +
                     why + "; the sockets present at launch are masked, but one created during the session is "
                     "connectable; grant the files the agent needs instead", key);
    }
  std::stable_sort(out.begin(), out.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.rule, a.message) < std::tie(b.rule, b.message);
  });
  return out;
}

}  // namespace paddock
