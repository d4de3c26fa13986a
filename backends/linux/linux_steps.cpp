// The Linux plan as bytes: one writer for the plan's steps, whose canonical bytes go into
// plan_hash. `paddock plan` parses them into the plan JSON; paddock-helper hashes them as they
// are, without building a json tree (the tree for the 140-rule seccomp step and its
// copies were most of the helper's start-up CPU). One writer for both means the two can never
// disagree about the plan's shape.
#include <string>

#include "backends/linux/linux_plan.h"
#include "engine/canonical_writer.h"

namespace paddock::linux_backend {
namespace {

void opt(CanonicalWriter& w, const std::optional<std::int64_t>& v) {
  if (v) w.value(*v);
  else w.null();
}

// A list of enumerators as their names (each enum's to_string is its one table).
template <typename Enum>
void names(CanonicalWriter& w, const std::vector<Enum>& list) {
  w.begin_array();
  for (const Enum e : list) w.value(to_string(e));
  w.end_array();
}

// Each object's keys below are written in byte order (the canonical order).

// Every sandbox gets all of them (linux_plan.h): the plan states it.
void namespaces(CanonicalWriter& w) {
  w.begin_object();
  w.key("ipc").value(true).key("mount").value(true).key("net").value(true);
  w.key("pid").value(true).key("user").value(true).key("uts").value(true);
  w.end_object();
}

void mount(CanonicalWriter& w, const MountStep& m) {
  w.begin_object().key("op").value(to_string(m.op)).key("pin").value(m.pin).key("source").value(m.source);
  w.key("target").value(m.target).key("within").value(m.within).end_object();
}

void tmpfs(CanonicalWriter& w, const TmpfsSize& t) {
  w.begin_object().key("bytes").value(t.bytes).key("inodes").value(t.inodes).end_object();
}

void mounts(CanonicalWriter& w, const std::vector<MountStep>& list) {
  w.begin_array();
  for (const auto& m : list) mount(w, m);
  w.end_array();
}

void cgroup(CanonicalWriter& w, const CgroupPlan& c) {
  w.begin_object().key("mechanism").value(to_string(c.mechanism)).key("memory_max");
  opt(w, c.memory_max);
  w.key("pids_max");
  opt(w, c.pids_max);
  w.end_object();
}

void rlimits(CanonicalWriter& w, const std::vector<Rlimit>& list) {
  w.begin_array();
  for (const auto& r : list)
    w.begin_object().key("resource").value(to_string(r.resource)).key("value").value(r.value).end_object();
  w.end_array();
}

void landlock(CanonicalWriter& w, const LandlockPlan& l) {
  w.begin_object();
  w.key("abi").value(l.abi).key("handled_fs");
  names(w, l.handled_fs);
  w.key("handled_net");
  names(w, l.handled_net);
  w.key("net_rules").begin_array();
  for (const auto& r : l.net_rules) {
    w.begin_object().key("access");
    names(w, r.access);
    w.key("port").value(r.port).end_object();
  }
  w.end_array();
  w.key("path_rules").begin_array();
  for (const auto& r : l.path_rules) {
    w.begin_object().key("access");
    names(w, r.access);
    w.key("path").value(r.path).end_object();
  }
  w.end_array();
  w.key("scoped");
  names(w, l.scoped);
  w.end_object();
}

void seccomp(CanonicalWriter& w, const LinuxPlan& p) {
  w.begin_object().key("default").value("allow").key("rules").begin_array();
  for (const auto& s : p.seccomp) {
    w.begin_object().key("arg_index").value(s.arg_index).key("arg_mask").value(s.arg_mask);
    w.key("arg_op").value(to_string(s.arg_op)).key("arg_value").value(s.arg_value).key("errno").value(s.errno_value);
    w.key("syscall").value(s.syscall).end_object();
  }
  w.end_array().key("socket_families_allowed");
  names(w, p.socket_families_allowed);
  w.end_object();
}

void env(CanonicalWriter& w, const EnvPlan& e) {
  w.begin_object().key("pass").value(e.pass).key("set").value(e.set).end_object();
}

void proxy(CanonicalWriter& w, const ProxyPlan& p) {
  w.begin_object().key("debug_resolve").value(p.debug_resolve).key("enabled").value(p.enabled);
  w.key("git_ssh_connect").value(p.git_ssh_connect).key("mode").value(to_string(p.mode));
  w.key("port_in_sandbox").value(p.port_in_sandbox).end_object();
}

void credentials(CanonicalWriter& w, const std::vector<CredentialPlan>& list) {
  w.begin_array();
  for (const auto& c : list) {
    w.begin_object().key("basic_user").value(c.basic_user).key("connect_to").value(c.connect_to);
    w.key("env").value(c.env).key("header").value(c.header).key("max_bytes");
    opt(w, c.max_bytes);
    w.key("max_request_bytes").value(c.max_request_bytes).key("max_requests");
    opt(w, c.max_requests);
    w.key("max_response_bytes").value(c.max_response_bytes).key("name").value(c.name);
    w.key("port_in_sandbox").value(c.port_in_sandbox).key("scheme").value(to_string(c.scheme));
    w.key("upstream").value(c.upstream).key("upstream_port").value(c.upstream_port).end_object();
  }
  w.end_array();
}

void ports(CanonicalWriter& w, const std::vector<int>& list) {
  w.begin_array();
  for (int port : list) w.value(port);
  w.end_array();
}

void limits(CanonicalWriter& w, const std::vector<LimitEntry>& list) {
  w.begin_array();
  for (const auto& l : list)
    w.begin_object()
        .key("limit")
        .value(to_string(l.limit))
        .key("mechanism")
        .value(to_string(l.mechanism))
        .key("value")
        .value(l.value)
        .end_object();
  w.end_array();
}

// One {"step": name, "value": ...} element; fill writes the value.
template <typename Fill>
void step(CanonicalWriter& w, const char* name, Fill&& fill) {
  w.begin_object().key("step").value(name).key("value");
  fill();
  w.end_object();
}

}  // namespace

std::string canonical_steps(const LinuxPlan& p, const std::vector<LimitEntry>& limit_entries) {
  CanonicalWriter w;
  w.begin_array();
  step(w, "namespaces", [&] { namespaces(w); });
  step(w, "hostname", [&] { w.value(p.hostname); });
  step(w, "tmpfs_size", [&] { tmpfs(w, p.tmpfs); });
  step(w, "idmap_read_roots", [&] { w.value(p.idmap_read_roots); });
  for (const auto& m : p.mounts) step(w, "mount", [&] { mount(w, m); });
  step(w, "cgroup", [&] { cgroup(w, p.cgroup); });
  step(w, "rlimits", [&] { rlimits(w, p.rlimits); });
  step(w, "limits", [&] { limits(w, limit_entries); });
  step(w, "no_new_privs", [&] { w.value(true); });
  step(w, "landlock", [&] { landlock(w, p.landlock); });
  step(w, "seccomp", [&] { seccomp(w, p); });
  step(w, "env", [&] { env(w, p.env); });
  step(w, "proxy", [&] { proxy(w, p.proxy); });
  step(w, "credentials", [&] {
    w.begin_object().key("endpoints");
    credentials(w, p.credentials);
    w.key("extra_ca").value(p.credential_extra_ca).end_object();
  });
  step(w, "publish", [&] { ports(w, p.publish); });
  step(w, "host_ports", [&] { ports(w, p.host_ports); });
  step(w, "wall_time_secs", [&] { opt(w, p.wall_time_secs); });
  w.end_array();
  return w.take();
}

nlohmann::json to_json(const LinuxPlan& p) {
  CanonicalWriter w;
  w.begin_object();
  w.key("cgroup");
  cgroup(w, p.cgroup);
  w.key("credential_extra_ca").value(p.credential_extra_ca);
  w.key("credentials");
  credentials(w, p.credentials);
  w.key("env");
  env(w, p.env);
  w.key("host_ports");
  ports(w, p.host_ports);
  w.key("hostname").value(p.hostname);
  w.key("idmap_read_roots").value(p.idmap_read_roots);
  w.key("landlock");
  landlock(w, p.landlock);
  w.key("mounts");
  mounts(w, p.mounts);
  w.key("namespaces");
  namespaces(w);
  w.key("no_new_privs").value(true);
  w.key("proxy");
  proxy(w, p.proxy);
  w.key("publish");
  ports(w, p.publish);
  w.key("rlimits");
  rlimits(w, p.rlimits);
  w.key("seccomp");
  seccomp(w, p);
  w.key("tmpfs");
  tmpfs(w, p.tmpfs);
  w.key("wall_time_secs");
  opt(w, p.wall_time_secs);
  w.end_object();
  return nlohmann::json::parse(w.bytes());
}

}  // namespace paddock::linux_backend
