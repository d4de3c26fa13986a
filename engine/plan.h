// Backend-neutral plan data (docs/architecture.md, "The pipeline"): what a backend compiler
// produces from a frozen IR, the capability vector that says honestly how each IR field is
// enforced, and the attestation record a helper sends before it execs the agent. Each is declared
// once (engine/schema.h) at the end of this header; plan.cpp derives their JSON from that.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/schema.h"
#include "engine/status.h"

namespace paddock {

enum class Support { kExact, kPartial, kUnsupported };
enum class Needs { kNone, kHostComponent, kVm, kAdmin, kEntitlement };

const char* to_string(Support s);
const char* to_string(Needs n);

// One row of a capability matrix: how `field` (an IR field path such as "fs.deny" or
// "egress.mode=allowlist") is enforced by one backend. kPartial always carries a loss sentence.
struct FieldCapability {
  std::string field;
  Support support = Support::kUnsupported;
  Needs needs = Needs::kNone;
  std::string loss;       // required when support == kPartial; why, when kUnsupported
  std::string mechanism;  // short name of what enforces it ("Landlock", "mount mask", ...)
  bool operator==(const FieldCapability&) const = default;
};

// The plan as data: ordered backend steps (backend-specific JSON), the capability vector for the
// fields this IR actually requests, and the losses in words. No pid, nonce or time is ever here.
struct BackendPlan {
  std::string backend;                    // linux | macos | windows | oci | kubernetes
  std::string ir_hash;                    // of the IR it was compiled from
  nlohmann::json probe;                   // the kernel/OS facts the compiler was given
  nlohmann::json steps = nlohmann::json::array();
  std::vector<FieldCapability> capability_vector;
  std::vector<std::string> losses;        // one sentence each, sorted
  std::vector<std::string> taint;         // carried from the IR
  std::vector<std::string> refusals;      // filled by check(): one actionable line each
  bool operator==(const BackendPlan&) const = default;
};

nlohmann::json to_json(const FieldCapability& c);
nlohmann::json to_json(const BackendPlan& plan);
Result<BackendPlan> plan_from_json(const nlohmann::json& j);
std::string plan_hash(const BackendPlan& plan);  // "sha256:<hex>" of canonical bytes
// The same hash with the steps given as their canonical bytes (plan.steps is not read): for a
// helper that has the steps as bytes and no reason to build them as a tree.
std::string plan_hash(const BackendPlan& plan, std::string_view steps_canonical);
// The canonical bytes that hash covers: what `paddock run` stores as plan.json.
std::string plan_canonical_bytes(const BackendPlan& plan, std::string_view steps_canonical);

// The readiness attestation (docs/cli.md, "sessions"): sent by the helper on a pipe before exec.
struct Attestation {
  std::string ir_hash;
  std::string plan_hash;
  std::string backend;
  int abi = 0;                                   // Landlock ABI on Linux; 0 elsewhere
  std::vector<FieldCapability> capability_vector;
  std::vector<std::string> taint;
  std::vector<std::string> source_layers;        // "tier:file" in precedence order
  // OCI sessions: the runtime that ran the bundle ("runc 1.1.5") and the sha256 of the
  // config.json it was given (the plan's config completed with the launch's facts); "" elsewhere.
  std::string runtime;
  std::string runtime_config_hash;
  bool operator==(const Attestation&) const = default;
};

nlohmann::json to_json(const Attestation& a);
Result<Attestation> attestation_from_json(const nlohmann::json& j);

}  // namespace paddock

template <>
struct paddock::schema::EnumNames<paddock::Support> {
  static constexpr NameTable<Support, 3> values{
      {{Support::kExact, "exact"}, {Support::kPartial, "partial"}, {Support::kUnsupported, "unsupported"}}};
};

template <>
struct paddock::schema::EnumNames<paddock::Needs> {
  static constexpr NameTable<Needs, 5> values{{{Needs::kNone, "none"},
                                               {Needs::kHostComponent, "host_component"},
                                               {Needs::kVm, "vm"},
                                               {Needs::kAdmin, "admin"},
                                               {Needs::kEntitlement, "entitlement"}}};
};

template <>
struct paddock::schema::Schema<paddock::FieldCapability> {
  static constexpr auto fields = std::make_tuple(
      field("field", &FieldCapability::field), field("support", &FieldCapability::support),
      field("needs", &FieldCapability::needs), field("loss", &FieldCapability::loss),
      field("mechanism", &FieldCapability::mechanism));
};

template <>
struct paddock::schema::Schema<paddock::BackendPlan> {
  static constexpr auto fields = std::make_tuple(
      field("backend", &BackendPlan::backend), field("ir_hash", &BackendPlan::ir_hash),
      field("probe", &BackendPlan::probe), field("steps", &BackendPlan::steps),
      field("capability_vector", &BackendPlan::capability_vector), field("losses", &BackendPlan::losses),
      field("taint", &BackendPlan::taint), field("refusals", &BackendPlan::refusals));
};

template <>
struct paddock::schema::Schema<paddock::Attestation> {
  static constexpr auto fields = std::make_tuple(
      field("ir_hash", &Attestation::ir_hash), field("plan_hash", &Attestation::plan_hash),
      field("backend", &Attestation::backend), field("abi", &Attestation::abi),
      field("capability_vector", &Attestation::capability_vector), field("taint", &Attestation::taint),
      field("source_layers", &Attestation::source_layers), field("runtime", &Attestation::runtime, kOmitEmpty),
      field("runtime_config_hash", &Attestation::runtime_config_hash, kOmitEmpty));
};
