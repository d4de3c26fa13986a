#include "backends/backend.h"

#include "backends/kubernetes/kubernetes_plan.h"
#include "backends/linux/kernel_probe.h"
#include "backends/linux/linux_plan.h"
#include "backends/macos/macos_plan.h"
#include "backends/oci/oci_plan.h"
#include "backends/windows/windows_plan.h"
#include "engine/capability.h"

namespace paddock::backends {

const char* to_string(BackendId id) {
  switch (id) {
    case BackendId::kLinux: return "linux";
    case BackendId::kMacos: return "macos";
    case BackendId::kWindows: return "windows";
    case BackendId::kOci: return "oci";
    case BackendId::kKubernetes: return "kubernetes";
  }
  return "linux";
}

Result<BackendId> backend_from_string(const std::string& name) {
  if (name == "linux") return BackendId::kLinux;
  if (name == "macos") return BackendId::kMacos;
  if (name == "windows") return BackendId::kWindows;
  if (name == "oci") return BackendId::kOci;
  if (name == "kubernetes") return BackendId::kKubernetes;
  return bad_input("unknown backend '" + name + "'; expected linux, macos, windows, oci or kubernetes");
}

BackendId host_backend() {
#if defined(_WIN32)
  return BackendId::kWindows;
#elif defined(__APPLE__)
  return BackendId::kMacos;
#else
  return BackendId::kLinux;
#endif
}

const std::vector<BackendId>& all_backends() {
  static const std::vector<BackendId> kAll = {BackendId::kLinux, BackendId::kMacos, BackendId::kWindows,
                                              BackendId::kOci, BackendId::kKubernetes};
  return kAll;
}

Result<BackendPlan> compile(const FrozenIr& ir, BackendId backend, const nlohmann::json& probe) {
  switch (backend) {
    case BackendId::kLinux: {
      auto p = linux_backend::probe_from_json(probe);
      if (!p.ok()) return p.error();
      return linux_backend::compile_linux(ir, *p);
    }
    case BackendId::kMacos: return macos_backend::compile_macos(ir, probe);
    case BackendId::kWindows: return windows_backend::compile_windows(ir, probe);
    case BackendId::kOci: return oci_backend::compile_oci(ir, probe);
    case BackendId::kKubernetes: return kubernetes_backend::compile_kubernetes(ir, probe);
  }
  return internal_error("unknown backend id");
}

std::vector<FieldCapability> capability_matrix(BackendId backend, const nlohmann::json& probe) {
  switch (backend) {
    case BackendId::kLinux: {
      auto p = linux_backend::probe_from_json(probe);
      // Without facts about the kernel nothing can be promised: every row unsupported.
      if (!p.ok()) return linux_backend::linux_capability_matrix(linux_backend::KernelProbe{});
      return linux_backend::linux_capability_matrix(*p);
    }
    case BackendId::kMacos: return macos_backend::macos_capability_matrix();
    case BackendId::kWindows: return windows_backend::windows_capability_matrix();
    case BackendId::kOci: {
      auto facts = oci_backend::facts_from_json(probe);
      return oci_backend::oci_capability_matrix(facts.ok() ? *facts : oci_backend::OciFacts{});
    }
    case BackendId::kKubernetes: return kubernetes_backend::kubernetes_capability_matrix();
  }
  return {};
}

std::vector<FieldCapability> capability_matrix_here(BackendId backend, const nlohmann::json& linux_probe) {
  switch (backend) {
    case BackendId::kLinux: return capability_matrix(backend, linux_probe);
    case BackendId::kOci: {
      auto kernel = linux_backend::probe_from_json(linux_probe);
      return capability_matrix(backend, kernel.ok() ? oci_backend::to_json(oci_backend::facts_for(*kernel))
                                                    : nlohmann::json::object());
    }
    case BackendId::kMacos:
    case BackendId::kWindows:
    case BackendId::kKubernetes: break;
  }
  return capability_matrix(backend, nlohmann::json::object());
}

Status check(const BackendPlan& plan) {
  // The capability vector is re-read here, not trusted from plan.refusals alone, so that a plan
  // read back from disk or built by hand cannot skip a refusal by leaving that list empty.
  for (const FieldCapability& row : plan.capability_vector) {
    Status s = validate_row(row);
    if (!s.ok()) return s;
  }
  if (!plan.refusals.empty()) return refused(plan.refusals.front());
  auto lines = refusals_of(plan.backend, plan.capability_vector);
  if (!lines.empty()) return refused(lines.front());
  return Status::Ok();
}

}  // namespace paddock::backends
