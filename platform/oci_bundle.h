// Writes an OCI runtime bundle (docs/backends.md): config.json, an empty root file system holding
// only the host's top-level symlinks (/bin -> usr/bin on merged-/usr systems), and the files the
// plan binds as placeholders and masks.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace paddock::platform {

// dir must not exist or be empty. config: a complete config.json (oci_backend::complete_config).
// config.json is written 0600: it holds the values of the passed environment variables.
Status write_oci_bundle(const std::string& dir, const nlohmann::json& config);

// The host ids the container's root maps to: the caller's own.
unsigned current_uid();
unsigned current_gid();

}  // namespace paddock::platform
