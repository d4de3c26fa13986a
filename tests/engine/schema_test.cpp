// The one schema mechanism (engine/schema.h, engine/schema_codec.h): an enum's names are checked
// complete, a declared struct's JSON, strict reading and canonical bytes are derived from its one
// declaration, and every record that crosses a file or process boundary (the plan data, the
// attestation, report.json, the messages from the sandbox and on the control socket) reads back
// to what was written, its canonical bytes are its tree's canonical dump, and a field too many or
// too few is refused naming it.
#include <QtTest>

#include <set>

#include "engine/plan.h"
#include "engine/schema.h"
#include "engine/schema_codec.h"
#include "engine/session/control.h"
#include "engine/session/init_message.h"
#include "engine/session/report.h"
#include "engine/session/usage_message.h"

using namespace paddock;
using namespace paddock::session;
using nlohmann::json;

namespace paddock::schema_test {
enum class Three { kA, kB, kC };
enum class Sparse { kOne = 1, kTwo = 2, kTen = 10 };
struct Sample {
  std::string name;
  std::optional<std::int64_t> limit;
  std::string note;            // kOmitEmpty
  std::vector<int> ports;      // kPort
  bool flag = false;           // kMayBeAbsent
  Three three = Three::kA;
  bool operator==(const Sample&) const = default;
};
}  // namespace paddock::schema_test

template <>
struct paddock::schema::EnumNames<paddock::schema_test::Three> {
  using T = paddock::schema_test::Three;
  static constexpr NameTable<T, 3> values{{{T::kA, "a"}, {T::kB, "b"}, {T::kC, "c"}}};
};

template <>
struct paddock::schema::Schema<paddock::schema_test::Sample> {
  using S = paddock::schema_test::Sample;
  static constexpr auto fields =
      std::make_tuple(field("name", &S::name), field("limit", &S::limit), field("note", &S::note, kOmitEmpty),
                      field("ports", &S::ports, kPort), field("flag", &S::flag, kMayBeAbsent), field("three", &S::three));
};

namespace {

using paddock::schema_test::Sample;
using paddock::schema_test::Three;

// to_json_value, the strict reader and the canonical bytes agree for v, and v reads back as v.
template <class T>
std::string round_trip(const T& v, const char* what) {
  const json j = schema::to_json_value(v);
  auto back = schema::from_json_value<T>(json::parse(j.dump()), std::string(what) + ": ");
  if (!back.ok()) return back.error().message;
  if (!(*back == v)) return std::string(what) + ": read back differently from " + j.dump();
  if (schema::canonical_bytes_of(v) != canonical_bytes(j)) return std::string(what) + ": canonical bytes differ from the tree's";
  return {};
}

Report full_report() {
  Report r;
  r.session_id = "s1";
  r.status = ReportStatus::kTimeout;
  r.exit_code = 124;
  r.signal = 9;
  r.duration_ms = 5;
  r.attested = true;
  r.limits_hit = {"wall_time"};
  r.usage = {1, 2, 3};
  r.ended = "2026-01-02T03:04:05.678Z";
  r.error = std::string("caf\xe9.pem is gone");  // a file name that is not UTF-8
  r.events_dropped = 7;
  r.config_changes = {{"/h/.claude/settings.json", "hooks", "added"}};
  return r;
}

}  // namespace

class SchemaTest : public QObject {
  Q_OBJECT
 private slots:
  void an_enums_names_are_counted_against_its_enumerators() {
    QCOMPARE(schema::enumerator_count<Three>, std::size_t(3));
    QCOMPARE(schema::enumerator_count<paddock::schema_test::Sparse>, std::size_t(3));
    QVERIFY(schema::names_complete<Three>());
    QCOMPARE(std::string(schema::enum_name(Three::kC)), std::string("c"));
    QVERIFY(schema::enum_from_name<Three>("b") == Three::kB);
    QVERIFY(!schema::enum_from_name<Three>("d"));
    QCOMPARE(schema::enum_choices<Three>(), std::string("a, b or c"));
  }

  void a_declared_struct_is_written_and_read_by_its_declaration() {
    Sample s{"x", std::nullopt, "", {443}, true, Three::kB};
    QCOMPARE(schema::to_json_value(s).dump(), std::string(R"({"flag":true,"limit":null,"name":"x","ports":[443],"three":"b"})"));
    QCOMPARE(round_trip(s, "sample"), std::string());
    s.note = "n";
    s.limit = 5;
    QCOMPARE(round_trip(s, "sample"), std::string());
    // What may be absent reads as its default; anything else missing, or more, is refused.
    auto r = schema::from_json_value<Sample>(json::parse(R"({"limit":1,"name":"x","ports":[],"three":"a"})"), "s: ");
    QVERIFY2(r.ok() && !r->flag && r->note.empty(), r.ok() ? "" : r.error().message.c_str());
    const std::pair<const char*, const char*> bad[] = {
        {R"({"limit":1,"ports":[],"three":"a"})", "s: name: missing field"},
        {R"({"limit":1,"name":"x","ports":[],"three":"a","x":1})", "s: x: unknown field"},
        {R"({"limit":-1,"name":"x","ports":[],"three":"a"})", ""},
        {R"({"limit":1,"name":"x","ports":[70000],"three":"a"})", "s: ports[0]: out of range 0..65535"},
        {R"({"limit":1,"name":"x","ports":[],"three":"d"})", "s: three: expected a, b or c"},
        {R"({"limit":1,"name":7,"ports":[],"three":"a"})", "s: name: expected a string"},
    };
    for (const auto& [text, why] : bad) {
      auto e = schema::from_json_value<Sample>(json::parse(text), "s: ");
      if (std::string(why).empty()) {
        QVERIFY2(e.ok(), text);  // a limit is any integer unless its field says kNonNegative
        continue;
      }
      QVERIFY2(!e.ok(), text);
      QCOMPARE(e.error().message, std::string(why));
    }
  }

  void the_plan_data_and_the_attestation_read_back_as_written() {
    FieldCapability c{"fs.deny", Support::kPartial, Needs::kHostComponent, "what is lost", "mask"};
    Attestation a{"sha256:1", "sha256:2", "linux", 7, {c}, {"PADDOCK_DEBUG"}, {"user-global:/u/p.yaml"}, "", ""};
    QCOMPARE(round_trip(a, "attestation"), std::string());
    auto back = attestation_from_json(to_json(a));
    QVERIFY(back.ok() && *back == a);
    // An OCI session's runtime and config hash: written when set, and only then.
    QVERIFY(!to_json(a).contains("runtime") && !to_json(a).contains("runtime_config_hash"));
    Attestation oci{"sha256:1", "sha256:2", "oci", 0, {c}, {}, {}, "runc 1.1.5", "sha256:3"};
    QCOMPARE(round_trip(oci, "attestation"), std::string());
    auto oci_back = attestation_from_json(to_json(oci));
    QVERIFY(oci_back.ok() && *oci_back == oci);
    BackendPlan p;
    p.backend = "macos";
    p.ir_hash = "sha256:1";
    p.probe = json::object();
    p.steps = json::array({json{{"step", "x"}, {"value", 1}}});
    p.capability_vector = {c};
    p.losses = {"l"};
    auto plan = plan_from_json(to_json(p));
    QVERIFY2(plan.ok() && *plan == p, plan.ok() ? "" : plan.error().message.c_str());
    QCOMPARE(plan_canonical_bytes(p, canonical_bytes(p.steps)), canonical_bytes(to_json(p)));
    json extra = to_json(p);
    extra["capability_vector"][0]["why"] = "x";
    QCOMPARE(plan_from_json(extra).error().message,
             std::string("plan JSON field plan.capability_vector[0].why: unknown field"));
    c.loss.clear();
    a.capability_vector = {c};
    QVERIFY(!attestation_from_json(to_json(a)).ok());  // a partial capability says what is lost
  }

  void a_report_reads_back_and_is_strict() {
    const Report r = full_report();
    QCOMPARE(round_trip(r, "report"), std::string());
    auto back = decode_report(encode_report(r));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == r);
    json j = report_json(r);
    j.erase("status");
    QCOMPARE(decode_report(j.dump()).error().message, std::string("report.json: status: missing field"));
    j = report_json(r);
    j.erase("usage");  // a report of the first versions
    QVERIFY(decode_report(j.dump()).ok());
    j = report_json(r);
    j["usage"]["swap"] = 1;
    QCOMPARE(decode_report(j.dump()).error().message, std::string("report.json: usage.swap: unknown field"));
    j = report_json(r);
    j.erase("session_id");
    QCOMPARE(decode_report(j.dump()).error().message, std::string("report.json: session_id: missing field"));
    // Written only when there is one: the error and the changed settings.
    Report plain;
    plain.session_id = "s";
    QVERIFY(!report_json(plain).contains("error"));
    QVERIFY(!report_json(plain).contains("config_changes"));
    QVERIFY(decode_report(encode_report(plain)).ok());
  }

  void every_message_from_the_sandbox_reads_back_and_is_strict() {
    InitMessage exit;
    exit.type = InitMessageType::kExit;
    exit.status = 256;
    exit.pids = 3;
    exit.cpu_ms = 10;
    exit.timed_out = true;
    const std::vector<InitMessage> all = {
        InitMessage::setup_failed("caf\xe9: no such file"),
        InitMessage::placeholders_made({{"/p/.git/hooks", true, 2049, 12345678901234ull},
                                        {"/p/.git/commondir", false, 2049, 7, 1700000000123456789, ".\n"}}),
        InitMessage::proxy_listen(),
        InitMessage::network_namespace(),
        InitMessage::credential_listen("anthropic-api-key"),
        InitMessage::host_port_listen(),
        InitMessage::ready(R"({"abi":7,"backend":"linux"})"),
        InitMessage::exec_failed(2, "nope"),
        InitMessage::deadline(),
        exit};
    std::set<InitMessageType> types;
    for (const auto& m : all) {
      const std::string bytes = encode_init_message(m);
      auto back = decode_init_message(bytes);
      QVERIFY2(back.ok(), (bytes + " -> " + (back.ok() ? "" : back.error().message)).c_str());
      QVERIFY2(*back == m, bytes.c_str());
      types.insert(m.type);
    }
    QCOMPARE(types.size(), schema::enumerator_count<InitMessageType>);
    QCOMPARE(encode_init_message(exit), std::string(R"({"cpu_ms":10,"pids":3,"status":256,"timed_out":true,"type":"exit"})"));
    const std::pair<const char*, const char*> bad[] = {
        {R"({"type":"deadline","x":1})", "message from the sandbox: x: unknown field"},
        {R"({"type":"exec_failed","message":"m"})", "message from the sandbox: errno: missing field"},
        {R"({"message":"m"})", "message from the sandbox: type: missing field"},
        {R"({"type":"boom"})", "message from the sandbox: type: expected setup_failed"},
        {R"({"type":"placeholders","list":[{"path":"/p","dir":true,"dev":-1,"ino":1}]})", "list[0].dev"},
    };
    for (const auto& [text, why] : bad) {
      auto e = decode_init_message(text);
      QVERIFY2(!e.ok() && e.error().message.find(why) != std::string::npos, (std::string(text) + " -> " + (e.ok() ? "ok" : e.error().message)).c_str());
    }
  }

  void the_control_sockets_messages_read_back() {
    ControlReply reply{true, "", {{"ask-1", "h.test", 443, "t"}}};
    QCOMPARE(round_trip(reply, "reply"), std::string());
    LiveUsage u{1, 2, 3, {std::nullopt, 4, 5}};
    auto back = decode_usage_reply(encode_usage_reply(u));
    QVERIFY(back.ok() && *back == u);
    QVERIFY(!decode_usage_reply(R"({"ok":true,"usage":{"cpu_ms":1,"memory_bytes":2,"processes":3}})").ok());
  }
};

QTEST_APPLESS_MAIN(SchemaTest)
#include "schema_test.moc"
