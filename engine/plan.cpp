#include "engine/plan.h"

#include "engine/canonical_writer.h"
#include "engine/ir.h"
#include "engine/schema_codec.h"

namespace paddock {
namespace {

using nlohmann::json;

// What the declaration cannot say: a partial capability says what is lost.
Status check_capabilities(const std::vector<FieldCapability>& v, const std::string& path, const std::string& prefix) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].support == Support::kPartial && v[i].loss.empty())
      return bad_input(prefix + path + "[" + std::to_string(i) + "].loss: a partial capability must say what is lost");
  return {};
}

}  // namespace

const char* to_string(Support s) { return schema::enum_name(s).data(); }
const char* to_string(Needs n) { return schema::enum_name(n).data(); }

json to_json(const FieldCapability& c) { return schema::to_json_value(c); }
json to_json(const BackendPlan& plan) { return schema::to_json_value(plan); }

Result<BackendPlan> plan_from_json(const json& j) {
  const std::string prefix = "plan JSON field ";
  schema::Reader r(prefix, "plan");
  BackendPlan p;
  if (!r.read(j, "plan", p)) return bad_input(r.error());
  if (p.backend != "linux" && p.backend != "macos" && p.backend != "windows" && p.backend != "oci" &&
      p.backend != "kubernetes")
    return bad_input(prefix + "plan.backend: expected linux, macos, windows, oci or kubernetes");
  if (!p.steps.is_array()) return bad_input(prefix + "plan.steps: expected an array");
  if (!p.probe.is_object()) return bad_input(prefix + "plan.probe: expected an object");
  if (auto s = check_capabilities(p.capability_vector, "plan.capability_vector", prefix); !s.ok()) return s.error();
  return p;
}

std::string plan_hash(const BackendPlan& plan) { return plan_hash(plan, canonical_bytes(plan.steps)); }

std::string plan_canonical_bytes(const BackendPlan& plan, std::string_view steps_canonical) {
  // The bytes of canonical_bytes(to_json(plan)) with the steps as the caller has them (the
  // helper hashes on every start, and never builds the steps as a tree): compact canonical
  // dumps compose, so a member's bytes inside the whole are its own.
  return schema::canonical_bytes_with(plan, "steps", steps_canonical);
}

std::string plan_hash(const BackendPlan& plan, std::string_view steps_canonical) {
  return sha256_hex(plan_canonical_bytes(plan, steps_canonical));
}

json to_json(const Attestation& a) { return schema::to_json_value(a); }

Result<Attestation> attestation_from_json(const json& j) {
  const std::string prefix = "attestation JSON field ";
  schema::Reader r(prefix, "attestation");
  Attestation a;
  if (!r.read(j, "attestation", a)) return bad_input(r.error());
  if (auto s = check_capabilities(a.capability_vector, "attestation.capability_vector", prefix); !s.ok()) return s.error();
  return a;
}

}  // namespace paddock
