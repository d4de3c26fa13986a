// A launch request is the one record of a launch's options: `paddock run`'s argv and the engine's
// Inputs are both derived from it, and every option reaches both (tests/app/cli reads the argv
// back with the CLI's own parser; tests/app/gui fills it from the app's launch panel).
#include <QtTest>

#include "engine/session/launch_request.h"
#include "tests/engine/session/launch_request_fixture.h"
#include "tests/support/member_count.h"

using namespace paddock;
using namespace paddock::session;

class LaunchRequestTest : public QObject {
  Q_OBJECT
 private slots:
  // The fixture sets every option (a new one left at its default fails here, and a new member
  // without its declaration fails the count).
  void the_fixture_sets_every_declared_option() {
    QCOMPARE(test::member_count<LaunchRequest>(), schema::field_count<LaunchRequest>);
    const LaunchRequest full = test::every_option(), defaults;
    schema::for_each_field(full, defaults, [&](const schema::FieldInfo& info, const auto& a, const auto& b) {
      QVERIFY2(!(a == b), (std::string(info.key) + " is at its default in test::every_option()").c_str());
    });
  }

  void the_argv_says_every_option_that_is_not_its_default() {
    const auto argv = run_arguments(test::every_option());
    const std::vector<std::string> expected = {
        "run", "--project", "/p/proj", "--agent", "codex", "--profile", "strict", "--preset", "paranoid",
        "--policy", "/p/a.yaml", "--policy", "rel.yaml", "--net", "allowlist", "--allow-domain", "a.example",
        "--allow-domain", "b.example:443", "--allow-read", "/r", "--allow-write", "w", "--limits", "mem=1GiB,wall=1h",
        "--git-ssh", "--review", "--timeout", "90s", "--publish", "1455", "--publish", "3000", "--host-port", "11434",
        "--tier", "landlock", "--allow-tainted", "--",
        "sh", "-c", "echo --net off"};
    QCOMPARE(argv, expected);
    QCOMPARE(run_arguments(LaunchRequest{}), (std::vector<std::string>{"run", "--project", ".", "--"}));
  }

  void the_inputs_carry_every_option() {
    LaunchContext ctx;
    ctx.cwd = "/work";
    ctx.environment = {{"HOME", "/h"}};
    ctx.resources_dir = "/share/paddock";
    ctx.connect_path = "/libexec/paddock-connect";
    ctx.placeholders = {"/p/proj/.env"};
    auto in = inputs_of(test::every_option(), ctx);
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().message.c_str());
    QCOMPARE(in->project, std::string("/p/proj"));
    QCOMPARE(in->agent, std::string("codex"));
    QCOMPARE(in->profile, std::string("strict"));
    QCOMPARE(in->preset, std::string("paranoid"));
    QCOMPARE(in->policy_files, (std::vector<std::string>{"/p/a.yaml", "/work/rel.yaml"}));
    QVERIFY(in->net == NetMode::kAllowlist);
    QCOMPARE(in->allow_domains, (std::vector<std::string>{"a.example", "b.example:443"}));
    QCOMPARE(in->allow_reads, (std::vector<std::string>{"/r"}));
    QCOMPARE(in->allow_writes, (std::vector<std::string>{"/work/w"}));
    QCOMPARE(*in->limits, std::string("mem=1GiB,wall=1h"));
    QVERIFY(in->git_ssh);
    QCOMPARE(in->connect_path, ctx.connect_path);
    QCOMPARE(*in->timeout_secs, std::int64_t{90});
    QCOMPARE(in->publish, (std::vector<int>{1455, 3000}));
    QVERIFY(in->review);
    QCOMPARE(in->host_ports, (std::vector<int>{11434}));
    QCOMPARE(in->linux_tier, std::string("landlock"));
    QCOMPARE(in->placeholders, ctx.placeholders);
    QCOMPARE(in->environment, ctx.environment);
    QCOMPARE(in->resources_dir, ctx.resources_dir);
  }

  void a_bad_option_is_refused_naming_it() {
    for (const auto& [change, what] : std::vector<std::pair<void (*)(LaunchRequest&), const char*>>{
             {[](LaunchRequest& r) { r.net = "open"; }, "--net open"},
             {[](LaunchRequest& r) { r.timeout = "soon"; }, "--timeout soon"},
             {[](LaunchRequest& r) { r.timeout = "0"; }, "--timeout 0"},
             {[](LaunchRequest& r) { r.publish = {"http"}; }, "--publish http"},
             {[](LaunchRequest& r) { r.publish = {"65536"}; }, "--publish 65536"},
             {[](LaunchRequest& r) { r.host_ports = {"0"}; }, "--host-port 0"},
             {[](LaunchRequest& r) { r.tier = "chroot"; }, "--tier chroot"},
         }) {
      LaunchRequest r;
      change(r);
      auto in = inputs_of(r, {});
      QVERIFY2(!in.ok() && in.error().message.find(what) != std::string::npos, what);
    }
  }
};

QTEST_APPLESS_MAIN(LaunchRequestTest)
#include "launch_request_test.moc"
