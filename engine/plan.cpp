#include "engine/plan.h"

#include "engine/canonical_writer.h"
#include "engine/ir.h"
#include "engine/json_text.h"
#include "engine/strict_json_reader.h"

namespace paddock {
namespace {

using nlohmann::json;

// The plan's reader: the shared strict reader plus capability rows.
class PlanReader : public StrictJsonReader {
 public:
  PlanReader() : StrictJsonReader("") {}

  bool capability(const json& j, const std::string& path, FieldCapability& c) {
    if (!object(j, path, {"field", "support", "needs", "loss", "mechanism"})) return false;
    std::string support, needs;
    if (!str(j["field"], path + ".field", c.field) || !str(j["support"], path + ".support", support) ||
        !str(j["needs"], path + ".needs", needs) || !str(j["loss"], path + ".loss", c.loss) ||
        !str(j["mechanism"], path + ".mechanism", c.mechanism))
      return false;
    if (support == "exact") c.support = Support::kExact;
    else if (support == "partial") c.support = Support::kPartial;
    else if (support == "unsupported") c.support = Support::kUnsupported;
    else return fail(path + ".support", "expected exact, partial or unsupported");
    if (needs == "none") c.needs = Needs::kNone;
    else if (needs == "host_component") c.needs = Needs::kHostComponent;
    else if (needs == "vm") c.needs = Needs::kVm;
    else if (needs == "admin") c.needs = Needs::kAdmin;
    else if (needs == "entitlement") c.needs = Needs::kEntitlement;
    else return fail(path + ".needs", "expected none, host_component, vm, admin or entitlement");
    if (c.support == Support::kPartial && c.loss.empty())
      return fail(path + ".loss", "a partial capability must say what is lost");
    return true;
  }
  bool capabilities(const json& j, const std::string& path, std::vector<FieldCapability>& out) {
    if (!j.is_array()) return fail(path, "expected an array");
    out.clear();
    for (std::size_t i = 0; i < j.size(); ++i) {
      FieldCapability c;
      if (!capability(j[i], path + "[" + std::to_string(i) + "]", c)) return false;
      out.push_back(std::move(c));
    }
    return true;
  }
};

// Every string as the IR writes it (engine/json_text.h): refusals and losses may name paths.
json texts(const std::vector<std::string>& v) {
  json out = json::array();
  for (const auto& s : v) out.push_back(json_text_value(s));
  return out;
}

json capabilities_json(const std::vector<FieldCapability>& v) {
  json out = json::array();
  for (const auto& c : v) out.push_back(to_json(c));
  return out;
}

}  // namespace

const char* to_string(Support s) {
  switch (s) {
    case Support::kExact: return "exact";
    case Support::kPartial: return "partial";
    case Support::kUnsupported: return "unsupported";
  }
  return "unsupported";
}

const char* to_string(Needs n) {
  switch (n) {
    case Needs::kNone: return "none";
    case Needs::kHostComponent: return "host_component";
    case Needs::kVm: return "vm";
    case Needs::kAdmin: return "admin";
    case Needs::kEntitlement: return "entitlement";
  }
  return "none";
}

json to_json(const FieldCapability& c) {
  return json{{"field", json_text_value(c.field)}, {"support", to_string(c.support)}, {"needs", to_string(c.needs)},
              {"loss", json_text_value(c.loss)}, {"mechanism", json_text_value(c.mechanism)}};
}

json to_json(const BackendPlan& plan) {
  return json{{"backend", json_text_value(plan.backend)},
              {"ir_hash", json_text_value(plan.ir_hash)},
              {"probe", plan.probe},
              {"steps", plan.steps},
              {"capability_vector", capabilities_json(plan.capability_vector)},
              {"losses", texts(plan.losses)},
              {"taint", texts(plan.taint)},
              {"refusals", texts(plan.refusals)}};
}

Result<BackendPlan> plan_from_json(const json& j) {
  PlanReader r;
  BackendPlan p;
  bool ok = r.object(j, "plan", {"backend", "ir_hash", "probe", "steps", "capability_vector",
                                 "losses", "taint", "refusals"}) &&
            r.str(j["backend"], "plan.backend", p.backend) &&
            r.str(j["ir_hash"], "plan.ir_hash", p.ir_hash) &&
            r.capabilities(j["capability_vector"], "plan.capability_vector", p.capability_vector) &&
            r.strings(j["losses"], "plan.losses", p.losses) &&
            r.strings(j["taint"], "plan.taint", p.taint) &&
            r.strings(j["refusals"], "plan.refusals", p.refusals);
  if (ok && p.backend != "linux" && p.backend != "macos" && p.backend != "windows")
    ok = r.fail("plan.backend", "expected linux, macos or windows");
  if (ok && !j["steps"].is_array()) ok = r.fail("plan.steps", "expected an array");
  if (ok && !(j["probe"].is_object())) ok = r.fail("plan.probe", "expected an object");
  if (!ok) return bad_input("plan JSON field " + r.error());
  p.probe = j["probe"];
  p.steps = j["steps"];
  return p;
}

std::string plan_hash(const BackendPlan& plan) { return plan_hash(plan, canonical_bytes(plan.steps)); }

std::string plan_canonical_bytes(const BackendPlan& plan, std::string_view steps_canonical) {
  // The bytes of canonical_bytes(to_json(plan)), written member by member in the document's
  // (sorted) key order without building the document (the helper hashes on every start).
  // Compact canonical dumps compose: a member's bytes inside the whole are its own.
  CanonicalWriter w;
  w.begin_object();
  w.key("backend").value(plan.backend);
  w.key("capability_vector").begin_array();
  for (const auto& c : plan.capability_vector) {
    w.begin_object().key("field").value(c.field).key("loss").value(c.loss).key("mechanism").value(c.mechanism);
    w.key("needs").value(to_string(c.needs)).key("support").value(to_string(c.support)).end_object();
  }
  w.end_array();
  w.key("ir_hash").value(plan.ir_hash);
  w.key("losses").value(plan.losses);
  w.key("probe").value(plan.probe);
  w.key("refusals").value(plan.refusals);
  w.key("steps");
  std::string out = w.take();
  out += steps_canonical;
  out += ",\"taint\":";
  CanonicalWriter t;
  t.value(plan.taint);
  out += t.bytes();
  out += "}";
  return out;
}

std::string plan_hash(const BackendPlan& plan, std::string_view steps_canonical) {
  return sha256_hex(plan_canonical_bytes(plan, steps_canonical));
}

json to_json(const Attestation& a) {
  return json{{"ir_hash", json_text_value(a.ir_hash)},
              {"plan_hash", json_text_value(a.plan_hash)},
              {"backend", json_text_value(a.backend)},
              {"abi", a.abi},
              {"capability_vector", capabilities_json(a.capability_vector)},
              {"taint", texts(a.taint)},
              {"source_layers", texts(a.source_layers)}};
}

Result<Attestation> attestation_from_json(const json& j) {
  PlanReader r;
  Attestation a;
  bool ok = r.object(j, "attestation", {"ir_hash", "plan_hash", "backend", "abi",
                                        "capability_vector", "taint", "source_layers"}) &&
            r.str(j["ir_hash"], "attestation.ir_hash", a.ir_hash) &&
            r.str(j["plan_hash"], "attestation.plan_hash", a.plan_hash) &&
            r.str(j["backend"], "attestation.backend", a.backend) &&
            r.capabilities(j["capability_vector"], "attestation.capability_vector",
                           a.capability_vector) &&
            r.strings(j["taint"], "attestation.taint", a.taint) &&
            r.strings(j["source_layers"], "attestation.source_layers", a.source_layers);
  if (ok && !j["abi"].is_number_integer()) ok = r.fail("attestation.abi", "expected an integer");
  if (!ok) return bad_input("attestation JSON field " + r.error());
  a.abi = j["abi"].get<int>();
  return a;
}

}  // namespace paddock
