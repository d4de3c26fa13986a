// The Kubernetes backend (docs/backends.md): frozen IR -> the manifests a user applies with kubectl
// or a GitOps tool: a Pod for the agent, a NetworkPolicy that lets it reach nothing (or only the
// broker, a Deployment and Service of its own, when the network is filtered), the ConfigMap its
// masks are made from, and the Localhost seccomp profile (the Linux helper's table) an admin
// installs on the nodes. Pure; what only the launch knows (image, command, the values of passed
// variables, the project's claim, the uid) is added by complete_manifests().
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir.h"
#include "engine/plan.h"
#include "engine/status.h"

namespace paddock::kubernetes_backend {

// The plan's one step, "kubernetes": {"manifests": a v1 List, "seccomp_profile": {path, profile}}.
nlohmann::json compile_manifests(const FrozenIr& ir);

struct LaunchFacts {
  std::string image;                        // the agent image: a launch input, never invented
  std::string broker_image;                 // paddock-broker's image, when the network is filtered
  std::vector<std::string> command;         // never empty
  std::map<std::string, std::string> pass;  // the passed names present in the launch environment
  std::string project_claim = "paddock-project";  // the PersistentVolumeClaim holding the project
  std::int64_t uid = 1000, gid = 1000;      // who the agent runs as (never 0)
};
Result<nlohmann::json> complete_manifests(const nlohmann::json& step, const LaunchFacts& launch);

std::vector<FieldCapability> kubernetes_capability_matrix();

Result<BackendPlan> compile_kubernetes(const FrozenIr& ir, const nlohmann::json& probe);

}  // namespace paddock::kubernetes_backend
