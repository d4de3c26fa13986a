// Writes what the OCI and Kubernetes backends hand to tools outside Paddock (docs/backends.md): an
// OCI runtime bundle, or a directory of Kubernetes manifests and their seccomp profile.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::platform {

// An OCI runtime bundle: config.json, an empty root file system holding only the host's top-level
// symlinks (/bin -> usr/bin on merged-/usr systems), and the files the plan binds as placeholders
// and masks. dir must not exist or be empty. config: a complete config.json (oci_backend::complete_config).
// config.json is written 0600: it holds the values of the passed environment variables.
Status write_oci_bundle(const std::string& dir, const nlohmann::json& config);

// dir must not exist or be empty. step: the Kubernetes plan's step completed for the launch
// (kubernetes_backend::complete_manifests). Writes manifests.json (a v1 List, mode 0600: it holds
// the values of the passed environment variables) and seccomp/<profile path>, the file an admin
// copies into each node's kubelet seccomp directory.
Status write_kubernetes_bundle(const std::string& dir, const nlohmann::json& step);

// The host ids the container's root maps to: the caller's own.
unsigned current_uid();
unsigned current_gid();

}  // namespace paddock::platform
