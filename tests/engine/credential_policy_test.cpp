// Brokered credentials in the policy language and the IR (docs/credentials.md): a declared
// credential is brokered only when stored, only to the host it was stored for, only from a tier
// the user controls; its variables win over the launch environment; two stored credentials for
// the same variables leave the first declared; the IR and its hash never depend on a value or a
// placeholder; the test seams taint.
#include <QtTest>

#include "engine/credentials.h"
#include "engine/ir_schema.h"
#include "tests/engine/engine_test_env.h"

using namespace paddock;
using paddock::test::EngineEnv;
using paddock::test::eval_err;
using paddock::test::eval_ok;

namespace {

const char* kDeclaration = R"(version: 1
credentials:
  my-gateway:
    upstream: llm.example.com:8443
    header: api-key
    scheme: raw
    env:
      GATEWAY_URL: "${endpoint}/v1"
      GATEWAY_KEY: "${placeholder}"
    max_requests: 100
    max_bytes: 1GiB
)";

const BrokeredCredential* find(const FrozenIr& ir, const std::string& name) {
  for (const auto& c : ir.secrets.credentials)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

class CredentialPolicyTest : public QObject {
  Q_OBJECT
 private slots:
  void a_declared_credential_is_brokered_only_when_it_is_stored() {
    EngineEnv env;
    env.user(kDeclaration);
    Inputs in = env.inputs();
    auto ev = eval_ok(in);
    QVERIFY(ev.ir.secrets.credentials.empty());
    bool warned = false;
    for (const auto& w : ev.ir.warnings) warned = warned || w.find("credential my-gateway is not stored") != std::string::npos;
    QVERIFY(warned);
    in.stored_credentials = {{"my-gateway", "llm.example.com:8443"}};
    ev = eval_ok(in);
    const BrokeredCredential* c = find(ev.ir, "my-gateway");
    QVERIFY(c);
    QCOMPARE(QString::fromStdString(c->upstream), QString("llm.example.com"));
    QCOMPARE(c->port, 8443);
    QCOMPARE(QString::fromStdString(c->header), QString("api-key"));
    QCOMPARE(c->scheme, CredentialScheme::kRaw);
    QCOMPARE(QString::fromStdString(c->env.at("GATEWAY_URL")), QString("${endpoint}/v1"));
    QCOMPARE(*c->max_requests, std::int64_t{100});
    QCOMPARE(*c->max_bytes, std::int64_t{1} << 30);
    QCOMPARE(c->max_request_bytes, kDefaultCredentialRequestBytes);
  }

  void a_stored_key_goes_only_to_the_host_it_was_stored_for() {
    EngineEnv env;
    env.user(kDeclaration);
    Inputs in = env.inputs();
    in.stored_credentials = {{"my-gateway", "llm.example.com:443"}};
    const Error e = eval_err(in);
    QCOMPARE(e.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(e.message.find("stored for llm.example.com:443, but this layer sends it to llm.example.com:8443") !=
                 std::string::npos,
             e.message.c_str());
  }

  void a_repository_layer_may_not_declare_a_credential() {
    EngineEnv env;
    env.repo(kDeclaration);
    Inputs in = env.inputs();
    in.stored_credentials = {{"my-gateway", "llm.example.com:8443"}};
    const Error e = eval_err(in);
    QCOMPARE(e.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(e.message.find("may not declare brokered credentials") != std::string::npos, e.message.c_str());
    QVERIFY2(e.message.find("policy.yaml:3:") != std::string::npos, e.message.c_str());
  }

  void the_systems_lockdown_keeps_users_from_adding_credentials() {
    EngineEnv env;
    env.system("version: 1\nsecurity: {immutable: true}\n");
    env.user(kDeclaration);
    const Error e = eval_err(env.inputs());
    QCOMPARE(e.code, ErrorCode::kPolicyBlocked);
    QVERIFY2(e.message.find("declare brokered credentials") != std::string::npos, e.message.c_str());
  }

  void the_ir_and_its_hash_never_depend_on_a_value_or_a_placeholder() {
    EngineEnv env;
    env.user(kDeclaration);
    Inputs in = env.inputs();
    in.stored_credentials = {{"my-gateway", "llm.example.com:8443"}};
    in.environment["GATEWAY_KEY"] = "sk-would-be-real";
    const auto a = eval_ok(in);
    in.environment["GATEWAY_KEY"] = "sk-another-value";
    const auto b = eval_ok(in);
    QCOMPARE(QString::fromStdString(a.ir_hash), QString::fromStdString(b.ir_hash));
    QVERIFY(a.ir_bytes.find("sk-") == std::string::npos);
    QVERIFY(a.ir_bytes.find("${placeholder}") != std::string::npos);
  }

  void a_variable_a_credential_feeds_is_never_passed_from_the_launch_environment() {
    EngineEnv env;
    env.user(std::string(kDeclaration) + "environment:\n  pass_through: [GATEWAY_URL]\n");
    Inputs in = env.inputs();
    in.stored_credentials = {{"my-gateway", "llm.example.com:8443"}};
    in.environment["GATEWAY_URL"] = "https://elsewhere.example.org";
    const auto ev = eval_ok(in);
    QVERIFY(!paddock::test::contains(ev.ir.env.passed_names, "GATEWAY_URL"));
  }

  void two_stored_credentials_for_the_same_variables_leave_the_one_declared_first() {
    EngineEnv env;
    Inputs in = env.inputs();
    in.agent = "claude-code";
    in.stored_credentials = {{"anthropic-api-key", "api.anthropic.com:443"},
                             {"claude-code-oauth-token", "api.anthropic.com:443"}};
    const auto ev = eval_ok(in);
    QCOMPARE(ev.ir.secrets.credentials.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(ev.ir.secrets.credentials[0].name), QString("claude-code-oauth-token"));
    bool warned = false;
    for (const auto& w : ev.ir.warnings)
      warned = warned || w.find("anthropic-api-key is stored but not brokered") != std::string::npos;
    QVERIFY(warned);
  }

  void an_agent_preset_wires_its_stored_key_to_its_own_variables() {
    EngineEnv env;
    Inputs in = env.inputs();
    in.agent = "claude-code";
    in.stored_credentials = {{"anthropic-api-key", "api.anthropic.com:443"}};
    in.environment["ANTHROPIC_API_KEY"] = "sk-ant-real";
    const auto ev = eval_ok(in);
    const BrokeredCredential* c = find(ev.ir, "anthropic-api-key");
    QVERIFY(c);
    QCOMPARE(QString::fromStdString(c->header), QString("x-api-key"));
    QCOMPARE(QString::fromStdString(c->env.at("ANTHROPIC_API_KEY")), QString("${placeholder}"));
    QCOMPARE(QString::fromStdString(c->env.at("ANTHROPIC_BASE_URL")), QString("${endpoint}"));
    // The key in the launch environment is not "withheld": the agent gets the broker instead.
    QVERIFY(!paddock::test::contains(ev.withheld_credentials, "ANTHROPIC_API_KEY"));
  }

  void malformed_declarations_name_the_file_line_and_key() {
    struct Case {
      std::string yaml, says;
    } cases[] = {
        {"credentials: {Bad_Name: {upstream: a.example.com}}\n", "not a credential name"},
        {"credentials: {x: {upstream: 10.0.0.1}}\n", "IP literal"},
        {"credentials: {x: {upstream: '*.example.com'}}\n", "one host, not a pattern"},
        {"credentials: {x: {upstream: a.example.com:0}}\n", "port 1..65535"},
        {"credentials: {x: {header: x-key}}\n", "upstream"},
        {"credentials: {x: {upstream: a.example.com, header: host}}\n", "decided by the broker"},
        {"credentials: {x: {upstream: a.example.com, scheme: digest}}\n", "raw, bearer, basic"},
        {"credentials: {x: {upstream: a.example.com, scheme: basic}}\n", "needs basic_user"},
        {"credentials: {x: {upstream: a.example.com, env: {HOME: x}}}\n", "not a variable a credential may set"},
        {"credentials: {x: {upstream: a.example.com, env: {K: '${key}'}}}\n", "only ${endpoint} and ${placeholder}"},
        {"credentials: {x: {upstream: a.example.com, colour: red}}\n", "unknown key"},
    };
    for (const auto& c : cases) {
      EngineEnv env;
      env.user("version: 1\n" + c.yaml);
      Inputs in = env.inputs();
      in.stored_credentials = {{"x", "a.example.com:443"}, {"Bad_Name", "a.example.com:443"}};
      const Error e = eval_err(in);
      QVERIFY2(e.message.find(c.says) != std::string::npos, (c.yaml + " -> " + e.message).c_str());
      QVERIFY2(e.message.find("policy.yaml:") != std::string::npos, e.message.c_str());
    }
  }

  void the_test_seams_are_frozen_into_the_ir_and_taint_it() {
    EngineEnv env;
    Inputs in = env.inputs();
    in.environment["PADDOCK_DEBUG_UPSTREAM"] = "api.anthropic.com=127.0.0.1:8443";
    in.environment["PADDOCK_DEBUG_UPSTREAM_CA"] = "/tmp/ca.pem";
    const auto ev = eval_ok(in);
    QCOMPARE(QString::fromStdString(ev.ir.secrets.debug_upstreams.at("api.anthropic.com")), QString("127.0.0.1:8443"));
    QCOMPARE(QString::fromStdString(ev.ir.secrets.debug_upstream_ca), QString("/tmp/ca.pem"));
    int taints = 0;
    for (const auto& t : ev.ir.taint) taints += t.rfind("PADDOCK_DEBUG_UPSTREAM", 0) == 0;
    QCOMPARE(taints, 2);
    in.environment["PADDOCK_DEBUG_UPSTREAM"] = "api.anthropic.com=10.0.0.1:8443";
    QVERIFY2(eval_err(in).message.find("loopback") != std::string::npos, "a non-loopback seam target was accepted");
  }

  void the_shapes_front_ends_share_are_checked_one_way() {
    QVERIFY(valid_credential_name("anthropic-api-key"));
    QVERIFY(!valid_credential_name("-x"));
    QVERIFY(!valid_credential_name(std::string(65, 'a')));
    QCOMPARE(QString::fromStdString(parse_credential_upstream("API.Example.COM.")->binding()), QString("api.example.com:443"));
    QVERIFY(!parse_credential_upstream("[::1]:443").ok());
    QCOMPARE(QString::fromStdString(expand_credential_template("${endpoint}/v1 ${placeholder}", "http://127.0.0.1:3129", "p")),
             QString("http://127.0.0.1:3129/v1 p"));
  }
};

QTEST_GUILESS_MAIN(CredentialPolicyTest)
#include "credential_policy_test.moc"
