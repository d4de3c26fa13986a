#include <QtTest>

#include "backends/backend.h"
#include "backends/linux/linux_plan.h"
#include "engine/plan.h"
#include "tests/backends/fixtures.h"

using namespace paddock;
using namespace paddock::test;

class PlanDataTest : public QObject {
  Q_OBJECT
 private slots:
  void a_plan_reads_back_equal_with_the_same_hash() {
    for (auto b : backends::all_backends()) {
      auto probe = b == backends::BackendId::kLinux ? linux_backend::to_json(probe_abi(5))
                                                    : nlohmann::json::object();
      auto plan = backends::compile(relay_ir(), b, probe);
      QVERIFY(plan.ok());
      auto back = plan_from_json(nlohmann::json::parse(to_json(*plan).dump()));
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
      QVERIFY(*back == *plan);
      QCOMPARE(plan_hash(*back), plan_hash(*plan));
    }
  }

  void plan_hash_is_sha256_of_the_canonical_plan_bytes() {
    auto plan = backends::compile(typical_ir(), backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    QCOMPARE(plan_hash(*plan), sha256_hex(canonical_bytes(to_json(*plan))));
    QVERIFY(plan_hash(*plan).rfind("sha256:", 0) == 0);
  }

  void one_changed_byte_of_the_ir_changes_the_plan_hash() {
    FrozenIr a = typical_ir(), b = typical_ir();
    b.fs.write_roots[1] = "/home/dev/proJ";
    auto probe = linux_backend::to_json(probe_abi(7));
    QVERIFY(plan_hash(*backends::compile(a, backends::BackendId::kLinux, probe)) !=
            plan_hash(*backends::compile(b, backends::BackendId::kLinux, probe)));
  }

  void the_plan_has_no_pid_nonce_or_time() {
    auto plan = backends::compile(typical_ir(), backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    const std::string bytes = canonical_bytes(to_json(*plan));
    for (const char* word : {"nonce", "\"time\"", "timestamp", "\"ts\"", "session"})
      QVERIFY2(bytes.find(word) == std::string::npos, word);
    // "pid" appears only as the PID-namespace switch, never as a number.
    QVERIFY(bytes.find("\"pid\":true") != std::string::npos);
    for (char d = '0'; d <= '9'; ++d) QVERIFY(bytes.find(std::string("\"pid\":") + d) == std::string::npos);
  }

  void reading_a_plan_rejects_unknown_and_missing_fields_and_lossless_partials() {
    auto plan = backends::compile(minimal_ir(), backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    auto j = to_json(*plan);
    j["extra"] = 1;
    QVERIFY(!plan_from_json(j).ok());
    j = to_json(*plan);
    j.erase("refusals");
    QVERIFY(!plan_from_json(j).ok());
    j = to_json(*plan);
    j["capability_vector"][0]["support"] = "best_effort";
    auto r = plan_from_json(j);
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("capability_vector[0].support") != std::string::npos);
    j = to_json(*plan);
    j["capability_vector"][0]["support"] = "partial";
    j["capability_vector"][0]["loss"] = "";
    QVERIFY(!plan_from_json(j).ok());
  }

  void an_attestation_reads_back_equal_and_strictly() {
    auto plan = backends::compile(typical_ir(), backends::BackendId::kLinux, linux_backend::to_json(probe_abi(7)));
    Attestation a{plan->ir_hash, plan_hash(*plan), "linux", 7, plan->capability_vector, {"PADDOCK_FORCE_TIER=x"},
                  {"builtin-profile:builtin:profiles/default.yaml"}, "", ""};
    auto j = to_json(a);
    for (const char* k : {"ir_hash", "plan_hash", "backend", "abi", "capability_vector", "taint", "source_layers"})
      QVERIFY2(j.contains(k), k);
    auto back = attestation_from_json(j);
    QVERIFY(back.ok());
    QVERIFY(*back == a);
    j["abi"] = "7";
    QVERIFY(!attestation_from_json(j).ok());
  }
};

QTEST_APPLESS_MAIN(PlanDataTest)
#include "plan_data_test.moc"
