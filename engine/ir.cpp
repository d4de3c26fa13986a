#include "engine/ir.h"

#include <sodium.h>

#include <cstdlib>

#include <algorithm>
#include <set>

#include "engine/strict_json_reader.h"

namespace paddock {
namespace {

using nlohmann::json;

template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

void sort_unique_deny(std::vector<DenyEntry>& v) {
  std::sort(v.begin(), v.end(), [](const DenyEntry& a, const DenyEntry& b) { return a.path < b.path; });
  v.erase(std::unique(v.begin(), v.end(),
                      [](const DenyEntry& a, const DenyEntry& b) { return a.path == b.path; }),
          v.end());
}

json opt_int(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

json deny_list(const std::vector<DenyEntry>& v) {
  json out = json::array();
  for (const auto& d : v) out.push_back({{"path", d.path}, {"kind", to_string(d.kind)}});
  return out;
}

// The IR's reader: the shared strict reader plus deny entries.
class Reader : public StrictJsonReader {
 public:
  Reader() : StrictJsonReader("IR field ") {}

  bool denies(const json& j, const std::string& path, std::vector<DenyEntry>& out) {
    if (!j.is_array()) return fail(path, "expected an array");
    out.clear();
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      if (!object(j[i], p, {"path", "kind"})) return false;
      DenyEntry d;
      std::string kind;
      if (!str(j[i]["path"], p + ".path", d.path) || !str(j[i]["kind"], p + ".kind", kind)) return false;
      if (kind == "dir") d.kind = PathKind::kDir;
      else if (kind == "file") d.kind = PathKind::kFile;
      else if (kind == "absent") d.kind = PathKind::kAbsent;
      else if (kind == "absent_dir") d.kind = PathKind::kAbsentDir;
      else return fail(p + ".kind", "expected dir, file, absent or absent_dir");
      out.push_back(std::move(d));
    }
    return true;
  }
};

}  // namespace

const char* to_string(NetMode mode) {
  switch (mode) {
    case NetMode::kOff: return "off";
    case NetMode::kAllowlist: return "allowlist";
    case NetMode::kStrict: return "strict";
    case NetMode::kAsk: return "ask";
  }
  return "off";
}

std::optional<NetMode> net_mode_from_string(const std::string& s) {
  if (s == "off") return NetMode::kOff;
  if (s == "allowlist") return NetMode::kAllowlist;
  if (s == "strict") return NetMode::kStrict;
  if (s == "ask") return NetMode::kAsk;
  return std::nullopt;
}

const char* to_string(PathKind kind) {
  switch (kind) {
    case PathKind::kDir: return "dir";
    case PathKind::kFile: return "file";
    case PathKind::kAbsent: return "absent";
    case PathKind::kAbsentDir: return "absent_dir";
  }
  return "absent";
}

void normalize(FrozenIr& ir) {
  sort_unique(ir.fs.write_roots);
  sort_unique(ir.fs.read_roots);
  sort_unique_deny(ir.fs.deny);
  sort_unique_deny(ir.fs.deny_write);
  sort_unique(ir.fs.host_mounted_paths);
  sort_unique(ir.egress.domains);
  for (auto& [domain, ports] : ir.egress.strict_ports) sort_unique(ports);
  sort_unique(ir.egress.cidr);
  sort_unique(ir.egress.bind_ports);
  sort_unique(ir.egress.connect_ports);
  sort_unique(ir.egress.unix_socket_files);
  for (auto& [name, ips] : ir.egress.debug_resolve) sort_unique(ips);
  sort_unique(ir.secrets.brokered_env);
  sort_unique(ir.env.pass_through);
  sort_unique(ir.env.deny);
  sort_unique(ir.env.hard_deny);
  sort_unique(ir.env.passed_names);
  sort_unique(ir.warnings);
  sort_unique(ir.taint);
}

json to_json(const FrozenIr& ir) {
  json layers = json::array();
  for (const auto& l : ir.meta.source_layers)
    layers.push_back({{"tier", l.tier}, {"file", l.file}, {"sha256", l.sha256}});
  json strict_ports = json::object();
  for (const auto& [d, p] : ir.egress.strict_ports) strict_ports[d] = p;
  json quotas = json::object();
  for (const auto& [d, q] : ir.egress.quotas) quotas[d] = q;
  json debug_resolve = json::object();
  for (const auto& [d, ips] : ir.egress.debug_resolve) debug_resolve[d] = ips;
  json env_set = json::object();
  for (const auto& [k, v] : ir.env.set) env_set[k] = v;

  return json{
      {"meta", {{"ir_version", ir.meta.ir_version}, {"schema_hash", ir.meta.schema_hash},
                {"source_layers", layers}, {"project", ir.meta.project}, {"home", ir.meta.home},
                {"agent", ir.meta.agent}, {"agent_dir", ir.meta.agent_dir}, {"os", ir.meta.os}}},
      {"fs", {{"write_roots", ir.fs.write_roots}, {"read_roots", ir.fs.read_roots},
              {"deny", deny_list(ir.fs.deny)}, {"deny_write", deny_list(ir.fs.deny_write)},
              {"tmp_isolated", ir.fs.tmp_isolated}, {"symlink_policy", ir.fs.symlink_policy},
              {"mount_semantics", ir.fs.mount_semantics},
              {"host_mounted_paths", ir.fs.host_mounted_paths}}},
      {"egress", {{"mode", to_string(ir.egress.mode)}, {"domains", ir.egress.domains},
                  {"strict_ports", strict_ports}, {"dns", ir.egress.dns}, {"tls", ir.egress.tls},
                  {"cidr", ir.egress.cidr}, {"bind_ports", ir.egress.bind_ports},
                  {"connect_ports", ir.egress.connect_ports}, {"unix_ipc", ir.egress.unix_ipc},
                  {"unix_socket_files", ir.egress.unix_socket_files}, {"quotas", quotas},
                  {"git_ssh", ir.egress.git_ssh}, {"ask_timeout_secs", ir.egress.ask_timeout_secs},
                  {"git_ssh_connect", ir.egress.git_ssh_connect}, {"debug_resolve", debug_resolve},
                  {"loopback_bind", ir.egress.loopback_bind}}},
      {"process", {{"exec_scope", ir.process.exec_scope}, {"inheritance", ir.process.inheritance},
                   {"detach_policy", ir.process.detach_policy},
                   {"privilege_drop", ir.process.privilege_drop},
                   {"no_new_privs", ir.process.no_new_privs}}},
      {"secrets", {{"default", ir.secrets.default_}, {"brokered_env", ir.secrets.brokered_env},
                   {"inherited_credentials", ir.secrets.inherited_credentials}}},
      {"env", {{"mode", ir.env.mode}, {"pass_through", ir.env.pass_through}, {"deny", ir.env.deny},
               {"hard_deny", ir.env.hard_deny}, {"passed_names", ir.env.passed_names},
               {"set", env_set}}},
      {"resources", {{"cpu_seconds", opt_int(ir.resources.cpu_seconds)},
                     {"memory_bytes", opt_int(ir.resources.memory_bytes)},
                     {"processes", opt_int(ir.resources.processes)},
                     {"open_files", opt_int(ir.resources.open_files)},
                     {"file_size_bytes", opt_int(ir.resources.file_size_bytes)},
                     {"wall_time_secs", opt_int(ir.resources.wall_time_secs)},
                     {"merge", ir.resources.merge}}},
      {"lifecycle", {{"cleanup", ir.lifecycle.cleanup}, {"orphan_policy", ir.lifecycle.orphan_policy},
                     {"crash_handling", ir.lifecycle.crash_handling}}},
      {"extensions", ir.extensions},
      {"warnings", ir.warnings},
      {"taint", ir.taint},
  };
}

Result<FrozenIr> ir_from_json(const json& j) {
  Reader r;
  FrozenIr ir;
  auto ok = [&]() -> bool {
    if (!r.object(j, "ir", {"meta", "fs", "egress", "process", "secrets", "env", "resources",
                            "lifecycle", "extensions", "warnings", "taint"}))
      return false;
    const json& m = j["meta"];
    if (!r.object(m, "meta", {"ir_version", "schema_hash", "source_layers", "project", "home", "agent",
                              "agent_dir", "os"}) ||
        !r.str(m["ir_version"], "meta.ir_version", ir.meta.ir_version) ||
        !r.str(m["schema_hash"], "meta.schema_hash", ir.meta.schema_hash) ||
        !r.str(m["project"], "meta.project", ir.meta.project) ||
        !r.str(m["home"], "meta.home", ir.meta.home) ||
        !r.str(m["agent"], "meta.agent", ir.meta.agent) ||
        !r.str(m["agent_dir"], "meta.agent_dir", ir.meta.agent_dir) ||
        !r.str(m["os"], "meta.os", ir.meta.os))
      return false;
    if (ir.meta.ir_version != kIrVersion)
      return r.fail("meta.ir_version", "unsupported version " + ir.meta.ir_version);
    if (!m["source_layers"].is_array()) return r.fail("meta.source_layers", "expected an array");
    for (std::size_t i = 0; i < m["source_layers"].size(); ++i) {
      const json& l = m["source_layers"][i];
      const std::string p = "meta.source_layers[" + std::to_string(i) + "]";
      SourceLayer s;
      if (!r.object(l, p, {"tier", "file", "sha256"}) || !r.str(l["tier"], p + ".tier", s.tier) ||
          !r.str(l["file"], p + ".file", s.file) || !r.str(l["sha256"], p + ".sha256", s.sha256))
        return false;
      ir.meta.source_layers.push_back(std::move(s));
    }

    const json& f = j["fs"];
    if (!r.object(f, "fs", {"write_roots", "read_roots", "deny", "deny_write", "tmp_isolated",
                            "symlink_policy", "mount_semantics", "host_mounted_paths"}) ||
        !r.strings(f["write_roots"], "fs.write_roots", ir.fs.write_roots) ||
        !r.strings(f["read_roots"], "fs.read_roots", ir.fs.read_roots) ||
        !r.denies(f["deny"], "fs.deny", ir.fs.deny) ||
        !r.denies(f["deny_write"], "fs.deny_write", ir.fs.deny_write) ||
        !r.boolean(f["tmp_isolated"], "fs.tmp_isolated", ir.fs.tmp_isolated) ||
        !r.str(f["symlink_policy"], "fs.symlink_policy", ir.fs.symlink_policy) ||
        !r.str(f["mount_semantics"], "fs.mount_semantics", ir.fs.mount_semantics) ||
        !r.strings(f["host_mounted_paths"], "fs.host_mounted_paths", ir.fs.host_mounted_paths))
      return false;

    const json& e = j["egress"];
    std::string mode;
    if (!r.object(e, "egress", {"mode", "domains", "strict_ports", "dns", "tls", "cidr", "bind_ports",
                                "connect_ports", "unix_ipc", "unix_socket_files", "quotas", "git_ssh",
                                "ask_timeout_secs", "git_ssh_connect", "debug_resolve", "loopback_bind"}) ||
        !r.str(e["mode"], "egress.mode", mode) ||
        !r.strings(e["domains"], "egress.domains", ir.egress.domains) ||
        !r.str(e["dns"], "egress.dns", ir.egress.dns) || !r.str(e["tls"], "egress.tls", ir.egress.tls) ||
        !r.strings(e["cidr"], "egress.cidr", ir.egress.cidr) ||
        !r.ints(e["bind_ports"], "egress.bind_ports", ir.egress.bind_ports) ||
        !r.ints(e["connect_ports"], "egress.connect_ports", ir.egress.connect_ports) ||
        !r.str(e["unix_ipc"], "egress.unix_ipc", ir.egress.unix_ipc) ||
        !r.strings(e["unix_socket_files"], "egress.unix_socket_files", ir.egress.unix_socket_files) ||
        !r.boolean(e["git_ssh"], "egress.git_ssh", ir.egress.git_ssh) ||
        !r.boolean(e["loopback_bind"], "egress.loopback_bind", ir.egress.loopback_bind) ||
        !r.int32(e["ask_timeout_secs"], "egress.ask_timeout_secs", ir.egress.ask_timeout_secs) ||
        !r.str(e["git_ssh_connect"], "egress.git_ssh_connect", ir.egress.git_ssh_connect))
      return false;
    auto parsed_mode = net_mode_from_string(mode);
    if (!parsed_mode) return r.fail("egress.mode", "expected off, allowlist, strict or ask");
    ir.egress.mode = *parsed_mode;
    if (!e["strict_ports"].is_object()) return r.fail("egress.strict_ports", "expected an object");
    for (auto it = e["strict_ports"].begin(); it != e["strict_ports"].end(); ++it)
      if (!r.ints(it.value(), "egress.strict_ports." + it.key(), ir.egress.strict_ports[it.key()])) return false;
    if (!e["quotas"].is_object()) return r.fail("egress.quotas", "expected an object");
    for (auto it = e["quotas"].begin(); it != e["quotas"].end(); ++it)
      if (!r.integer(it.value(), "egress.quotas." + it.key(), ir.egress.quotas[it.key()])) return false;
    if (!e["debug_resolve"].is_object()) return r.fail("egress.debug_resolve", "expected an object");
    for (auto it = e["debug_resolve"].begin(); it != e["debug_resolve"].end(); ++it)
      if (!r.strings(it.value(), "egress.debug_resolve." + it.key(), ir.egress.debug_resolve[it.key()])) return false;

    const json& p = j["process"];
    if (!r.object(p, "process", {"exec_scope", "inheritance", "detach_policy", "privilege_drop",
                                 "no_new_privs"}) ||
        !r.str(p["exec_scope"], "process.exec_scope", ir.process.exec_scope) ||
        !r.str(p["inheritance"], "process.inheritance", ir.process.inheritance) ||
        !r.str(p["detach_policy"], "process.detach_policy", ir.process.detach_policy) ||
        !r.boolean(p["privilege_drop"], "process.privilege_drop", ir.process.privilege_drop) ||
        !r.boolean(p["no_new_privs"], "process.no_new_privs", ir.process.no_new_privs))
      return false;

    const json& s = j["secrets"];
    if (!r.object(s, "secrets", {"default", "brokered_env", "inherited_credentials"}) ||
        !r.str(s["default"], "secrets.default", ir.secrets.default_) ||
        !r.strings(s["brokered_env"], "secrets.brokered_env", ir.secrets.brokered_env) ||
        !r.str(s["inherited_credentials"], "secrets.inherited_credentials", ir.secrets.inherited_credentials))
      return false;

    const json& v = j["env"];
    if (!r.object(v, "env", {"mode", "pass_through", "deny", "hard_deny", "passed_names", "set"}) ||
        !r.str(v["mode"], "env.mode", ir.env.mode) ||
        !r.strings(v["pass_through"], "env.pass_through", ir.env.pass_through) ||
        !r.strings(v["deny"], "env.deny", ir.env.deny) ||
        !r.strings(v["hard_deny"], "env.hard_deny", ir.env.hard_deny) ||
        !r.strings(v["passed_names"], "env.passed_names", ir.env.passed_names))
      return false;
    if (ir.env.mode != "allowlist") return r.fail("env.mode", "only allowlist exists");
    if (!v["set"].is_object()) return r.fail("env.set", "expected an object");
    for (auto it = v["set"].begin(); it != v["set"].end(); ++it)
      if (!r.str(it.value(), "env.set." + it.key(), ir.env.set[it.key()])) return false;

    const json& res = j["resources"];
    if (!r.object(res, "resources", {"cpu_seconds", "memory_bytes", "processes", "open_files",
                                     "file_size_bytes", "wall_time_secs", "merge"}) ||
        !r.opt_integer(res["cpu_seconds"], "resources.cpu_seconds", ir.resources.cpu_seconds) ||
        !r.opt_integer(res["memory_bytes"], "resources.memory_bytes", ir.resources.memory_bytes) ||
        !r.opt_integer(res["processes"], "resources.processes", ir.resources.processes) ||
        !r.opt_integer(res["open_files"], "resources.open_files", ir.resources.open_files) ||
        !r.opt_integer(res["file_size_bytes"], "resources.file_size_bytes", ir.resources.file_size_bytes) ||
        !r.opt_integer(res["wall_time_secs"], "resources.wall_time_secs", ir.resources.wall_time_secs) ||
        !r.str(res["merge"], "resources.merge", ir.resources.merge))
      return false;

    const json& lc = j["lifecycle"];
    if (!r.object(lc, "lifecycle", {"cleanup", "orphan_policy", "crash_handling"}) ||
        !r.str(lc["cleanup"], "lifecycle.cleanup", ir.lifecycle.cleanup) ||
        !r.str(lc["orphan_policy"], "lifecycle.orphan_policy", ir.lifecycle.orphan_policy) ||
        !r.str(lc["crash_handling"], "lifecycle.crash_handling", ir.lifecycle.crash_handling))
      return false;

    const json& ext = j["extensions"];
    if (!ext.is_object()) return r.fail("extensions", "expected an object");
    for (auto it = ext.begin(); it != ext.end(); ++it)
      if (it.key() != "linux" && it.key() != "macos" && it.key() != "windows")
        return r.fail("extensions." + it.key(), "unknown extension (only linux, macos, windows)");
    ir.extensions = ext;

    return r.strings(j["warnings"], "warnings", ir.warnings) && r.strings(j["taint"], "taint", ir.taint);
  }();
  if (!ok) return bad_input(r.error());
  return ir;
}

std::string canonical_bytes(const json& j) {
  // nlohmann::json objects are std::map-backed, so dump() emits keys sorted by byte value;
  // with no indent there is no insignificant whitespace. Strings are emitted as UTF-8 and
  // control characters (including LF) are escaped, so the bytes never contain a raw LF.
  return j.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::strict);
}

std::string sha256_hex(const std::string& bytes) {
  // libsodium asks for sodium_init() before any call (once per process; it is idempotent).
  static const bool sodium_ready = sodium_init() >= 0;
  if (!sodium_ready) std::abort();
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = "sha256:";
  for (unsigned char c : out) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 0xf]);
  }
  return hex;
}

std::string ir_hash(const FrozenIr& ir) { return sha256_hex(canonical_bytes(ir)); }

}  // namespace paddock
