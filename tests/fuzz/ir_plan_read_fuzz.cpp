// libFuzzer target for the JSON paddock-helper reads from its caller: the frozen IR (--ir) and
// the kernel probe (--probe), plus the plan and attestation readers. Whatever the bytes, each
// reader answers a value or an error, never a crash; a value it accepts writes back to bytes it
// reads as the same value, and an IR the helper accepts compiles to one plan hash whichever way
// the plan's bytes are written.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/linux/linux_plan.h"
#include "engine/ir.h"
#include "engine/plan.h"

using namespace paddock;
using nlohmann::json;

namespace {

void require(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input that broke a contract
}

linux_backend::KernelProbe full_probe() {
  linux_backend::KernelProbe p;
  p.kernel_release = "6.18.0";
  p.landlock_abi = 7;
  p.seccomp_filter = p.user_ns = p.mount_ns = p.pid_ns = p.net_ns = p.ipc_ns = p.uts_ns = true;
  p.rlimit_data = true;
  p.cgroup.version = "v2";
  p.cgroup.v2_mount = "/sys/fs/cgroup";
  p.cgroup.own_v2_path = "/user.slice";
  p.cgroup.v2_controllers = {"memory", "pids"};
  return p;
}

void check_ir(const json& j) {
  auto ir = ir_from_json(j);
  if (!ir.ok()) {
    require(ir.error().code == ErrorCode::kBadInput && !ir.error().message.empty());
    return;
  }
  const std::string bytes = canonical_bytes(*ir);
  require(canonical_bytes(to_json(*ir)) == bytes);
  auto back = ir_from_json(json::parse(bytes));
  require(back.ok() && *back == *ir && canonical_bytes(*back) == bytes);

  // What the helper does next: compile, hash the plan over the steps' bytes, and compare with
  // the hash `paddock plan` computes over the same plan as a json tree.
  auto parts = linux_backend::compile_linux_parts(*ir, full_probe());
  auto tree = linux_backend::compile_linux(*ir, full_probe());
  require(parts.ok() == tree.ok());
  if (!parts.ok()) return;
  require(plan_hash(parts->plan, parts->steps) == plan_hash(*tree));
  auto plan_back = plan_from_json(json::parse(canonical_bytes(to_json(*tree))));
  require(plan_back.ok() && *plan_back == *tree);
}

void check_probe(const json& j) {
  auto p = linux_backend::probe_from_json(j);
  if (!p.ok()) return;
  auto back = linux_backend::probe_from_json(json::parse(linux_backend::to_json(*p).dump()));
  require(back.ok() && *back == *p);
}

void check_plan(const json& j) {
  auto p = plan_from_json(j);
  if (p.ok()) {
    auto back = plan_from_json(json::parse(to_json(*p).dump()));
    require(back.ok() && *back == *p);
    require(plan_hash(*back) == plan_hash(*p));
  }
  auto a = attestation_from_json(j);
  if (a.ok()) {
    auto back = attestation_from_json(json::parse(to_json(*a).dump()));
    require(back.ok() && *back == *a);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const json j = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  check_ir(j);
  check_probe(j);
  check_plan(j);
  if (j.is_object())
    for (const char* part : {"ir", "probe", "plan"})
      if (j.contains(part)) {
        check_ir(j[part]);
        check_probe(j[part]);
        check_plan(j[part]);
      }
  return 0;
}
