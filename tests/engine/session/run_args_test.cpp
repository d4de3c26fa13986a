// `paddock-helper run`'s arguments: what the CLI, the tests and the bench encode is what the
// helper decodes, every option appears in the usage line (printed from the same table), and a
// command line that is not one is refused naming the option.
#include <QtTest>

#include "engine/session/run_args.h"

using namespace paddock::session;

class RunArgsTest : public QObject {
  Q_OBJECT
  static HelperRunArgs full() {
    HelperRunArgs a;
    a.ir_file = "/proc/self/fd/3";
    a.plan_hash = "sha256:ab";
    a.session_dir = "/s/d";
    a.session_id = "id-1";
    a.control_socket = "/run/x.sock";
    a.probe_file = "/proc/self/fd/4";
    a.cwd = "/p";
    a.timeout_secs = 90;
    a.allow_tainted = a.replaces_caller = a.record_session = a.probe_cached = true;
    a.command = {"sh", "-c", "echo --ir; exit 3", "--"};
    return a;
  }

 private slots:
  void what_is_encoded_is_what_is_decoded() {
    const HelperRunArgs a = full();
    auto argv = encode_run_args(a);
    QCOMPARE(argv.front(), std::string("run"));
    auto b = decode_run_args(argv);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().message.c_str());
    QCOMPARE(b->ir_file, a.ir_file);
    QCOMPARE(b->plan_hash, a.plan_hash);
    QCOMPARE(b->session_dir, a.session_dir);
    QCOMPARE(b->session_id, a.session_id);
    QCOMPARE(b->control_socket, a.control_socket);
    QCOMPARE(b->probe_file, a.probe_file);
    QCOMPARE(b->cwd, a.cwd);
    QCOMPARE(*b->timeout_secs, std::int64_t{90});
    QVERIFY(b->allow_tainted && b->replaces_caller && b->record_session && b->probe_cached);
    QCOMPARE(b->command, a.command);  // options-looking words after -- are the command's
    HelperRunArgs minimal;
    minimal.ir_file = "i";
    minimal.plan_hash = "h";
    minimal.session_dir = "d";
    minimal.session_id = "s";
    minimal.command = {"true"};
    auto m = decode_run_args(encode_run_args(minimal));
    QVERIFY(m.ok() && !m->timeout_secs && !m->allow_tainted && m->control_socket.empty());
  }

  void the_usage_line_names_every_option_that_is_encoded() {
    const std::string usage = helper_usage();
    for (const auto& word : encode_run_args(full()))
      if (word.rfind("--", 0) == 0 && word != "--") QVERIFY2(usage.find(word) != std::string::npos, word.c_str());
  }

  void a_command_line_that_is_not_one_is_refused_naming_the_option() {
    auto base = encode_run_args(full());
    auto with = [&](std::vector<std::string> v) { return decode_run_args(v); };
    QVERIFY(!with({}).ok());
    QVERIFY(!with({"probe"}).ok());
    auto unknown = with({"run", "--frobnicate", "--", "x"});
    QVERIFY(!unknown.ok() && unknown.error().message.find("--frobnicate") != std::string::npos);
    auto dangling = with({"run", "--ir"});
    QVERIFY(!dangling.ok() && dangling.error().message.find("--ir needs a value") != std::string::npos);
    auto missing = with({"run", "--ir", "i", "--plan-hash", "h", "--session-dir", "d", "--", "x"});
    QVERIFY(!missing.ok() && missing.error().message.find("--session-id") != std::string::npos);
    auto no_cmd = with({"run", "--ir", "i", "--plan-hash", "h", "--session-dir", "d", "--session-id", "s"});
    QVERIFY(!no_cmd.ok() && no_cmd.error().message.find("no command") != std::string::npos);
    for (const char* t : {"0", "-5", "soon", "10s", ""}) {
      auto bad = with({"run", "--ir", "i", "--plan-hash", "h", "--session-dir", "d", "--session-id", "s",
                       "--timeout", t, "--", "x"});
      QVERIFY2(!bad.ok() && bad.error().message.find("--timeout") != std::string::npos, t);
    }
  }
};

QTEST_APPLESS_MAIN(RunArgsTest)
#include "run_args_test.moc"
