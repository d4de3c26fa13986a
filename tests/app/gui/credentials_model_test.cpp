// The Settings page's Credentials (docs/credentials.md) against the real store (no secret service
// on the bus here: the 0600 file): a key is added under a name an agent preset declares, with the
// host it is bound to filled in from the preset; it is listed with its host, where it is kept, the
// agents that use it and its last use, and never shown; adding the same name again is refused
// in one line unless replacing; removing it empties the list; a name no preset declares needs its
// host.
#include <QDir>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QtTest>

#include <cstdlib>

#include "app_paths.h"
#include "credentials_model.h"
#include "engine/session/credential_records.h"
#include "engine/session/layout.h"
#include "gui_test_env.h"
#include "platform/atomic_file.h"
#include "tests/support/test_paths.h"

using paddock::gui::AppPaths;
using paddock::gui::CredentialsModel;

namespace {

const QString kKey = "sk-ant-api03-test-0123456789abcdef";

// Every role of every row, as text: what the page could ever show.
QString everything_shown(const CredentialsModel& m) {
  QString out;
  for (int i = 0; i < m.rowCount(); ++i)
    for (int role : m.roleNames().keys()) out += m.data(m.index(i), role).toString() + "\n";
  return out;
}

}  // namespace

class CredentialsModelTest : public QObject {
  Q_OBJECT

 public:
  explicit CredentialsModelTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private:
  paddock::gui::test::GuiTestEnv* env_;

  // Runs one store or remove to its end; its (ok, message).
  static std::pair<bool, QString> done(CredentialsModel& m, const std::function<void()>& act) {
    QSignalSpy finished(&m, &CredentialsModel::finished);
    act();
    // A refusal before any work is answered at once; the store's work ends on a worker thread.
    if (finished.isEmpty() && !finished.wait(20000)) return {false, "no answer"};
    return {finished.first().at(0).toBool(), finished.first().at(1).toString()};
  }

 private slots:
  void initTestCase() {
    AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin()));
    ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
  }

  void a_key_is_stored_listed_without_its_value_replaced_and_removed() {
    CredentialsModel m;
    QCOMPARE(m.status(), paddock::gui::ModelStatus::Ready);
    QCOMPARE(m.rowCount(), 0);
    QVERIFY(!m.secretService());
    QVERIFY2(!m.storeDetail().isEmpty(), "where keys go is said");
    QVERIFY(m.knownNames().contains("anthropic-api-key"));
    QCOMPARE(m.upstreamFor("anthropic-api-key"), QString("api.anthropic.com:443"));

    auto [ok, message] = done(m, [&] { m.store("anthropic-api-key", "", kKey, false); });
    QVERIFY2(ok, qPrintable(message));
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.data(m.index(0), CredentialsModel::NameRole).toString(), QString("anthropic-api-key"));
    QCOMPARE(m.data(m.index(0), CredentialsModel::UpstreamRole).toString(), QString("api.anthropic.com:443"));
    QCOMPARE(m.data(m.index(0), CredentialsModel::BackendRole).toString(), QString("file (0600)"));
    QVERIFY2(m.data(m.index(0), CredentialsModel::AgentsRole).toString().contains("claude-code"),
             qPrintable(m.data(m.index(0), CredentialsModel::AgentsRole).toString()));
    QCOMPARE(m.data(m.index(0), CredentialsModel::LastUsedRole).toString(), QString());
    QVERIFY(!everything_shown(m).contains(kKey));

    // The same name again: refused in one line unless replacing.
    std::tie(ok, message) = done(m, [&] { m.store("anthropic-api-key", "", "sk-other", false); });
    QVERIFY(!ok);
    QVERIFY2(!message.isEmpty() && !message.contains('\n'), qPrintable(message));
    std::tie(ok, message) = done(m, [&] { m.store("anthropic-api-key", "", "sk-ant-api03-replaced", true); });
    QVERIFY2(ok, qPrintable(message));
    QCOMPARE(m.rowCount(), 1);
    QVERIFY(!everything_shown(m).contains("sk-ant-api03-replaced"));

    // Its last use, as the helper records it when a session that used it ends.
    const auto layout = paddock::session::from_env(AppPaths::environment());
    QVERIFY(layout.ok());
    QVERIFY(QDir().mkpath(QString::fromStdString(layout->state_dir)));
    paddock::session::CredentialUseRecord used;
    used["anthropic-api-key"] = {"2026-12-04T10:00:00Z", "20261204T095900Z-abc"};
    QVERIFY(paddock::platform::write_file_atomic(layout->credential_use_file(),
                                                 paddock::session::encode_credential_use(used)).ok());
    m.reload();
    QCOMPARE(m.data(m.index(0), CredentialsModel::LastUsedRole).toString(), QString("2026-12-04T10:00:00Z"));
    QCOMPARE(m.data(m.index(0), CredentialsModel::LastSessionRole).toString(), QString("20261204T095900Z-abc"));

    std::tie(ok, message) = done(m, [&] { m.remove("anthropic-api-key"); });
    QVERIFY2(ok, qPrintable(message));
    QCOMPARE(m.rowCount(), 0);
  }

  void a_name_no_preset_declares_needs_the_host_it_is_sent_to() {
    CredentialsModel m;
    QCOMPARE(m.upstreamFor("my-internal-token"), QString());
    auto [ok, message] = done(m, [&] { m.store("my-internal-token", "", "tok-1234567890", false); });
    QVERIFY(!ok);
    QVERIFY2(message.contains("host"), qPrintable(message));
    std::tie(ok, message) = done(m, [&] { m.store("my-internal-token", "api.internal.example", "tok-1234567890", false); });
    QVERIFY2(ok, qPrintable(message));
    QCOMPARE(m.data(m.index(0), CredentialsModel::UpstreamRole).toString(), QString("api.internal.example:443"));  // the port is filled in
    QCOMPARE(m.data(m.index(0), CredentialsModel::AgentsRole).toString(), QString("your policy"));
    std::tie(ok, message) = done(m, [&] { m.remove("my-internal-token"); });
    QVERIFY2(ok, qPrintable(message));
  }
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  QGuiApplication app(argc, argv);
  CredentialsModelTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "credentials_model_test.moc"
