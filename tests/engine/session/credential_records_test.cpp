// The records brokered credentials cross process boundaries in (engine/session/credential_records.h):
// each reads back what was written, and refuses what a header could not carry or a record that
// is not one of them, without ever quoting a key in its message.
#include <QtTest>

#include "engine/session/credential_records.h"
#include "engine/session/init_message.h"
#include "engine/session/report.h"
#include "engine/session/run_args.h"

using namespace paddock;
using namespace paddock::session;

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
};

QTEST_GUILESS_MAIN(CredentialRecordsTest)
#include "credential_records_test.moc"
