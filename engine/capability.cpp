#include "engine/capability.h"

#include <algorithm>
#include <set>

namespace paddock {

const std::vector<std::string>& capability_fields() {
  static const std::vector<std::string> kFields = {
      "fs.write_roots",
      "fs.read_roots",
      "fs.deny.outside_grants",
      "fs.deny.inside_read_root",
      "fs.deny.inside_write_root",
      "fs.deny.absent_inside_write_root",
      "fs.deny_write.outside_write_roots",
      "fs.deny_write.inside_write_root",
      "fs.deny_write.absent_inside_write_root",
      "fs.tmp_isolated",
      "fs.symlink_policy=resolve_parent_then_prefix",
      "fs.mount_semantics=no_host_mounts",
      "fs.host_mounted_paths",
      "egress.mode=off",
      "egress.mode=allowlist",
      "egress.mode=strict",
      "egress.mode=ask",
      "egress.dns=broker_resolved_once_pinned",
      "egress.tls=opaque_passthrough_no_interception",
      "egress.cidr",
      "egress.bind_ports",
      "egress.connect_ports",
      "egress.loopback_bind=false",
      "egress.unix_ipc=always_allowed",
      "egress.unix_socket_files",
      "egress.quotas",
      "egress.git_ssh",
      "egress.debug_resolve",
      "process.exec_scope=allow_roots",
      "process.inheritance=same_policy",
      "process.detach_policy=contained_or_fail",
      "process.privilege_drop",
      "process.no_new_privs",
      "secrets.default=deny",
      "secrets.brokered_env",
      "secrets.inherited_credentials=deny",
      "env.mode=allowlist",
      "env.passed_names",
      "env.set",
      "resources.cpu_seconds",
      "resources.memory_bytes",
      "resources.processes",
      "resources.open_files",
      "resources.file_size_bytes",
      "resources.wall_time_secs",
      "lifecycle.cleanup=kill_tree",
      "lifecycle.orphan_policy=kill",
      "lifecycle.crash_handling=fail_closed_report",
      "extensions.linux",
      "extensions.macos",
      "extensions.windows",
  };
  return kFields;
}

bool path_inside(const std::string& path, const std::string& root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  if (path == root) return true;
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
         path[root.size()] == '/';
}

namespace {

// Windows paths compare case-insensitively with either separator (lexically: 8.3 short names
// and junction aliases are not modelled, which the Windows matrix reports).
std::string windows_key(std::string p) {
  for (char& c : p) {
    if (c == '\\') c = '/';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool inside_any(const std::string& path, const std::vector<std::string>& roots, bool windows) {
  return std::any_of(roots.begin(), roots.end(), [&](const std::string& r) {
    return windows ? path_inside_windows(path, r) : path_inside(path, r);
  });
}

}  // namespace

bool path_inside_windows(const std::string& path, const std::string& root) {
  const std::string p = windows_key(path), r = windows_key(root);
  if (p == r) return true;
  return p.size() > r.size() && p.compare(0, r.size(), r) == 0 &&
         (p[r.size()] == '/' || r.back() == '/');
}

std::vector<std::string> requested_fields(const FrozenIr& ir) {
  std::set<std::string> want;
  const IrFs& fs = ir.fs;
  const bool win = ir.meta.os == "windows";
  if (!fs.write_roots.empty()) want.insert("fs.write_roots");
  if (!fs.read_roots.empty()) want.insert("fs.read_roots");
  for (const DenyEntry& d : fs.deny) {
    const bool in_write = inside_any(d.path, fs.write_roots, win);
    const bool in_read = inside_any(d.path, fs.read_roots, win);
    if (in_write && is_absent(d.kind))
      want.insert("fs.deny.absent_inside_write_root");
    else if (in_write)
      want.insert("fs.deny.inside_write_root");
    else if (in_read)
      want.insert("fs.deny.inside_read_root");
    else
      want.insert("fs.deny.outside_grants");
  }
  for (const DenyEntry& d : fs.deny_write) {
    const bool in_write = inside_any(d.path, fs.write_roots, win);
    if (in_write && is_absent(d.kind))
      want.insert("fs.deny_write.absent_inside_write_root");
    else if (in_write)
      want.insert("fs.deny_write.inside_write_root");
    else
      want.insert("fs.deny_write.outside_write_roots");
  }
  if (fs.tmp_isolated) want.insert("fs.tmp_isolated");
  want.insert("fs.symlink_policy=" + fs.symlink_policy);
  want.insert("fs.mount_semantics=" + fs.mount_semantics);
  if (!fs.host_mounted_paths.empty()) want.insert("fs.host_mounted_paths");

  const IrEgress& e = ir.egress;
  want.insert(std::string("egress.mode=") + to_string(e.mode));
  if (e.mode != NetMode::kOff) {
    want.insert("egress.dns=" + e.dns);
    want.insert("egress.tls=" + e.tls);
  }
  if (!e.cidr.empty()) want.insert("egress.cidr");
  if (!e.bind_ports.empty()) want.insert("egress.bind_ports");
  if (!e.connect_ports.empty()) want.insert("egress.connect_ports");
  if (!e.loopback_bind) want.insert("egress.loopback_bind=false");
  want.insert("egress.unix_ipc=" + e.unix_ipc);
  if (!e.unix_socket_files.empty()) want.insert("egress.unix_socket_files");
  if (!e.quotas.empty()) want.insert("egress.quotas");
  if (e.git_ssh) want.insert("egress.git_ssh");
  if (!e.debug_resolve.empty()) want.insert("egress.debug_resolve");

  const IrProcess& p = ir.process;
  want.insert("process.exec_scope=" + p.exec_scope);
  want.insert("process.inheritance=" + p.inheritance);
  want.insert("process.detach_policy=" + p.detach_policy);
  if (p.privilege_drop) want.insert("process.privilege_drop");
  if (p.no_new_privs) want.insert("process.no_new_privs");

  want.insert("secrets.default=" + ir.secrets.default_);
  if (!ir.secrets.brokered_env.empty()) want.insert("secrets.brokered_env");
  want.insert("secrets.inherited_credentials=" + ir.secrets.inherited_credentials);

  want.insert("env.mode=" + ir.env.mode);
  if (!ir.env.passed_names.empty()) want.insert("env.passed_names");
  if (!ir.env.set.empty()) want.insert("env.set");

  const IrResources& r = ir.resources;
  if (r.cpu_seconds) want.insert("resources.cpu_seconds");
  if (r.memory_bytes) want.insert("resources.memory_bytes");
  if (r.processes) want.insert("resources.processes");
  if (r.open_files) want.insert("resources.open_files");
  if (r.file_size_bytes) want.insert("resources.file_size_bytes");
  if (r.wall_time_secs) want.insert("resources.wall_time_secs");
  if (r.merge != "strictest_wins") want.insert("resources.merge=" + r.merge);

  want.insert("lifecycle.cleanup=" + ir.lifecycle.cleanup);
  want.insert("lifecycle.orphan_policy=" + ir.lifecycle.orphan_policy);
  want.insert("lifecycle.crash_handling=" + ir.lifecycle.crash_handling);

  if (ir.extensions.is_object())
    for (auto it = ir.extensions.begin(); it != ir.extensions.end(); ++it)
      if (!(it.value().is_object() && it.value().empty()) && !it.value().is_null())
        want.insert("extensions." + it.key());

  std::vector<std::string> out;
  for (const std::string& f : capability_fields())
    if (want.erase(f)) out.push_back(f);
  out.insert(out.end(), want.begin(), want.end());  // unknown values: refused by check()
  return out;
}

std::vector<FieldCapability> in_field_order(std::vector<FieldCapability> rows) {
  const auto& fields = capability_fields();
  const auto rank = [&](const FieldCapability& c) {
    return static_cast<std::size_t>(std::find(fields.begin(), fields.end(), c.field) - fields.begin());
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const FieldCapability& a, const FieldCapability& b) {
    const std::size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a.field < b.field;
  });
  return rows;
}

std::vector<FieldCapability> capability_vector(const std::vector<FieldCapability>& matrix,
                                               const std::vector<std::string>& fields) {
  std::vector<FieldCapability> out;
  for (const std::string& f : fields) {
    auto it = std::find_if(matrix.begin(), matrix.end(),
                           [&](const FieldCapability& c) { return c.field == f; });
    if (it != matrix.end()) {
      out.push_back(*it);
    } else {
      FieldCapability c;
      c.field = f;
      c.support = Support::kUnsupported;
      c.loss = "this backend has no enforcement for this value; use a value the capability "
               "matrix lists (docs/capabilities.md)";
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> losses_of(const std::vector<FieldCapability>& rows) {
  std::vector<std::string> out;
  for (const FieldCapability& c : rows)
    if (c.support == Support::kPartial) out.push_back(c.field + ": " + c.loss);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> refusals_of(const std::string& backend,
                                     const std::vector<FieldCapability>& rows) {
  std::vector<std::string> out;
  for (const FieldCapability& c : rows) {
    if (c.support == Support::kUnsupported) {
      out.push_back(backend + " cannot enforce " + c.field + ": " + c.loss);
    } else if (c.needs != Needs::kNone) {
      out.push_back(backend + " enforces " + c.field + " only with " + to_string(c.needs) +
                    ", which the launch path never provides: " +
                    (c.loss.empty() ? std::string("remove it from the policy") : c.loss));
    }
  }
  return out;
}

std::vector<std::string> ir_refusals(const FrozenIr& ir) {
  std::vector<std::string> out;
  for (const std::string& w : ir.warnings)
    if (w.rfind("resolve_budget_exceeded", 0) == 0)
      out.push_back("the policy's path resolution exceeded its budget (" + w +
                    "); narrow the globs so that they match fewer files");
  if (!ir.egress.cidr.empty() && ir.egress.mode != NetMode::kOff)
    out.push_back(std::string("allow_cidr cannot be combined with net mode ") +
                  to_string(ir.egress.mode) +
                  ": raw IP grants would bypass the broker's DNS pinning; remove "
                  "network.allow_cidr or use allow_domains only");
  if (ir.egress.git_ssh && ir.egress.mode == NetMode::kOff)
    out.push_back("--git-ssh routes ssh through the egress broker, which net mode off does not "
                  "start; add --net allowlist (or strict) with --allow-domain HOST:22, or drop --git-ssh");
  if (ir.egress.git_ssh && ir.egress.git_ssh_connect.empty())
    out.push_back("--git-ssh needs paddock-connect, and this front end did not name one; run it from "
                  "the paddock CLI, which installs paddock-connect next to paddock-helper");
  return out;
}

Status validate_row(const FieldCapability& row) {
  if (row.field.empty()) return internal_error("capability row without a field name");
  if (row.support == Support::kPartial && row.loss.empty())
    return internal_error("capability row " + row.field + " is partial without a loss sentence");
  if (row.support == Support::kUnsupported && row.loss.empty())
    return internal_error("capability row " + row.field + " is unsupported without a reason");
  if (row.support != Support::kUnsupported && row.mechanism.empty())
    return internal_error("capability row " + row.field + " names no mechanism");
  return Status::Ok();
}

}  // namespace paddock
