// The credential store (platform/credential_store.h): with no secret service on the bus, keys go
// to a 0600 file and the index holds names, hosts and placeholders only; a file others could read
// is refused; with a secret service (gnome-keyring on a private session bus, unlocked for the
// test), keys go there through paddock-keyring and no file under the home holds one in clear.
#include <QtTest>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include <QStandardPaths>

#include "engine/session/layout.h"
#include "platform/credential_store.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_util.h"

using namespace paddock;

namespace {

constexpr const char* kKey = "sk-store-test-KEY-0123456789abcdef";

struct Home {
  QTemporaryDir tmp;
  session::Layout layout;
  Home() {
    auto l = session::from_env({{"HOME", tmp.path().toStdString()}});
    layout = *l;
  }
};

bool holds(const std::string& dir, const std::string& needle) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && paddock::test::slurp(it->path().string()).find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

class CredentialStoreTest : public QObject {
  Q_OBJECT
 private slots:
  void init() { ::unsetenv("DBUS_SESSION_BUS_ADDRESS"); }

  void without_a_secret_service_keys_go_to_a_0600_file_and_the_index_holds_none() {
    Home h;
    ::unsetenv("XDG_RUNTIME_DIR");
    platform::CredentialStore store(h.layout, paddock::test::build_libexec() + "/paddock-keyring");
    QVERIFY2(store.add("api-key", "api.example.com", kKey, false).ok(), "add failed");
    auto listed = store.list();
    QVERIFY(listed.ok() && listed->size() == 1);
    QCOMPARE((*listed)[0].entry.backend, session::CredentialBackend::kFile);
    QCOMPARE(QString::fromStdString((*listed)[0].entry.upstream), QString("api.example.com:443"));
    const std::string placeholder = (*listed)[0].entry.placeholder;
    QVERIFY(placeholder.rfind("paddock-placeholder-", 0) == 0);
    struct stat st {};
    QCOMPARE(::stat(h.layout.credential_file_store().c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
    QVERIFY(paddock::test::slurp(h.layout.credential_index()).find(kKey) == std::string::npos);
    QCOMPARE(QString::fromStdString(*store.value("api-key")), QString(kKey));
    QCOMPARE(QString::fromStdString(store.bindings()->at("api-key")), QString("api.example.com:443"));
    // Adding it again is refused; replacing keeps the placeholder.
    QVERIFY(!store.add("api-key", "api.example.com", kKey, false).ok());
    QVERIFY(store.add("api-key", "api.example.com:8443", "sk-store-test-NEW-KEY-0123", true).ok());
    QCOMPARE(QString::fromStdString(store.list()->at(0).entry.placeholder), QString::fromStdString(placeholder));
    QCOMPARE(QString::fromStdString(*store.value("api-key")), QString("sk-store-test-NEW-KEY-0123"));
    QVERIFY(store.remove("api-key").ok());
    QVERIFY(store.list()->empty());
    QVERIFY(!holds(h.tmp.path().toStdString(), "sk-store-test-NEW-KEY-0123"));
    QVERIFY(!store.status().secret_service);
  }

  void a_values_file_others_could_read_is_refused_with_how_to_fix_it() {
    Home h;
    platform::CredentialStore store(h.layout, "");
    QVERIFY(store.add("api-key", "api.example.com", kKey, false).ok());
    ::chmod(h.layout.credential_file_store().c_str(), 0644);
    auto v = store.value("api-key");
    QVERIFY(!v.ok());
    QVERIFY2(v.error().message.find("chmod 600") != std::string::npos, v.error().message.c_str());
  }

  void keys_a_header_could_not_carry_and_bad_names_or_hosts_are_refused() {
    Home h;
    platform::CredentialStore store(h.layout, "");
    QVERIFY(!store.add("api-key", "api.example.com", "has space in it", false).ok());
    QVERIFY(!store.add("api-key", "api.example.com", "sk-line\r\nX-Injected: yes", false).ok());
    QVERIFY(!store.add("Bad Name", "api.example.com", kKey, false).ok());
    QVERIFY(!store.add("api-key", "10.0.0.1", kKey, false).ok());
    QVERIFY(store.list()->empty());
  }

  void with_a_secret_service_keys_go_there_and_no_file_holds_one() {
    // A private session bus with gnome-keyring on it, its login keyring unlocked for this test.
    QVERIFY2(!QStandardPaths::findExecutable("gnome-keyring-daemon").isEmpty(), "gnome-keyring is not installed; run scripts/bootstrap");
    QVERIFY2(!QStandardPaths::findExecutable("dbus-daemon").isEmpty(), "dbus-daemon is not installed; run scripts/bootstrap");
    Home h;
    const std::string home = h.tmp.path().toStdString();
    const std::string runtime = home + "/run";
    std::filesystem::create_directories(runtime);
    ::chmod(runtime.c_str(), 0700);
    ::setenv("HOME", home.c_str(), 1);
    ::setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
    ::setenv("XDG_DATA_HOME", (home + "/.local/share").c_str(), 1);
    auto bus = paddock::test::run_process({"dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"});
    QVERIFY2(bus.exit_code == 0, paddock::test::dump(bus).constData());
    std::istringstream lines(bus.out);
    std::string address, pid;
    std::getline(lines, address);
    std::getline(lines, pid);
    ::setenv("DBUS_SESSION_BUS_ADDRESS", address.c_str(), 1);
    struct KillBus {
      pid_t pid;
      ~KillBus() {
        if (pid > 0) ::kill(pid, SIGTERM);
        ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
      }
    } kill_bus{static_cast<pid_t>(std::atol(pid.c_str()))};
    paddock::test::RunOptions o;
    o.stdin_data = "test-password\n";
    auto unlock = paddock::test::run_process({"gnome-keyring-daemon", "--daemonize", "--unlock", "--components=secrets"}, o);
    QVERIFY2(unlock.exit_code == 0, paddock::test::dump(unlock).constData());
    platform::CredentialStore store(h.layout, paddock::test::build_libexec() + "/paddock-keyring");
    QVERIFY2(store.status().secret_service, store.status().detail.c_str());
    const Status added = store.add("api-key", "api.example.com", kKey, false);
    QVERIFY2(added.ok(), added.ok() ? "" : added.error().message.c_str());
    QCOMPARE(store.list()->at(0).entry.backend, session::CredentialBackend::kSecretService);
    QCOMPARE(QString::fromStdString(*store.value("api-key")), QString(kKey));
    QVERIFY(!std::filesystem::exists(h.layout.credential_file_store()));
    QVERIFY2(!holds(home, kKey), "a file under the home holds the key in clear");
    QVERIFY(store.remove("api-key").ok());
    auto gone = store.value("api-key");
    QVERIFY(!gone.ok());
    auto lookup = paddock::test::run_process({paddock::test::build_libexec() + "/paddock-keyring", "lookup", "api-key"});
    QCOMPARE(lookup.exit_code, platform::kKeyringNotFound);
  }
};

QTEST_GUILESS_MAIN(CredentialStoreTest)
#include "credential_store_test.moc"
