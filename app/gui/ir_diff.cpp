#include "ir_diff.h"

#include <algorithm>
#include <optional>
#include <set>

namespace paddock::gui {
namespace {

class Differ {
 public:
  std::vector<IrChange> out;
  std::set<std::string> covered;  // "section.field" names compared with their own rule

  void list(const std::string& field, const std::vector<std::string>& a, const std::vector<std::string>& b) {
    covered.insert(field);
    const std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    for (const auto& x : sa)
      if (!sb.count(x)) out.push_back({field, x, false});
    for (const auto& x : sb)
      if (!sa.count(x)) out.push_back({field, x, true});
  }
  void scalar(const std::string& field, const std::string& a, const std::string& b) {
    covered.insert(field);
    if (a == b) return;
    out.push_back({field, a, false});
    out.push_back({field, b, true});
  }
  void flag(const std::string& field, bool a, bool b) { scalar(field, a ? "true" : "false", b ? "true" : "false"); }
  void limit(const std::string& field, const std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b) {
    auto text = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("no limit"); };
    scalar(field, text(a), text(b));
  }
};

std::vector<std::string> deny_text(const std::vector<DenyEntry>& v) {
  std::vector<std::string> out;
  for (const auto& d : v) out.push_back(d.path);
  return out;
}

template <class V>
std::vector<std::string> map_text(const std::map<std::string, V>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, std::string>) out.push_back(k + "=" + v);
    else if constexpr (std::is_same_v<V, std::int64_t>) out.push_back(k + ": " + std::to_string(v) + " bytes");
    else {
      std::string ports;
      for (int p : v) ports += (ports.empty() ? "" : ",") + std::to_string(p);
      out.push_back(k + ":" + ports);
    }
  }
  return out;
}

std::vector<std::string> ints(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (int i : v) out.push_back(std::to_string(i));
  return out;
}

}  // namespace

std::vector<IrChange> diff_ir(const FrozenIr& a, const FrozenIr& b) {
  Differ d;
  auto layers = [](const FrozenIr& ir) {
    std::vector<std::string> out;
    for (const auto& l : ir.meta.source_layers) out.push_back(l.tier + " " + l.file + (l.sha256.empty() ? "" : " " + l.sha256));
    return out;
  };
  d.list("meta.source_layers", layers(a), layers(b));
  d.list("fs.write_roots", a.fs.write_roots, b.fs.write_roots);
  d.list("fs.read_roots", a.fs.read_roots, b.fs.read_roots);
  d.list("fs.deny", deny_text(a.fs.deny), deny_text(b.fs.deny));
  d.list("fs.deny_write", deny_text(a.fs.deny_write), deny_text(b.fs.deny_write));
  d.flag("fs.tmp_isolated", a.fs.tmp_isolated, b.fs.tmp_isolated);
  d.list("fs.host_mounted_paths", a.fs.host_mounted_paths, b.fs.host_mounted_paths);
  d.scalar("egress.mode", to_string(a.egress.mode), to_string(b.egress.mode));
  d.list("egress.domains", a.egress.domains, b.egress.domains);
  d.list("egress.strict_ports", map_text(a.egress.strict_ports), map_text(b.egress.strict_ports));
  d.list("egress.cidr", a.egress.cidr, b.egress.cidr);
  d.list("egress.bind_ports", ints(a.egress.bind_ports), ints(b.egress.bind_ports));
  d.list("egress.connect_ports", ints(a.egress.connect_ports), ints(b.egress.connect_ports));
  d.list("egress.unix_socket_files", a.egress.unix_socket_files, b.egress.unix_socket_files);
  d.list("egress.quotas", map_text(a.egress.quotas), map_text(b.egress.quotas));
  d.flag("egress.git_ssh", a.egress.git_ssh, b.egress.git_ssh);
  d.list("secrets.brokered_env", a.secrets.brokered_env, b.secrets.brokered_env);
  d.list("env.pass_through", a.env.pass_through, b.env.pass_through);
  d.list("env.deny", a.env.deny, b.env.deny);
  d.list("env.hard_deny", a.env.hard_deny, b.env.hard_deny);
  d.list("env.passed_names", a.env.passed_names, b.env.passed_names);
  d.list("env.set", map_text(a.env.set), map_text(b.env.set));
  d.limit("resources.cpu_seconds", a.resources.cpu_seconds, b.resources.cpu_seconds);
  d.limit("resources.memory_bytes", a.resources.memory_bytes, b.resources.memory_bytes);
  d.limit("resources.processes", a.resources.processes, b.resources.processes);
  d.limit("resources.open_files", a.resources.open_files, b.resources.open_files);
  d.limit("resources.file_size_bytes", a.resources.file_size_bytes, b.resources.file_size_bytes);
  d.limit("resources.wall_time_secs", a.resources.wall_time_secs, b.resources.wall_time_secs);
  d.scalar("extensions", a.extensions.dump(), b.extensions.dump());
  d.list("taint", a.taint, b.taint);
  // Every other field of the IR, as its JSON, so a field added to the IR later is never missing
  // from the Diff (warnings have their own pane; the hashes are shown beside the Diff).
  const nlohmann::json ja = to_json(a), jb = to_json(b);
  for (const auto& [section, va] : ja.items()) {
    if (section == "warnings" || d.covered.count(section)) continue;
    const nlohmann::json vb = jb.contains(section) ? jb.at(section) : nlohmann::json();
    if (!va.is_object() || !vb.is_object()) {
      d.scalar(section, va.dump(), vb.dump());
      continue;
    }
    for (const auto& [field, fa] : va.items()) {
      const std::string name = section + "." + field;
      if (d.covered.count(name)) continue;
      d.scalar(name, fa.dump(), vb.contains(field) ? vb.at(field).dump() : "null");
    }
  }
  return d.out;
}

}  // namespace paddock::gui
