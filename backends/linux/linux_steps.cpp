// The Linux plan as bytes, derived from its declaration (linux_plan.h): the steps are LinuxPlan's
// members in declaration order, each {"step": name, "value": ...}, written as canonical bytes
// straight into a string. plan_hash covers these bytes; `paddock plan` parses them into the plan
// JSON, and paddock-helper hashes them as they are, without building a json tree (the tree for
// the 140-rule seccomp step and its copies were most of the helper's start-up CPU).
#include <string>

#include "backends/linux/linux_plan.h"
#include "engine/schema_codec.h"

namespace paddock::linux_backend {

std::string canonical_steps(const LinuxPlan& p) { return schema::canonical_steps_of(p); }

nlohmann::json to_json(const LinuxPlan& p) { return schema::to_json_value(p); }

}  // namespace paddock::linux_backend
