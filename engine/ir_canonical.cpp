// The IR's canonical bytes written directly (issue 5): `paddock run` serialises the IR three
// times before the helper starts (the schema hash, ir.json and the plan's ir_hash), and building
// an nlohmann tree only to dump it was most of that cost. The bytes are exactly
// canonical_bytes(to_json(ir)) (tests/engine/ir_test compares the two on every golden and on an
// IR with every field set); each object's keys are written here in byte order.
#include "engine/canonical_writer.h"
#include "engine/ir.h"

namespace paddock {
namespace {

void opt_int(CanonicalWriter& w, const std::optional<std::int64_t>& v) {
  if (v) w.value(*v);
  else w.null();
}

void ints(CanonicalWriter& w, const std::vector<int>& v) {
  w.begin_array();
  for (int i : v) w.value(i);
  w.end_array();
}

void deny_list(CanonicalWriter& w, const std::vector<DenyEntry>& v) {
  w.begin_array();
  for (const auto& d : v) w.begin_object().key("kind").value(to_string(d.kind)).key("path").value(d.path).end_object();
  w.end_array();
}

}  // namespace

std::string canonical_bytes(const FrozenIr& ir) {
  CanonicalWriter w;
  w.begin_object();

  const auto& e = ir.egress;
  w.key("egress").begin_object();
  w.key("ask_timeout_secs").value(e.ask_timeout_secs);
  w.key("bind_ports");
  ints(w, e.bind_ports);
  w.key("cidr").value(e.cidr);
  w.key("connect_ports");
  ints(w, e.connect_ports);
  w.key("debug_resolve").value(e.debug_resolve);
  w.key("dns").value(e.dns);
  w.key("domains").value(e.domains);
  w.key("git_ssh").value(e.git_ssh);
  w.key("git_ssh_connect").value(e.git_ssh_connect);
  w.key("loopback_bind").value(e.loopback_bind);
  w.key("mode").value(to_string(e.mode));
  w.key("quotas").begin_object();
  for (const auto& [d, q] : e.quotas) w.key(d).value(q);
  w.end_object();
  w.key("strict_ports").begin_object();
  for (const auto& [d, p] : e.strict_ports) {
    w.key(d);
    ints(w, p);
  }
  w.end_object();
  w.key("tls").value(e.tls);
  w.key("unix_ipc").value(e.unix_ipc);
  w.key("unix_socket_files").value(e.unix_socket_files);
  w.end_object();

  const auto& env = ir.env;
  w.key("env").begin_object();
  w.key("deny").value(env.deny);
  w.key("hard_deny").value(env.hard_deny);
  w.key("mode").value(env.mode);
  w.key("pass_through").value(env.pass_through);
  w.key("passed_names").value(env.passed_names);
  w.key("set").value(env.set);
  w.end_object();

  w.key("extensions").value(ir.extensions);

  const auto& f = ir.fs;
  w.key("fs").begin_object();
  w.key("deny");
  deny_list(w, f.deny);
  w.key("deny_write");
  deny_list(w, f.deny_write);
  w.key("host_mounted_paths").value(f.host_mounted_paths);
  w.key("mount_semantics").value(f.mount_semantics);
  w.key("read_roots").value(f.read_roots);
  w.key("symlink_policy").value(f.symlink_policy);
  w.key("tmp_isolated").value(f.tmp_isolated);
  w.key("write_roots").value(f.write_roots);
  w.end_object();

  const auto& l = ir.lifecycle;
  w.key("lifecycle").begin_object();
  w.key("cleanup").value(l.cleanup).key("crash_handling").value(l.crash_handling);
  w.key("orphan_policy").value(l.orphan_policy);
  w.end_object();

  const auto& m = ir.meta;
  w.key("meta").begin_object();
  w.key("agent").value(m.agent).key("agent_dir").value(m.agent_dir).key("home").value(m.home);
  w.key("ir_version").value(m.ir_version).key("os").value(m.os).key("project").value(m.project);
  w.key("schema_hash").value(m.schema_hash);
  w.key("source_layers").begin_array();
  for (const auto& s : m.source_layers)
    w.begin_object().key("file").value(s.file).key("sha256").value(s.sha256).key("tier").value(s.tier).end_object();
  w.end_array();
  w.end_object();

  const auto& p = ir.process;
  w.key("process").begin_object();
  w.key("detach_policy").value(p.detach_policy).key("exec_scope").value(p.exec_scope);
  w.key("inheritance").value(p.inheritance).key("no_new_privs").value(p.no_new_privs);
  w.key("privilege_drop").value(p.privilege_drop);
  w.end_object();

  const auto& r = ir.resources;
  w.key("resources").begin_object();
  w.key("cpu_seconds");
  opt_int(w, r.cpu_seconds);
  w.key("file_size_bytes");
  opt_int(w, r.file_size_bytes);
  w.key("memory_bytes");
  opt_int(w, r.memory_bytes);
  w.key("merge").value(r.merge);
  w.key("open_files");
  opt_int(w, r.open_files);
  w.key("processes");
  opt_int(w, r.processes);
  w.key("wall_time_secs");
  opt_int(w, r.wall_time_secs);
  w.end_object();

  const auto& s = ir.secrets;
  w.key("secrets").begin_object();
  w.key("brokered_env").value(s.brokered_env).key("default").value(s.default_);
  w.key("inherited_credentials").value(s.inherited_credentials);
  w.end_object();

  w.key("taint").value(ir.taint);
  w.key("warnings").value(ir.warnings);
  w.end_object();
  return w.take();
}

}  // namespace paddock
