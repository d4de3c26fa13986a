// `paddock run`'s own parser reads the argv derived from a launch request back to the same
// request, every option included, and the engine's Inputs the CLI builds are the request's
// (engine/session/launch_request.h). The app derives its argv the same way (tests/app/gui).
#include <QtTest>

#include <filesystem>

#include "app/cli/inputs_options.h"
#include "tests/engine/session/launch_request_fixture.h"

using namespace paddock;

class LaunchRequestCliTest : public QObject {
  Q_OBJECT
 private slots:
  void every_option_round_trips_through_the_cli_parser() {
    const session::LaunchRequest full = test::every_option();
    auto back = cli::parse_run_arguments(session::run_arguments(full));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == full);
    auto plain = cli::parse_run_arguments(session::run_arguments(session::LaunchRequest{}));
    QVERIFY(plain.ok() && *plain == session::LaunchRequest{});
    // The command keeps its own options, "--" included, after the one that starts it.
    session::LaunchRequest r;
    r.publish = {"1455"};
    r.command = {"agent", "--", "--publish", "9"};
    auto with_dashes = cli::parse_run_arguments(session::run_arguments(r));
    QVERIFY(with_dashes.ok() && *with_dashes == r);
  }

  void the_cli_builds_the_requests_inputs() {
    cli::CliContext ctx;
    ctx.exe_dir = "/opt/paddock/bin";
    ctx.environment = {{"HOME", "/h"}, {"PATH", "/usr/bin"}};
    auto back = cli::parse_run_arguments(session::run_arguments(test::every_option()));
    QVERIFY(back.ok());
    auto in = cli::to_engine_inputs(*back, ctx);
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().message.c_str());
    session::LaunchContext lc;
    lc.cwd = std::filesystem::current_path().string();
    lc.environment = ctx.environment;
    lc.resources_dir = ctx.resources_dir().string();
    auto expected = session::inputs_of(test::every_option(), lc);
    QVERIFY(expected.ok());
    QCOMPARE(in->project, expected->project);
    QCOMPARE(in->policy_files, expected->policy_files);
    QCOMPARE(in->allow_writes, expected->allow_writes);
    QCOMPARE(*in->timeout_secs, *expected->timeout_secs);
    QCOMPARE(in->publish, expected->publish);
    QCOMPARE(in->host_ports, expected->host_ports);
    QVERIFY(in->review && expected->review);
    QCOMPARE(*in->limits, *expected->limits);
    QVERIFY(in->net == expected->net);
    QVERIFY(in->git_ssh && !in->connect_path.empty());
  }

  void a_bad_port_is_refused_by_the_parser() {
    auto r = cli::parse_run_arguments({"run", "--publish", "70000", "--", "true"});
    QVERIFY(!r.ok());
  }
};

QTEST_APPLESS_MAIN(LaunchRequestCliTest)
#include "launch_request_cli_test.moc"
