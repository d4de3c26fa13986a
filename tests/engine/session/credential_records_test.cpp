// The records brokered credentials cross process boundaries in (engine/session/credential_records.h):
// each reads back what was written, and refuses what a header could not carry or a record that
// is not one of them, without ever quoting a key in its message.
#include <QtTest>

#include "engine/session/credential_records.h"
#include "engine/session/init_message.h"
#include "engine/session/report.h"
#include "engine/session/run_args.h"
#include "tests/support/member_count.h"

using namespace paddock;
using namespace paddock::session;

namespace {

constexpr const char* SPEC_BYTES =
    R"({"endpoints":[{"basic_user":"","connect_to":"127.0.0.1:8443","endpoint_port":3129,"header":"x-api-key",)"
    R"("listen_fd":3,"max_bytes":1000,"max_request_bytes":10,"max_requests":null,"max_response_bytes":20,"name":"a",)"
    R"("placeholder":"paddock-placeholder-01234567","scheme":"raw","upstream":"api.example.com","upstream_port":443}],)"
    R"("extra_ca":"/ca.pem","parent_pid":42,"secrets_fd":5,"tainted":false})";

constexpr const char* INDEX_BYTES = R"({
  "credentials": {
    "a": {
      "backend": "file",
      "created": "2026-12-01T00:00:00Z",
      "placeholder": "paddock-placeholder-0123",
      "upstream": "h.example:443"
    },
    "b": {
      "backend": "secret-service",
      "created": "2026-12-02T00:00:00Z",
      "placeholder": "paddock-placeholder-4567",
      "upstream": "g.example:443"
    }
  },
  "version": 1
}
)";

constexpr const char* USE_BYTES = R"({
  "a": {
    "last_used": "2026-12-03T00:00:00.000Z",
    "session": "s1"
  }
}
)";

}  // namespace

class CredentialRecordsTest : public QObject {
  Q_OBJECT
 private slots:
  void the_hand_off_reads_back_what_was_written() {
    const std::vector<CredentialSecret> in = {{"a", "api.example.com:443", "paddock-placeholder-01234567", "sk-real-0123456789"},
                                              {"b", "git.example.com:8443", "paddock-placeholder-89abcdef", "ghp_real_token_01"}};
    auto out = decode_credential_secrets(encode_credential_secrets(in));
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    QCOMPARE(out->size(), std::size_t{2});
    QCOMPARE(QString::fromStdString((*out)[1].value), QString("ghp_real_token_01"));
    QCOMPARE(QString::fromStdString((*out)[1].upstream), QString("git.example.com:8443"));
  }

  void a_key_a_header_could_not_carry_is_refused_without_being_quoted() {
    for (const std::string& bad : {std::string("sk\r\nX-Injected: 1"), std::string("short"), std::string("with space123"),
                                   std::string(9000, 'a')}) {
      QVERIFY(!valid_credential_value(bad));
      auto out = decode_credential_secrets(encode_credential_secrets({{"a", "h.example.com:443", "paddock-placeholder-01234567", bad}}));
      QVERIFY(!out.ok());
      QVERIFY2(out.error().message.find(bad) == std::string::npos, out.error().message.c_str());
    }
    QVERIFY(!decode_credential_secrets(R"({"credentials":[{"name":"a","upstream":"h:443","placeholder":"paddock-placeholder-01234567","value":"sk-real-0123456789"},{"name":"a","upstream":"h:443","placeholder":"paddock-placeholder-01234567","value":"sk-real-0123456789"}]})").ok());
    QVERIFY(!decode_credential_secrets(R"({"credentials":[],"extra":1})").ok());
  }

  void the_index_and_the_last_use_read_back() {
    CredentialIndex idx;
    idx["anthropic-api-key"] = {"api.anthropic.com:443", "paddock-placeholder-0123456789abcdef", CredentialBackend::kFile,
                                "2026-12-01T00:00:00Z"};
    auto back = decode_credential_index(encode_credential_index(idx));
    QVERIFY(back.ok());
    QCOMPARE(back->at("anthropic-api-key").backend, CredentialBackend::kFile);
    QVERIFY(!decode_credential_index(R"({"version":2,"credentials":{}})").ok());
    CredentialUseRecord use;
    use["a"] = {"2026-12-01T00:00:01.000Z", "s1"};
    auto u = decode_credential_use(encode_credential_use(use));
    QVERIFY(u.ok());
    QCOMPARE(QString::fromStdString(u->at("a").session), QString("s1"));
    auto p = decode_credential_placeholders(encode_credential_placeholders({{"a", "paddock-placeholder-01234567"}}));
    QVERIFY(p.ok());
    QVERIFY(!decode_credential_placeholders(R"({"a":"x y"})").ok());
  }

  void the_report_sums_each_credential_and_reads_back() {
    Report r;
    r.session_id = "s";
    r.status = ReportStatus::kExited;
    r.credentials.push_back({"a", "api.example.com:443", 3, 1, 100, 2000, "2026-12-01T00:00:00.000Z"});
    auto back = decode_report(encode_report(r));
    QVERIFY(back.ok());
    QCOMPARE(back->credentials.size(), std::size_t{1});
    QCOMPARE(back->credentials[0].bytes_rx, std::int64_t{2000});
    QCOMPARE(back->credentials[0].refused, std::int64_t{1});
  }

  void the_broker_process_gets_its_endpoints_and_reports_back_in_lines() {
    CredentialBrokerSpec spec;
    spec.secrets_fd = 5;
    spec.parent_pid = 42;
    spec.tainted = true;
    CredentialEndpoint e;
    e.name = "a";
    e.upstream = "api.example.com";
    e.scheme = "bearer";
    e.placeholder = "paddock-placeholder-01234567";
    e.listen_fd = 3;
    e.endpoint_port = 3129;
    e.max_requests = 7;
    spec.endpoints.push_back(e);
    auto back = decode_credential_broker_spec(encode_credential_broker_spec(spec));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->endpoints.at(0).listen_fd, 3);
    QCOMPARE(*back->endpoints.at(0).max_requests, std::int64_t{7});
    QVERIFY(!back->endpoints.at(0).max_bytes);
    QCOMPARE(back->parent_pid, std::int64_t{42});
    CredentialBrokerReport usage;
    usage.type = CredentialBrokerReport::Type::kUsage;
    usage.usage.push_back({"a", "api.example.com:443", 2, 1, 10, 20, "2026-12-01T00:00:00.000Z"});
    const std::string line = encode_credential_broker_report(usage);
    QCOMPARE(line.back(), '\n');
    QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1L);
    auto u = decode_credential_broker_report(line);
    QVERIFY(u.ok() && u->type == CredentialBrokerReport::Type::kUsage && u->usage.at(0).bytes_rx == 20);
    CredentialBrokerReport ev;
    ev.type = CredentialBrokerReport::Type::kEvent;
    ev.event = {{"event", "credential_request"}, {"credential", "a"}};
    auto e2 = decode_credential_broker_report(encode_credential_broker_report(ev));
    QVERIFY(e2.ok() && e2->event["credential"] == "a");
    QVERIFY(!decode_credential_broker_report(R"({"type":"other"})").ok());
    // The lines as the helper has always read them (the declaration changed none of their bytes).
    QCOMPARE(line, std::string(R"({"credentials":[{"bytes_rx":20,"bytes_tx":10,"last_used":"2026-12-01T00:00:00.000Z",)"
                               R"("name":"a","refused":1,"requests":2,"upstream":"api.example.com:443"}],"type":"usage"})"
                               "\n"));
    CredentialBrokerReport ready;
    ready.type = CredentialBrokerReport::Type::kReady;
    QCOMPARE(encode_credential_broker_report(ready), std::string("{\"type\":\"ready\"}\n"));
    // A failure may come without its message; an event must be an object; a kind's fields only.
    auto f = decode_credential_broker_report(R"({"type":"failed"})");
    QVERIFY(f.ok() && f->type == CredentialBrokerReport::Type::kFailed && f->message.empty());
    QVERIFY(!decode_credential_broker_report(R"({"type":"event","event":"text"})").ok());
    QVERIFY(!decode_credential_broker_report(R"({"type":"ready","message":"x"})").ok());
    QVERIFY(!decode_credential_broker_report(R"({"type":"usage","credentials":[{"name":"a"}]})").ok());
  }

  void the_helper_learns_of_each_endpoint_and_its_files_by_name() {
    auto m = decode_init_message(encode_init_message(InitMessage::credential_listen("github")));
    QVERIFY(m.ok());
    QCOMPARE(m->type, InitMessageType::kCredentialListen);
    QCOMPARE(QString::fromStdString(m->message), QString("github"));
    HelperRunArgs a;
    a.ir_file = "/proc/self/fd/3";
    a.plan_hash = "sha256:x";
    a.session_dir = "/s";
    a.session_id = "id";
    a.credentials_file = "/proc/self/fd/5";
    a.placeholders_file = "/proc/self/fd/6";
    a.command = {"true"};
    auto d = decode_run_args(encode_run_args(a));
    QVERIFY(d.ok());
    QCOMPARE(QString::fromStdString(d->credentials_file), QString("/proc/self/fd/5"));
    QCOMPARE(QString::fromStdString(d->placeholders_file), QString("/proc/self/fd/6"));
  }
  // The files and hand-offs keep their bytes (a store's index written by an older Paddock reads
  // the same, and the broker process of one build reads the spec of the same build).
  // Each record is declared once (engine/schema.h): a member without its line fails here.
  void every_member_of_the_declared_records_has_its_line() {
    QCOMPARE(test::member_count<CredentialSecret>(), schema::field_count<CredentialSecret>);
    QCOMPARE(test::member_count<CredentialEndpoint>(), schema::field_count<CredentialEndpoint>);
    QCOMPARE(test::member_count<CredentialBrokerSpec>(), schema::field_count<CredentialBrokerSpec>);
    QCOMPARE(test::member_count<CredentialIndexEntry>(), schema::field_count<CredentialIndexEntry>);
    QCOMPARE(test::member_count<CredentialIndexFile>(), schema::field_count<CredentialIndexFile>);
    QCOMPARE(test::member_count<CredentialLastUse>(), schema::field_count<CredentialLastUse>);
  }

  void each_record_is_written_in_the_bytes_it_always_had() {
    QCOMPARE(QString::fromStdString(encode_credential_secrets({{"a", "h.example:443", "paddock-placeholder-0123", "sk-real-0123"}})),
             QString(R"({"credentials":[{"name":"a","placeholder":"paddock-placeholder-0123","upstream":"h.example:443","value":"sk-real-0123"}]})"));
    QCOMPARE(QString::fromStdString(encode_credential_placeholders({{"a", "paddock-placeholder-0123"}, {"b", "paddock-placeholder-4567"}})),
             QString(R"({"a":"paddock-placeholder-0123","b":"paddock-placeholder-4567"})"));
    CredentialBrokerSpec spec;
    spec.secrets_fd = 5;
    spec.parent_pid = 42;
    spec.extra_ca = "/ca.pem";
    CredentialEndpoint e;
    e.name = "a";
    e.upstream = "api.example.com";
    e.connect_to = "127.0.0.1:8443";
    e.header = "x-api-key";
    e.scheme = "raw";
    e.placeholder = "paddock-placeholder-01234567";
    e.listen_fd = 3;
    e.endpoint_port = 3129;
    e.max_bytes = 1000;
    e.max_request_bytes = 10;
    e.max_response_bytes = 20;
    spec.endpoints.push_back(e);
    QCOMPARE(QString::fromStdString(encode_credential_broker_spec(spec)), QString(SPEC_BYTES));
    CredentialIndex index;
    index["a"] = {"h.example:443", "paddock-placeholder-0123", CredentialBackend::kFile, "2026-12-01T00:00:00Z"};
    index["b"] = {"g.example:443", "paddock-placeholder-4567", CredentialBackend::kSecretService, "2026-12-02T00:00:00Z"};
    QCOMPARE(QString::fromStdString(encode_credential_index(index)), QString(INDEX_BYTES));
    QCOMPARE(QString::fromStdString(encode_credential_use({{"a", {"2026-12-03T00:00:00.000Z", "s1"}}})), QString(USE_BYTES));
  }
};

QTEST_GUILESS_MAIN(CredentialRecordsTest)
#include "credential_records_test.moc"
