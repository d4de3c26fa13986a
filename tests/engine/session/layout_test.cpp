// One derivation of Paddock's directories from the environment, for every front end and the
// helper: the XDG rules, the fallbacks under HOME, and what a missing HOME means.
#include <QtTest>

#include "engine/session/layout.h"

using paddock::session::from_env;
using paddock::session::valid_session_id;

class LayoutTest : public QObject {
  Q_OBJECT
 private slots:
  void without_xdg_variables_everything_lives_under_home() {
    auto l = from_env({{"HOME", "/home/ann"}});
    QVERIFY(l.ok());
    QCOMPARE(l->config_dir, std::string("/home/ann/.config/paddock"));
    QCOMPARE(l->state_dir, std::string("/home/ann/.local/state/paddock"));
    QCOMPARE(l->sessions_dir(), std::string("/home/ann/.local/state/paddock/sessions"));
    QCOMPARE(l->runtime_dir, std::string());
    QCOMPARE(l->system_dir, std::string("/etc/paddock"));
    QCOMPARE(l->approvals_file(), std::string("/home/ann/.local/state/paddock/approvals.json"));
    // No runtime dir: the socket goes into the session's own directory, and nothing is cached.
    QCOMPARE(l->control_socket("s1"), std::string("/home/ann/.local/state/paddock/sessions/s1/control.sock"));
    QCOMPARE(l->probe_cache(), std::string());
  }

  void absolute_xdg_variables_win_and_relative_ones_are_ignored() {
    auto l = from_env({{"HOME", "/home/ann"},
                       {"XDG_CONFIG_HOME", "/cfg/"},
                       {"XDG_STATE_HOME", "relative/state"},
                       {"XDG_RUNTIME_DIR", "/run/user//1000"},
                       {"PADDOCK_SYSTEM_DIR", "/opt/policy"}});
    QVERIFY(l.ok());
    QCOMPARE(l->config_dir, std::string("/cfg/paddock"));
    QCOMPARE(l->state_dir, std::string("/home/ann/.local/state/paddock"));
    QCOMPARE(l->xdg_runtime_dir, std::string("/run/user/1000"));
    QCOMPARE(l->runtime_dir, std::string("/run/user/1000/paddock"));
    QCOMPARE(l->control_socket("s1"), std::string("/run/user/1000/paddock/s1.sock"));
    QCOMPARE(l->probe_cache(), std::string("/run/user/1000/paddock/probe-cache.json"));
    QCOMPARE(l->system_dir, std::string("/opt/policy"));
    auto rel = from_env({{"HOME", "/h"}, {"XDG_RUNTIME_DIR", "run"}});
    QCOMPARE(rel->runtime_dir, std::string());
  }

  void home_is_normalised_lexically_and_must_be_absolute() {
    auto l = from_env({{"HOME", "/home//ann/./"}});
    QVERIFY(l.ok());
    QCOMPARE(l->home, std::string("/home/ann"));
    QCOMPARE(l->config_dir, std::string("/home/ann/.config/paddock"));
    auto root = from_env({{"HOME", "/"}});
    QCOMPARE(root->state_dir, std::string("/.local/state/paddock"));
    for (const char* bad : {"", "home/ann", "~"}) {
      auto e = from_env({{"HOME", bad}});
      QVERIFY(!e.ok());
      QVERIFY2(e.error().message.find("HOME") != std::string::npos, e.error().message.c_str());
    }
    QVERIFY(!from_env({}).ok());
  }

  void session_ids_can_never_name_another_path() {
    QVERIFY(valid_session_id("20261129T230501Z-1a2b3c4d5e6f"));
    for (const char* bad : {"", "..", "a/b", "a.b", "x y", "é"}) QVERIFY2(!valid_session_id(bad), bad);
    QVERIFY(!valid_session_id(std::string(65, 'a')));
  }
};

QTEST_APPLESS_MAIN(LayoutTest)
#include "layout_test.moc"
