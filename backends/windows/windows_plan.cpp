#include "backends/windows/windows_plan.h"

#include <algorithm>

#include "engine/capability.h"
#include "engine/schema_codec.h"

namespace paddock::windows_backend {
namespace {

using nlohmann::json;

bool inside_write_root(const std::string& path, const IrFs& fs) {
  return std::any_of(fs.write_roots.begin(), fs.write_roots.end(),
                     [&](const std::string& r) { return path_inside_windows(path, r); });
}

const char* kind_name(PathKind k) { return k == PathKind::kDir ? "dir" : "file"; }

}  // namespace

WindowsSpec compile_spec(const FrozenIr& ir) {
  WindowsSpec s;
  const std::string h = ir_hash(ir);  // "sha256:<hex>"
  s.container_name = "paddock." + h.substr(h.find(':') + 1, 24);
  // No capability SIDs: without internetClient / privateNetworkClientServer an AppContainer has
  // no network at all (loopback included). Only net mode off is supported on Windows.
  for (const std::string& r : ir.fs.write_roots) s.grants.push_back({r, "write"});
  for (const std::string& r : ir.fs.read_roots)
    if (std::find(ir.fs.write_roots.begin(), ir.fs.write_roots.end(), r) == ir.fs.write_roots.end())
      s.grants.push_back({r, "read"});
  std::sort(s.grants.begin(), s.grants.end(),
            [](const PathGrant& a, const PathGrant& b) { return a.path < b.path; });
  // Deny ACEs only where they are exact: existing paths outside every write root.
  for (const DenyEntry& d : ir.fs.deny)
    if (!is_absent(d.kind) && !inside_write_root(d.path, ir.fs))
      s.denies.push_back({d.path, kind_name(d.kind), "all"});
  for (const DenyEntry& d : ir.fs.deny_write)
    if (!is_absent(d.kind) && !inside_write_root(d.path, ir.fs))
      s.denies.push_back({d.path, kind_name(d.kind), "write"});
  std::sort(s.denies.begin(), s.denies.end(), [](const PathDeny& a, const PathDeny& b) {
    return a.path != b.path ? a.path < b.path : a.access < b.access;
  });
  s.job.job_memory_bytes = ir.resources.memory_bytes;
  s.job.active_processes = ir.resources.processes;
  s.job.job_user_time_secs = ir.resources.cpu_seconds;
  s.job.kill_on_job_close = true;
  s.env.set = ir.env.set;
  s.env.pass = ir.env.passed_names;
  s.private_temp = ir.fs.tmp_isolated;
  s.wall_time_secs = ir.resources.wall_time_secs;
  return s;
}

Result<BackendPlan> compile_windows(const FrozenIr& ir, const json& probe) {
  if (!probe.is_object()) return bad_input("Windows probe: expected a JSON object");
  BackendPlan plan;
  plan.backend = "windows";
  plan.ir_hash = ir_hash(ir);
  plan.probe = probe;
  plan.steps = schema::steps_json(WindowsPlan{compile_spec(ir)});
  plan.capability_vector = capability_vector(windows_capability_matrix(), requested_fields(ir));
  plan.losses = losses_of(plan.capability_vector);
  plan.taint = ir.taint;
  plan.refusals = ir_refusals(ir);
  for (auto& r : refusals_of("windows", plan.capability_vector)) plan.refusals.push_back(std::move(r));
  return plan;
}

}  // namespace paddock::windows_backend
