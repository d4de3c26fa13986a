// Launching from the app against the real paddock-helper: a background launch becomes a session
// (the same `paddock run`, its output captured into the session's output file) that runs, shows
// in the sessions list with its project, and stops from the app; a refusal shows the CLI's one
// line and the fix that makes the next launch work; a launch into the terminal chosen in Settings
// (a script that acts as a terminal emulator) runs the session there; a helper killed with
// SIGKILL leaves a row that says "crashed", never "running".
#include <csignal>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include "app_paths.h"
#include "engine/session/event.h"
#include "gui_test_env.h"
#include "launcher.h"
#include "policy_composer.h"
#include "session_monitor.h"
#include "sessions_model.h"
#include "tests/support/test_paths.h"
#include "workspace.h"

using paddock::gui::AppPaths;
using paddock::gui::Launcher;
using paddock::gui::PolicyComposer;
using paddock::gui::SessionMonitor;
using paddock::gui::SessionsModel;
using paddock::gui::Workspace;

namespace {

QString read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

qint64 helper_pid(const QString& session_dir) {
  QFile f(session_dir + "/events.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return 0;
  const QByteArray first = f.readLine();
  auto ev = paddock::session::decode_event(std::string_view(first.constData(), static_cast<std::size_t>(first.size())));
  if (!ev.ok()) return 0;
  auto s = paddock::session::payload_of<paddock::session::SessionStarted>(*ev);
  return s.ok() ? s->helper_pid : 0;
}

// The launch every test here makes: this project, the network off, this command.
void set_up(Launcher& l, const QString& project, const QString& command) {
  l.setProject(project);
  l.setNetMode("off");
  l.setCommand(command);
}

// The launch has left Starting: it runs, ended, or was refused or failed.
bool settled(const Launcher& l) { return l.state() != Launcher::Idle && l.state() != Launcher::Starting; }
// The launch is over: it ended, or was refused or failed.
bool finished(const Launcher& l) {
  return l.state() == Launcher::Ended || l.state() == Launcher::Refused || l.state() == Launcher::Failed;
}

}  // namespace

class LauncherTest : public QObject {
  Q_OBJECT

 public:
  explicit LauncherTest(paddock::gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void the_cli_equivalent_is_the_paddock_run_command_line_with_this_runs_options() {
    Launcher l;
    l.setProject("/home/u/my project");
    l.setAgentPreset("claude-code");
    l.setCommand("claude --verbose");
    l.setNetMode("ask");
    l.setExtraDomains("example.org, pypi.org");
    l.setLimits("mem=2GiB");
    l.setTimeout("2h");
    l.setPublish("1455, 8080");
    l.setHostPorts("11434");
    QCOMPARE(l.cliArguments(),
             QStringList({"run", "--project", "/home/u/my project", "--agent", "claude-code", "--net", "ask",
                          "--allow-domain", "example.org", "--allow-domain", "pypi.org", "--limits", "mem=2GiB",
                          "--timeout", "2h", "--publish", "1455", "--publish", "8080", "--host-port", "11434", "--",
                          "claude", "--verbose"}));
    QCOMPARE(l.cliEquivalent(),
             QString("paddock run --project '/home/u/my project' --agent claude-code --net ask --allow-domain "
                     "example.org --allow-domain pypi.org --limits mem=2GiB --timeout 2h --publish 1455 --publish 8080 "
                     "--host-port 11434 -- claude --verbose"));
  }

  // The panel fills one launch request (engine/session/launch_request.h); the argv it runs and the
  // Inputs it evaluates for its fixes are both derived from it, so no option reaches one and not
  // the other (the wall-time limit once did not reach the Inputs).
  void every_option_of_the_panel_reaches_both_the_argv_and_the_engine_inputs() {
    Launcher l;
    l.setProject("/home/u/proj");
    l.setAgentPreset("codex");
    l.setProfile("strict");
    l.setCommand("codex --full-auto");
    l.setNetMode("allowlist");
    l.setExtraDomains("example.org");
    l.setLimits("mem=2GiB");
    l.setTimeout("90s");
    l.setPublish("1455");
    l.setHostPorts("11434");
    l.setReview(true);
    l.setTier("landlock");
    paddock::session::LaunchRequest expected;
    expected.project = "/home/u/proj";
    expected.agent = "codex";
    expected.profile = "strict";
    expected.command = {"codex", "--full-auto"};
    expected.net = "allowlist";
    expected.allow_domains = {"example.org"};
    expected.limits = "mem=2GiB";
    expected.timeout = "90s";
    expected.publish = {"1455"};
    expected.host_ports = {"11434"};
    expected.review = true;
    expected.tier = "landlock";
    QVERIFY(l.request() == expected);
    QStringList argv;
    for (const auto& w : paddock::session::run_arguments(expected)) argv << QString::fromStdString(w);
    QCOMPARE(l.cliArguments(), argv);
    auto in = l.engineInputs();
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().message.c_str());
    QCOMPARE(in->project, std::string("/home/u/proj"));
    QCOMPARE(in->profile, std::string("strict"));
    QVERIFY(in->net == paddock::NetMode::kAllowlist);
    QCOMPARE(in->allow_domains, std::vector<std::string>{"example.org"});
    QCOMPARE(*in->limits, std::string("mem=2GiB"));
    QCOMPARE(*in->timeout_secs, std::int64_t{90});
    QCOMPARE(in->publish, std::vector<int>{1455});
    QVERIFY(in->review);
    QCOMPARE(in->linux_tier, std::string("landlock"));
  }

  // The project's "Review changes before they reach the project" reaches the launch and the
  // engine's inputs (the summary and the IR): the same flag a user would type.
  void the_review_choice_is_passed_as_review_to_the_run_and_the_engine() {
    Launcher l;
    l.setProject("/home/u/p");
    l.setCommand("claude");
    QVERIFY(!l.cliArguments().contains("--review"));
    QVERIFY(l.engineInputs().ok() && !l.engineInputs()->review);
    l.setReview(true);
    QCOMPARE(l.cliArguments(), QStringList({"run", "--project", "/home/u/p", "--review", "--", "claude"}));
    QVERIFY(l.engineInputs().ok() && l.engineInputs()->review);
  }

  void a_command_line_splits_into_the_words_a_shell_would_give() {
    QCOMPARE(Launcher::splitCommandLine("sh -c 'echo \"a b\"; x' \"q \\\" z\" back\\ slash"),
             QStringList({"sh", "-c", "echo \"a b\"; x", "q \" z", "back slash"}));
    QCOMPARE(Launcher::splitCommandLine("unterminated 'quote"), QStringList());
  }

  void each_known_terminal_gets_the_argument_that_runs_a_command() {
    const QStringList argv{"/bin/paddock", "run", "--", "claude"};
    QCOMPARE(Launcher::terminalCommand("gnome-terminal", argv).mid(0, 2), QStringList({"gnome-terminal", "--"}));
    QCOMPARE(Launcher::terminalCommand("xfce4-terminal", argv).mid(0, 2), QStringList({"xfce4-terminal", "-x"}));
    QCOMPARE(Launcher::terminalCommand("kitty", argv).mid(0, 2), QStringList({"kitty", "sh"}));
    QCOMPARE(Launcher::terminalCommand("xterm", argv).mid(0, 2), QStringList({"xterm", "-e"}));
    QCOMPARE(Launcher::terminalCommand("xterm", argv, "/s/status").mid(6, 1), QStringList({"/s/status"}));
    QCOMPARE(Launcher::terminalCommand("xterm", argv).mid(7), argv);
    QTemporaryDir bin;
    for (const char* t : {"xterm", "foot"}) {
      QFile f(bin.path() + "/" + t);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.setPermissions(QFile::ReadOwner | QFile::ExeOwner);
    }
    QCOMPARE(Launcher::detectTerminals(bin.path() + ":/nonexistent"), QStringList({"foot", "xterm"}));
  }

  void a_background_launch_runs_the_real_helper_captures_its_output_and_stops_from_the_app() {
    const QString project = env_->root() + "/home/bg-project";
    QVERIFY(QDir().mkpath(project));
    Launcher l;
    set_up(l, project, "sh -c 'echo hello-from-the-agent; exec sleep 60'");
    QSignalSpy started(&l, &Launcher::sessionStarted);
    QVERIFY(l.launchInBackground());
    QTRY_VERIFY_WITH_TIMEOUT(settled(l), 20000);
    QVERIFY2(l.state() == Launcher::Running, qPrintable(l.message()));
    QCOMPARE(started.size(), 1);
    const QString dir = started.at(0).at(1).toString();
    const QString output = AppPaths::outputDir() + "/" + l.sessionId() + ".log";
    QTRY_COMPARE_WITH_TIMEOUT(read_all(output), QString("hello-from-the-agent\n"), 20000);

    SessionsModel sessions;
    const int row = sessions.rowOfDir(dir);
    QVERIFY(row >= 0);
    QVERIFY2(sessions.get(row).value("state").toString() == "running", qPrintable(read_all(output)));
    QCOMPARE(sessions.get(row).value("project").toString(), project);
    QCOMPARE(sessions.get(row).value("outputFile").toString(), output);

    SessionMonitor m;
    m.setSessionDir(dir);
    QTRY_VERIFY_WITH_TIMEOUT(m.live(), 10000);
    m.stop();
    QTRY_VERIFY_WITH_TIMEOUT(l.state() == Launcher::Ended, 20000);
    sessions.reload();
    QCOMPARE(sessions.get(sessions.rowOfDir(dir)).value("state").toString(), QString("stopped"));
    QVERIFY(!sessions.get(sessions.rowOfDir(dir)).value("running").toBool());
  }

  void a_refused_launch_shows_the_reason_and_its_fix_makes_the_next_launch_run() {
    // An unapproved repository layer: `paddock run` refuses with 126; the fix is the reviewed
    // approval, after which the same launch runs.
    const QString project = env_->root() + "/home/unapproved-project";
    QVERIFY(QDir().mkpath(project + "/.paddock"));
    QFile layer(project + "/.paddock/policy.yaml");
    QVERIFY(layer.open(QIODevice::WriteOnly));
    layer.write("version: 1\nfilesystem:\n  allow_read: [$PROJECT]\n");
    layer.close();
    Launcher l;
    set_up(l, project, "true");
    QVERIFY(l.launchInBackground());
    QTRY_VERIFY_WITH_TIMEOUT(finished(l), 20000);
    QCOMPARE(l.state(), Launcher::Refused);
    QCOMPARE(l.exitCode(), 126);
    QVERIFY2(l.message().contains("is not approved"), qPrintable(l.message()));
    QVERIFY2(!l.message().startsWith("paddock:"), qPrintable(l.message()));
    QCOMPARE(l.fixKind(), QString("approve"));
    QCOMPARE(l.fixTarget(), project + "/.paddock/policy.yaml");

    PolicyComposer composer;
    composer.setDebounceMs(0);
    composer.setProject(project);
    composer.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(!composer.busy() && composer.rowOfLayer(l.fixTarget()) >= 0, 20000);
    QVERIFY(composer.approve(composer.rowOfLayer(l.fixTarget())));
    QVERIFY(l.applyFix());
    QTRY_VERIFY_WITH_TIMEOUT(finished(l), 20000);
    QVERIFY2(l.state() == Launcher::Ended,
             qPrintable(l.message() + " | sessions: " + QDir(AppPaths::sessionsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).join(",")));
    QCOMPARE(l.exitCode(), 0);
  }

  // Open ports and ports on this computer: a bad one is the CLI's one-line refusal; a good one
  // reaches the session's IR (the helper then forwards it; tests/helpers/linux/
  // helper_publish_test.cpp and helper_host_ports_test.cpp cover the forwarding).
  void open_ports_reach_the_session_and_a_bad_one_is_refused_in_one_line() {
    const QString project = env_->root() + "/home/publish-project";
    QVERIFY(QDir().mkpath(project));
    Launcher bad;
    set_up(bad, project, "true");
    bad.setPublish("99999");
    QVERIFY(bad.launchInBackground());
    QTRY_VERIFY_WITH_TIMEOUT(finished(bad), 20000);
    QCOMPARE(bad.state(), Launcher::Refused);
    QVERIFY2(bad.message().contains("99999"), qPrintable(bad.message()));
    QVERIFY2(!bad.message().contains('\n'), qPrintable(bad.message()));

    Launcher l;
    set_up(l, project, "sh -c 'exec sleep 60'");
    l.setPublish("18791");
    l.setHostPorts("18792");
    QSignalSpy started(&l, &Launcher::sessionStarted);
    QVERIFY(l.launchInBackground());
    QTRY_VERIFY_WITH_TIMEOUT(settled(l), 20000);
    QVERIFY2(l.state() == Launcher::Running, qPrintable(l.message()));
    const QString dir = started.at(0).at(1).toString();
    const auto ir = QJsonDocument::fromJson(read_all(dir + "/ir.json").toUtf8()).object();
    QCOMPARE(ir.value("egress").toObject().value("publish").toArray(), QJsonArray({18791}));
    QCOMPARE(ir.value("egress").toObject().value("host_ports").toArray(), QJsonArray({18792}));
    SessionMonitor m;
    m.setSessionDir(dir);
    QTRY_VERIFY_WITH_TIMEOUT(m.live(), 10000);
    m.stop();
    QTRY_VERIFY_WITH_TIMEOUT(l.state() == Launcher::Ended, 20000);
  }

  // The terminal from Settings is a script that does what an emulator does with `-e`: runs the
  // command it is given (here with no window, its output into a file). The session it starts is
  // the real `paddock run` under the real helper: it shows as running, and ends when its agent
  // is done.
  void a_launch_into_the_terminal_from_settings_runs_the_session_there() {
    const QString project = env_->root() + "/home/term-project";
    QVERIFY(QDir().mkpath(project));
    const QString log = env_->root() + "/terminal.log";
    const QString script = env_->root() + "/fake-terminal";
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(("#!/bin/sh\n"
               "# A terminal emulator without a window: `-e COMMAND ARGS...` runs COMMAND.\n"
               "[ \"$1\" = -e ] || { echo \"fake-terminal: expected -e, got $1\" >> '" + log + "'; exit 64; }\n"
               "shift\n"
               "echo terminal-started >> '" + log + "'\n"
               "\"$@\" >> '" + log + "' 2>&1 < /dev/null\n"
               "echo \"terminal-closed:$?\" >> '" + log + "'\n").toUtf8());
      f.close();
      QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }
    Workspace settings;
    settings.setTerminal(script);
    QCOMPARE(Workspace().terminal(), script);  // remembered, as the Settings page leaves it

    Launcher l;
    l.setTerminal(settings.terminal());
    // The agent runs until the test lets it finish: it is seen running first.
    set_up(l, project, "sh -c 'echo agent-in-terminal; while [ ! -e " + project + "/go ]; do sleep 0.1; done; echo agent-done'");
    QVERIFY2(l.launchInTerminal(), qPrintable(l.message()));
    QVERIFY2(l.message().contains(script), qPrintable(l.message()));

    SessionsModel sessions;
    int row = -1;
    const auto running = [&] {
      sessions.reload();
      row = -1;
      for (int i = 0; i < sessions.rowCount(); ++i)
        if (sessions.get(i).value("project").toString() == project) row = i;
      return row >= 0 && sessions.get(row).value("state").toString() == "running";
    };
    QTRY_VERIFY2_WITH_TIMEOUT(running(), qPrintable(read_all(log)), 20000);
    const QString dir = sessions.dirAt(row);
    // The launch knows the session it became (the panel's "Open session").
    QTRY_COMPARE_WITH_TIMEOUT(l.sessionId(), QFileInfo(dir).fileName(), 10000);
    QVERIFY2(l.message().startsWith("Started in " + script + " as session "), qPrintable(l.message()));
    QTRY_VERIFY_WITH_TIMEOUT(read_all(log).contains("agent-in-terminal"), 10000);

    QFile go(project + "/go");
    QVERIFY(go.open(QIODevice::WriteOnly));
    go.close();
    QTRY_VERIFY2_WITH_TIMEOUT(read_all(log).contains("terminal-closed:"), qPrintable(read_all(log)), 20000);
    const QString out = read_all(log);
    QVERIFY2(out.startsWith("terminal-started\n") && out.contains("agent-done\n") && out.endsWith("terminal-closed:0\n"),
             qPrintable(out));
    sessions.reload();
    QCOMPARE(sessions.get(sessions.rowOfDir(dir)).value("state").toString(), QString("exited"));
    QCOMPARE(sessions.get(sessions.rowOfDir(dir)).value("exitCode").toInt(), 0);
  }

  // A terminal that dies as it starts (here: one that prints why and aborts) is a failed launch
  // with its reason, never "started in ...".
  void a_terminal_that_dies_at_start_is_a_failure_with_its_reason() {
    const QString project = env_->root() + "/home/dead-terminal-project";
    QVERIFY(QDir().mkpath(project));
    const QString script = env_->root() + "/aborting-terminal";
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("#!/bin/sh\necho \'cannot open display: :42\' >&2\nkill -ABRT $$\n");
      f.close();
      QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }
    Launcher l;
    l.setTerminal(script);
    set_up(l, project, "true");
    QVERIFY(l.launchInTerminal());
    QTRY_COMPARE_WITH_TIMEOUT(l.state(), Launcher::Failed, 10000);
    QVERIFY2(l.message().contains("crashed as it started") && l.message().contains("cannot open display: :42"),
             qPrintable(l.message()));
    QVERIFY(l.sessionId().isEmpty());

    // One that exits at once with status 0 and runs nothing: no session comes, and it says so.
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("#!/bin/sh\nexit 0\n");
    }
    l.setTerminalWaitMs(1500);
    QVERIFY(l.launchInTerminal());
    QCOMPARE(l.state(), Launcher::Starting);
    QTRY_COMPARE_WITH_TIMEOUT(l.state(), Launcher::Failed, 10000);
    QVERIFY2(l.message().contains("exited at once and no session started"), qPrintable(l.message()));

    // One that runs the command, which is refused before it becomes a session: the status is
    // known, the reason is in the window.
    {
      QFile f(script);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write("#!/bin/sh\nshift\n\"$@\" </dev/null >/dev/null 2>&1\n");
    }
    set_up(l, project, "/nonexistent/agent-command");
    QVERIFY(l.launchInTerminal());
    QTRY_VERIFY_WITH_TIMEOUT(finished(l), 20000);
    QVERIFY2(l.message().contains("paddock run exited with status 127 in " + script), qPrintable(l.message()));
  }

  void a_helper_killed_with_sigkill_leaves_a_crashed_session_never_a_running_one() {
    const QString project = env_->root() + "/home/kill-project";
    QVERIFY(QDir().mkpath(project));
    Launcher l;
    set_up(l, project, "sleep 60");
    QSignalSpy started(&l, &Launcher::sessionStarted);
    QVERIFY(l.launchInBackground());
    QTRY_VERIFY_WITH_TIMEOUT(started.size() == 1, 20000);
    const QString dir = started.at(0).at(1).toString();
    SessionsModel sessions;
    QCOMPARE(sessions.get(sessions.rowOfDir(dir)).value("state").toString(), QString("running"));
    QCOMPARE(sessions.runningCount(), 1);
    const qint64 pid = helper_pid(dir);
    QVERIFY(pid > 0);
    QSignalSpy failed(&sessions, &SessionsModel::sessionFailed);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    // No file changes when a helper dies: the model's own liveness check notices.
    QTRY_VERIFY_WITH_TIMEOUT(sessions.get(sessions.rowOfDir(dir)).value("state").toString() == "abandoned", 20000);
    QCOMPARE(sessions.get(sessions.rowOfDir(dir)).value("stateWords").toString(), QString("crashed"));
    QCOMPARE(sessions.runningCount(), 0);
    QCOMPARE(failed.size(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(l.state() == Launcher::Ended, 20000);
  }

  void the_sessions_directory_is_watched_before_it_exists() {
    paddock::gui::test::GuiTestEnv fresh;  // nothing under state/ yet
    SessionsModel sessions;
    sessions.setDirectory(fresh.state() + "/paddock/sessions");
    QCOMPARE(sessions.count(), 0);
    QVERIFY(QDir().mkpath(fresh.state() + "/paddock/sessions/20260101-000000-abcd"));
    QFile ev(fresh.state() + "/paddock/sessions/20260101-000000-abcd/events.jsonl");
    QVERIFY(ev.open(QIODevice::WriteOnly));
    ev.close();
    // state/paddock/ appearing is seen from state/, then sessions/ from paddock/.
    QTRY_COMPARE_WITH_TIMEOUT(sessions.count(), 1, 10000);
  }

 private:
  paddock::gui::test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  paddock::gui::test::GuiTestEnv env;  // before the app: Qt reads XDG_* once
  qputenv("HOME", (env.root() + "/home").toUtf8());
  QGuiApplication app(argc, argv);
  LauncherTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "launcher_test.moc"
