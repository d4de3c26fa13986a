// `paddock doctor [--json]`: what this machine can enforce, probed by the same helper that will
// enforce it, so the report cannot disagree with enforcement.
#include <unistd.h>

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "backends/linux/kernel_probe.h"
#include "backends/linux/linux_plan.h"
#include "platform/credential_store.h"
#include "platform/probe.h"

namespace paddock::cli {
namespace {

using nlohmann::json;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// The memory and process limits as the capability matrix (the same one every plan uses) has
// them for this kernel and uid: support, mechanism, and the loss or the reason.
std::vector<FieldCapability> limit_rows(const linux_backend::KernelProbe& p) {
  std::vector<FieldCapability> out;
  for (const auto& row : linux_backend::linux_capability_matrix(p))
    if (row.field == "resources.memory_bytes" || row.field == "resources.processes") out.push_back(row);
  return out;
}

int doctor(CliContext& ctx, bool as_json) {
  auto fresh = platform::run_probe(ctx.helper_path().string());
  if (!fresh.ok()) {
    print_error(fresh.error().message);
    return fresh.error().exit_code();
  }
  const json& probe_json = *fresh;
  auto probe = linux_backend::probe_from_json(probe_json);
  if (!probe.ok()) {
    print_error(probe.error().message);
    return static_cast<int>(ErrorCode::kRefused);
  }
  // `doctor` is also how to refresh what `run` caches.
  if (auto layout = ctx.layout(); layout.ok())
    platform::ProbeCache(ctx.helper_path().string(), layout->probe_cache()).store(probe_json);
  const auto& p = *probe;
  if (as_json) {
    json report = {{"version", PADDOCK_VERSION},
                   {"uid", static_cast<int>(geteuid())},
                   {"helper", ctx.helper_path().string()},
                   {"resources", ctx.resources_dir().string()},
                   {"kernel", probe_json}};
    json limits = json::object();
    for (const auto& row : limit_rows(p))
      limits[row.field] = {{"support", to_string(row.support)}, {"mechanism", row.mechanism},
                           {"loss", row.loss}};
    report["limits"] = limits;
    // What refuses every `run` on this machine (125), worded as `run` words it.
    report["refusals"] = linux_backend::linux_probe_refusals(p);
    if (auto layout = ctx.layout(); layout.ok()) {
      const auto store = platform::CredentialStore(*layout, ctx.keyring_path().string()).status();
      report["credentials"] = {{"secret_service", store.secret_service}, {"detail", store.detail},
                               {"file", store.file}, {"in_file", store.in_file}};
    }
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  std::cout << "paddock " << PADDOCK_VERSION << " (uid " << geteuid() << ")\n"
            << "helper:      " << ctx.helper_path().string() << "\n"
            << "kernel:      " << p.kernel_release << "\n"
            << "landlock:    " << (p.landlock_abi ? "ABI " + std::to_string(p.landlock_abi) : "unavailable") << "\n"
            << "seccomp:     " << yes_no(p.seccomp_filter) << "\n"
            << "namespaces:  user " << yes_no(p.user_ns) << ", mount " << yes_no(p.mount_ns)
            << ", pid " << yes_no(p.pid_ns) << ", net " << yes_no(p.net_ns) << ", ipc "
            << yes_no(p.ipc_ns) << ", uts " << yes_no(p.uts_ns) << "\n"
            << "review mode: "
            << (p.overlay_userns() ? std::string("yes (an overlay mounts in the sandbox's user namespace)")
                                   : "no (" + p.overlay_userns_error + ": no overlay in a user namespace; --review is refused)")
            << "\n"
            << "cgroups:     " << p.cgroup.version;
  if (!p.cgroup.v2_mount.empty())
    std::cout << "; v2 at " << p.cgroup.v2_mount << ", delegated subtree writable: "
              << yes_no(p.cgroup.v2_delegated_writable);
  if (!p.cgroup.v1_controllers.empty())
    std::cout << "; v1 memory+pids writable: " << yes_no(p.cgroup.v1_writable);
  std::cout << "\n";
  // Where brokered credentials' keys go (docs/credentials.md); keys in the fallback file are
  // named, since any process of this user can read that file.
  if (auto layout = ctx.layout(); layout.ok()) {
    const auto store = platform::CredentialStore(*layout, ctx.keyring_path().string()).status();
    std::cout << "credentials: " << store.detail << "\n";
    if (store.in_file > 0)
      std::cout << "             " << store.in_file << " key(s) in " << store.file
                << " (0600, readable by any process of this user outside the sandbox)\n";
  }
  const auto refusals = linux_backend::linux_probe_refusals(p);
  if (refusals.empty()) std::cout << "sandbox:     every required kernel feature works\n";
  for (const auto& line : refusals) std::cout << "cannot run:  " << line << "\n";
  for (const auto& row : limit_rows(p)) {
    std::cout << "limit " << row.field.substr(row.field.find('.') + 1) << ": " << to_string(row.support);
    if (!row.mechanism.empty()) std::cout << " (" << row.mechanism << ")";
    std::cout << "\n";
    if (!row.loss.empty()) std::cout << "  " << row.loss << "\n";
  }
  return 0;
}

}  // namespace

void add_version_and_doctor(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("doctor", "Probe this kernel for what Paddock can enforce");
  auto as_json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *as_json, "Machine-readable report");
  cmd->callback([&ctx, as_json] { ctx.exit_code = doctor(ctx, *as_json); });
}

}  // namespace paddock::cli
