#include "policy_summary.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "engine/builtin_lists.h"
#include "engine/env_policy.h"
#include "engine/layer.h"
#include "engine/provenance.h"
#include "engine/tiers.h"

namespace paddock::gui {
namespace {

std::string join(const std::vector<std::string>& v, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max_shown; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max_shown) out += " and " + std::to_string(v.size() - max_shown) + " more";
  return out;
}

bool under(const std::string& path, const std::string& dir) {
  return !dir.empty() && (path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                                          (dir.back() == '/' || path[dir.size()] == '/')));
}

// The first contribution that added `key`, from the provenance `explain --json` prints.
const nlohmann::json* first_added(const nlohmann::json& provenance, const std::string& key) {
  auto it = provenance.find(key);
  if (it == provenance.end() || !it->is_array()) return nullptr;
  for (const auto& c : *it)
    if (c.value("action", "") != "removed") return &c;
  return nullptr;
}

// The built-in list a deny entry was expanded from: the builder names it in the rule,
// "filesystem.deny_preset[1] (aws) '~/.aws' at 25:22".
std::string list_in_rule(const std::string& rule) {
  static const std::regex kList(R"(deny(?:_write)?_preset\[\d+\] \(([A-Za-z0-9_-]+)\))");
  std::smatch m;
  return std::regex_search(rule, m, kList) ? m[1].str() : std::string();
}

std::string list_of(const nlohmann::json* contribution) {
  return contribution ? list_in_rule(contribution->value("rule", "")) : std::string();
}

// Plain words for a built-in list: its title (resources/lists/<name>.json); a list that does not
// read is shown by name.
std::string list_words(const std::string& list, const std::string& resources_dir) {
  auto l = resources_dir.empty() ? Result<BuiltinList>(bad_input("")) : load_builtin_list(resources_dir, list);
  return l.ok() ? l->title : "the '" + list + "' list";
}

SummaryLine mk(std::string section, std::string label, std::string text, std::vector<std::string> paths = {},
               std::string tier = {}, std::string file = {}, std::string rule = {}, bool warn = false) {
  SummaryLine l;
  l.section = std::move(section);
  l.label = std::move(label);
  l.text = std::move(text);
  l.paths = std::move(paths);
  l.tier = std::move(tier);
  l.file = std::move(file);
  l.rule = std::move(rule);
  l.warn = warn;
  return l;
}

// The Internet line's words for no network and for asking; the project card reads them back.
constexpr const char* kNoNetwork = "none: the agent has no network at all";
constexpr const char* kAsks = "; any other domain waits for your answer";

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

struct Summarizer {
  const Evaluation& e;
  const FrozenIr& ir;
  std::vector<SummaryLine> out;
  std::string resources_dir;  // the built-in lists' titles

  std::string show(const std::string& p) const { return display_path(p, ir.meta.project, ir.meta.home); }

  // The line's "why": the engine's own answer for its first subject (what `explain --why` says).
  void why_of(SummaryLine& l, const std::string& subject) const {
    const WhyAnswer w = why(e, subject);
    l.tier = w.tier;
    l.file = w.file;
    l.rule = w.rule.empty() ? w.reason : w.rule;
  }
  // The "why" of a scalar or of an entry the why() queries do not cover, from provenance.
  void why_key(SummaryLine& l, const std::string& key) const {
    if (const auto* c = first_added(e.provenance, key)) {
      l.tier = c->value("tier", "");
      l.file = c->value("file", "");
      l.rule = c->value("rule", "");
    }
  }

  void add(SummaryLine l) { out.push_back(std::move(l)); }

  void files() {
    // The project first: it is what the user launched the agent for.
    std::vector<std::string> writes = ir.fs.write_roots;
    std::stable_partition(writes.begin(), writes.end(), [&](const std::string& r) { return r == ir.meta.project; });
    for (const auto& root : writes) {
      SummaryLine l = mk("Files", "Can write", show(root), {root});
      if (root == ir.meta.project) l.text = "the project (" + root + ")";
      // The agent's own directory (docs/agents.md): its writes stay in Paddock's agent state.
      if (std::any_of(ir.fs.agent_state.begin(), ir.fs.agent_state.end(), [&](const AgentStateRoot& a) { return a.path == root; }))
        l.text = show(root) + ": its own copy (yours stays read-only below; what it writes is kept by Paddock for its "
                 "next session and reaches yours only through paddock agent-state apply)";
      l.warn = root == ir.meta.home || root == "/";
      why_of(l, root);
      add(std::move(l));
    }
    if (ir.fs.write_roots.empty()) add(mk("Files", "Can write", "nothing"));
    if (!ir.fs.review_roots.empty()) {
      SummaryLine l = mk("Files", "Its changes", "held for review: nothing it writes reaches your files until you "
                                                 "apply it, and what your tools would run is shown apart",
                         ir.fs.review_roots);
      why_key(l, provenance_json_key(prov_key<&IrFs::review_roots>(ir.fs.review_roots.front())));
      add(std::move(l));
    }
    {
      std::vector<std::string> shown;
      for (const auto& r : ir.fs.read_roots) shown.push_back(show(r));
      SummaryLine l = mk("Files", "Can read", shown.empty() ? "nothing beyond what it can write" : join(shown, 8),
                    ir.fs.read_roots);
      l.warn = std::any_of(ir.fs.read_roots.begin(), ir.fs.read_roots.end(),
                           [&](const std::string& r) { return r == ir.meta.home || r == "/"; });
      if (!ir.fs.read_roots.empty()) why_of(l, ir.fs.read_roots.front());
      add(std::move(l));
    }
    for (const auto& a : ir.fs.agent_state)
      for (const auto& setting : a.settings)
        if (!setting.set.empty()) add(mk("Files", "Its own sandbox", setting.why, {setting.file}));
    for (const auto& d : ir.fs.shared_agent_dirs) {
      SummaryLine l = mk("Files", "Writes your agent directory", show(d) + " directly (agent_state: shared): its settings "
                         "are compared after the session, a change it restores before the end is not seen", {d});
      l.warn = true;
      add(std::move(l));
    }
    hidden(ir.fs.deny, "Hidden from the agent", "fs.deny:");
    hidden(ir.fs.deny_write, "Never writable", "fs.deny_write:");
    SummaryLine tmp = mk("Files", "Temporary files", ir.fs.tmp_isolated ? "a private /tmp, emptied when the session ends"
                                                                   : "the machine's shared /tmp");
    tmp.warn = !ir.fs.tmp_isolated;
    why_key(tmp, "fs.tmp_isolated");
    add(std::move(tmp));
  }

  // One line per built-in list the entries came from, one for the project's secret-shaped files,
  // one for everything else.
  void hidden(const std::vector<DenyEntry>& entries, const char* label, const std::string& key_prefix) {
    std::map<std::string, std::vector<std::string>> by_list;  // list -> paths, in IR order
    std::vector<std::string> lists_in_order;
    for (const auto& d : entries) {
      std::string list = list_of(first_added(e.provenance, key_prefix + d.path));
      if (list == "project-secrets" || (list.empty() && under(d.path, ir.meta.project) && key_prefix == "fs.deny:"))
        list = "project-secrets";
      if (!by_list.count(list)) lists_in_order.push_back(list);
      by_list[list].push_back(d.path);
    }
    std::stable_sort(lists_in_order.begin(), lists_in_order.end(), [](const std::string& a, const std::string& b) {
      // Named lists first (in their IR order), the rest last.
      return !a.empty() && b.empty();
    });
    for (const auto& list : lists_in_order) {
      const auto& paths = by_list[list];
      std::vector<std::string> shown;
      for (const auto& p : paths) shown.push_back(show(p));
      SummaryLine l = mk("Files", label, {}, paths);
      if (list == "project-secrets") {
        // Counted are the files that are there; a name masked in advance (absent) is not one.
        std::vector<std::string> present;
        for (const auto& d : entries)
          if (!is_absent(d.kind) && std::find(paths.begin(), paths.end(), d.path) != paths.end()) present.push_back(show(d.path));
        l.text = present.empty() ? "secret-shaped names in the project, masked in advance (none there now)"
                                 : plural(present.size(), "secret-shaped file", "secret-shaped files") + " in the project (" +
                                       join(present, 3) + ")";
      }
      else if (list.empty())
        l.text = join(shown, 4);
      else
        l.text = list_words(list, resources_dir) + " (" + join(shown, 2) + ")";
      why_of(l, paths.front());
      add(std::move(l));
    }
  }

  void network() {
    const auto& g = ir.egress;
    SummaryLine l = mk("Network", "Internet", {});
    why_key(l, "egress.mode");
    std::vector<std::string> domains = g.domains;
    for (const auto& [d, ports] : g.strict_ports) {
      std::string s = d + " (port";
      s += ports.size() == 1 ? " " : "s ";
      for (std::size_t i = 0; i < ports.size(); ++i) s += (i ? ", " : "") + std::to_string(ports[i]);
      s += ")";
      std::replace(domains.begin(), domains.end(), d, s);
    }
    switch (g.mode) {
      case NetMode::kOff:
        l.text = kNoNetwork;
        break;
      case NetMode::kAllowlist:
      case NetMode::kStrict:
        l.text = domains.empty() ? "none: no domain is allowed" : "only " + join(domains, 6);
        break;
      case NetMode::kAsk:
        l.text = (domains.empty() ? std::string("no domain without asking") : "only " + join(domains, 6)) +
                 kAsks + " (denied after " + std::to_string(g.ask_timeout_secs) + " s)";
        break;
    }
    l.paths = g.domains;
    add(std::move(l));
    if (g.mode != NetMode::kOff) {
      SummaryLine rule = mk("Network", "Always refused",
                       "local network, loopback and cloud metadata addresses, whatever the domain resolves to");
      add(std::move(rule));
    }
    if (!g.cidr.empty()) add(mk("Network", "IP ranges", join(g.cidr, 6), g.cidr));
    if (!g.unix_socket_files.empty()) {
      std::vector<std::string> shown;
      for (const auto& s : g.unix_socket_files) shown.push_back(show(s));
      SummaryLine s = mk("Network", "Local sockets", join(shown, 4), g.unix_socket_files);
      s.warn = true;
      why_key(s, "egress.unix_socket_files:" + g.unix_socket_files.front());
      add(std::move(s));
    }
    if (!g.quotas.empty()) {
      std::vector<std::string> q;
      for (const auto& [d, bytes] : g.quotas) q.push_back(d + " " + human_bytes(bytes));
      add(mk("Network", "Traffic quotas", join(q, 4)));
    }
    if (g.git_ssh) add(mk("Network", "git over SSH", "through the same domain rules"));
  }

  void environment(const std::vector<std::string>& launch_names) {
    const auto& env = ir.env;
    SummaryLine passed = mk("Environment", "Passed", env.passed_names.empty() ? "no variable of yours" : join(env.passed_names, 8),
                       env.passed_names);
    if (!env.passed_names.empty()) why_of(passed, env.passed_names.front());
    add(std::move(passed));
    std::vector<std::string> set;
    for (const auto& [k, v] : env.set) set.push_back(k);
    if (!set.empty()) add(mk("Environment", "Set by Paddock", join(set, 6), set));
    std::set<std::string> given(env.passed_names.begin(), env.passed_names.end());
    std::vector<std::string> secrets, others;
    for (const auto& name : launch_names) {
      if (given.count(name) || env.set.count(name)) continue;
      // A secret to the user is a name shaped like one, or one a tier hands to the broker.
      // Everything else not passed (AWS_REGION, DBUS_SESSION_BUS_ADDRESS, what a tier denies or
      // never lists) is counted with the other variables: calling it a secret would teach the
      // user to ignore the line.
      const bool secret = !secret_shaped_match(name).empty() ||
                          std::find(ir.secrets.brokered_env.begin(), ir.secrets.brokered_env.end(), name) !=
                              ir.secrets.brokered_env.end();
      (secret ? secrets : others).push_back(name);
    }
    SummaryLine s = mk("Environment", "Secrets stripped",
                  secrets.empty() ? "none found in your environment"
                                  : std::to_string(secrets.size()) + " (" + join(secrets, 4) + ")",
                  secrets);
    if (!secrets.empty()) {
      why_of(s, secrets.front());
      // Not listed, and it would not pass if it were: the invariant is the reason to give.
      if (const std::string p = secret_shaped_match(secrets.front()); !p.empty()) {
        s.tier = "invariant";
        s.file = "builtin:env-hard-deny";
        s.rule = "hard-deny " + p;
      }
    }
    add(std::move(s));
    if (!others.empty())
      add(mk("Environment", "Not passed", plural(others.size(), "other variable", "other variables") + " of yours", others));
  }

  void limits() {
    const auto& r = ir.resources;
    struct Limit {
      const char* name;
      const char* key;
      const std::optional<std::int64_t>& v;
      std::string (*fmt)(std::int64_t);
    };
    static auto count = [](std::int64_t n) { return std::to_string(n); };
    const Limit all[] = {
        {"CPU time", "resources.cpu_seconds", r.cpu_seconds, &human_seconds},
        {"Memory", "resources.memory_bytes", r.memory_bytes, &human_bytes},
        {"Processes", "resources.processes", r.processes, +count},
        {"Open files", "resources.open_files", r.open_files, +count},
        {"File size", "resources.file_size_bytes", r.file_size_bytes, &human_bytes},
        {"Run time", "resources.wall_time_secs", r.wall_time_secs, &human_seconds},
    };
    std::vector<std::string> unlimited;
    for (const auto& l : all) {
      if (!l.v) {
        unlimited.push_back(l.name);
        continue;
      }
      SummaryLine line = mk("Limits", l.name, l.fmt(*l.v));
      why_key(line, l.key);
      add(std::move(line));
    }
    if (!unlimited.empty()) {
      std::string t;
      for (std::size_t i = 0; i < unlimited.size(); ++i) t += (i ? ", " : "") + unlimited[i];
      add(mk("Limits", "No limit", t));
    }
  }

  // Deny entries that do not exist yet inside a write root: nothing can be mounted over a name
  // that is not there, so the agent could create it and read back what it wrote.
  std::vector<std::string> absent_denies_in_write_roots() const {
    std::vector<std::string> names;
    for (const auto& d : ir.fs.deny) {
      if (!is_absent(d.kind)) continue;
      for (const auto& w : ir.fs.write_roots)
        if (under(d.path, w)) {
          names.push_back(show(d.path));
          break;
        }
    }
    return names;
  }

  void enforcement(const SummaryInputs& in) {
    SummaryLine l = mk("Enforcement", "On this machine", {});
    if (!ir.taint.empty()) {
      add(mk("Enforcement", "Weakened", "an environment switch weakens the boundary: " + join(ir.taint, 3), {}, {}, {}, {},
           true));
    }
    if (!in.plan_error.empty()) {
      l.text = "cannot run as asked here: " + in.plan_error;
      l.warn = true;
    } else if (!in.plan) {
      l.text = "not checked against this machine yet";
    } else {
      // The words name what is concerned; the capability rows and their losses are the detail.
      std::vector<std::string> gaps, detail;
      for (const auto& c : in.plan->capability_vector) {
        if (c.support != Support::kPartial) continue;
        detail.push_back(c.field + ": " + c.loss);
        if (c.field == "fs.deny.absent_inside_write_root") {
          const auto names = absent_denies_in_write_roots();
          gaps.push_back(names.empty() ? "names hidden from the agent that do not exist yet can be created by it"
                                       : join(names, 3) + (names.size() == 1 ? " does" : " do") +
                                             " not exist yet, so nothing hides " + (names.size() == 1 ? "it" : "them") +
                                             ": if the agent creates " + (names.size() == 1 ? "it" : "one") +
                                             ", it can read what it wrote there");
        } else {
          gaps.push_back(c.loss);
        }
      }
      if (gaps.empty()) {
        l.text = "everything above is enforced by this machine's kernel";
      } else {
        l.text = "enforced by this machine's kernel, except: " + gaps.front() +
                 (gaps.size() > 1 ? " (and " + plural(gaps.size() - 1, "more limit", "more limits") + ", see details)" : "");
        for (const auto& d : detail) l.detail += (l.detail.empty() ? "" : "\n") + d;
        l.warn = true;
      }
    }
    add(std::move(l));
  }
};

}  // namespace

std::string display_path(const std::string& path, const std::string& project, const std::string& home) {
  if (under(path, project) && !project.empty()) {
    if (path == project) return "the project";
    return "the project/" + path.substr(project.size() + (project.back() == '/' ? 0 : 1));
  }
  if (under(path, home) && !home.empty() && home != "/") {
    if (path == home) return "~ (your home)";
    return "~/" + path.substr(home.size() + (home.back() == '/' ? 0 : 1));
  }
  return path;
}

std::string human_bytes(std::int64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == static_cast<double>(static_cast<std::int64_t>(v)))
    std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(v), kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string human_seconds(std::int64_t s) {
  if (s % 3600 == 0 && s >= 3600) return std::to_string(s / 3600) + " h";
  if (s % 60 == 0 && s >= 60) return std::to_string(s / 60) + " min";
  if (s >= 3600) return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
  if (s >= 60) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s) + " s";
}

std::string tier_in_words(const std::string& tier, const std::string& file, const std::string& project,
                          const std::string& home) {
  // builtin:profiles/default.yaml -> default
  std::string stem = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".yaml") == 0) stem.resize(stem.size() - 5);
  const std::string shown = display_path(file, project, home);
  if (tier == "system-global") return "the system's policy (" + file + ")";
  if (tier == "user-global") return "your own policy for all projects (" + shown + ")";
  if (tier == "builtin-profile") return "Paddock's " + stem + " profile";
  if (tier == "preset") return "Paddock's " + stem + " preset";
  if (tier == "agent-preset") return "the " + stem + " agent's settings";
  if (tier == "repository") return "this project's policy (" + tier_file_name(tier) + ")";
  if (tier == "repository-fragment") return "this project's policy part " + shown;
  if (tier == "local-override") return "your settings for this checkout (" + tier_file_name(tier) + ")";
  if (tier == "cli-explicit-file") return "the policy file " + shown + " given for this run";
  if (tier == "cli-flags") return "this run's options";
  if (tier == "launch-command") return "the command being launched (its own installation)";
  if (tier == "invariant") return "Paddock itself, whatever the policy says";
  if (tier == "default") return "the default: the agent gets only what a policy lists";
  if (tier.empty()) return "Paddock itself";
  return tier;
}

namespace {

// "Decided by Paddock's default profile, in its list of SSH keys and config." The tier, file and
// rule stay on the line as the detail.
std::string decided_in_words(const SummaryLine& l, const FrozenIr& ir, const std::string& resources_dir) {
  if (l.tier.empty() && l.rule.empty()) return {};
  std::string out = "Decided by " + tier_in_words(l.tier, l.file, ir.meta.project, ir.meta.home);
  if (const std::string list = list_in_rule(l.rule); !list.empty()) {
    out += list == "project-secrets" ? ", which hides secret-shaped files in the project"
                                     : ", in its list of " + list_words(list, resources_dir);
  } else if (l.rule.rfind("hard-deny ", 0) == 0) {
    out += ": a name shaped like a secret is never passed";
  }
  return out + ".";
}

}  // namespace

std::vector<SummaryLine> summarize_policy(const SummaryInputs& in) {
  if (!in.evaluation) return {};
  Summarizer s{*in.evaluation, in.evaluation->ir, {}, in.resources_dir};
  s.files();
  s.network();
  s.environment(in.environment_names);
  s.limits();
  s.enforcement(in);
  for (auto& l : s.out) {
    l.decided = decided_in_words(l, in.evaluation->ir, in.resources_dir);
    // The engineer's words of the why, one click deeper.
    if (l.detail.empty() && (!l.tier.empty() || !l.rule.empty()))
      l.detail = (l.tier.empty() ? std::string("Paddock") : l.tier) + (l.file.empty() ? "" : " (" + l.file + ")") +
                 (l.rule.empty() ? "" : ": " + l.rule);
  }
  return std::move(s.out);
}

std::string card_line(const std::vector<SummaryLine>& lines, const std::string& project) {
  std::size_t writes = 0, hidden = 0;
  bool writes_project = false;
  std::string net;
  for (const auto& l : lines) {
    if (l.section == "Files" && l.label == "Can write" && !l.paths.empty()) {
      ++writes;
      writes_project = writes_project || l.paths.front() == project;
    }
    if (l.section == "Files" && l.label == "Hidden from the agent") ++hidden;
    if (l.section == "Network" && l.label == "Internet") {
      if (l.text == kNoNetwork) net = "no network";
      else net = l.paths.empty() ? "no domains" : plural(l.paths.size(), "domain", "domains");
      if (l.text.find(kAsks) != std::string::npos) net += ", asks for others";
    }
  }
  std::string files = writes == 0       ? "writes nothing"
                      : !writes_project ? "writes " + plural(writes, "folder", "folders")
                      : writes == 1     ? "writes this folder"
                                        : "writes this folder and " + plural(writes - 1, "other", "others");
  std::string out = files;
  if (!net.empty()) out += " · " + net;
  if (hidden > 0) out += " · secrets hidden";
  return out;
}

}  // namespace paddock::gui
