// `paddock plan` end to end: the real CLI, the real engine, and (for linux) the real helper probe.
#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include "engine/plan.h"
#include "tests/support/process_runner.h"

using nlohmann::json;
using paddock::test::run_process;

namespace {
std::string slurp_file(const std::string& path) {
  QFile f(QString::fromStdString(path));
  return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}
}  // namespace

class PlanCliTest : public QObject {
  Q_OBJECT
  QTemporaryDir project_;

  paddock::test::ProcessResult plan(std::vector<std::string> extra) {
    std::vector<std::string> argv = {paddock::test::paddock_bin(), "plan", "--project",
                                     project_.path().toStdString()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    paddock::test::RunOptions o;
    o.env_override["XDG_CONFIG_HOME"] = project_.path().toStdString() + "/.cfg";
    o.env_override["XDG_STATE_HOME"] = project_.path().toStdString() + "/.state";
    return run_process(argv, o);
  }

 private slots:
  void the_linux_plan_prints_steps_capabilities_losses_and_the_verdict() {
    auto r = plan({"--backend", "linux"});
    QVERIFY2(r.exit_code == 0 || r.exit_code == 125, r.err.c_str());
    for (const char* s : {"plan_hash: sha256:", "steps:", "landlock ABI", "capabilities:", "losses:", "check: ",
                          "limits: memory_bytes=17179869184 via ", " processes=4096 via "})
      QVERIFY2(r.out.find(s) != std::string::npos, s);
  }

  // The landlock tier's plan, whose Landlock step carries carved grants and no net rules: each
  // carved grant printed with what it leaves out, and its losses (it crashed the printer before).
  void the_landlock_tiers_plan_prints_its_carved_grants_and_its_losses() {
    QVERIFY(QDir().mkpath(project_.path() + "/.git"));
    auto r = plan({"--backend", "linux", "--tier", "landlock", "--net", "off"});
    QVERIFY2(r.exit_code == 0 || r.exit_code == 125, (r.out + r.err).c_str());
    QVERIFY2(r.err.empty(), r.err.c_str());
    const std::string project = project_.path().toStdString();
    for (const std::string& s : std::vector<std::string>{"1. tier landlock", "landlock ABI", "allow " + project + ": ",
                                "except (read only) ", project + "/.git/hooks", "losses:", "check: "})
      QVERIFY2(r.out.find(s) != std::string::npos, (s + "\n" + r.out).c_str());
  }

  void the_json_plan_is_deterministic_and_its_hash_recomputes() {
    auto a = plan({"--backend", "linux", "--json"});
    auto b = plan({"--backend", "linux", "--json"});
    QCOMPARE(a.out, b.out);
    json j = json::parse(a.out);
    auto p = paddock::plan_from_json(j["plan"]);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(paddock::plan_hash(*p), j["plan_hash"].get<std::string>());
    QCOMPARE(j["check"]["ok"].get<bool>(), a.exit_code == 0);
  }

  // One IR, one hash: the OCI plan reads the policy for Linux, so its ir_hash is the Linux plan's.
  void the_oci_plan_has_the_linux_plans_ir_hash_and_writes_a_bundle_for_the_command() {
    auto linux = plan({"--backend", "linux", "--json"});
    auto oci = plan({"--backend", "oci", "--json"});
    QVERIFY2(oci.exit_code == 0, oci.err.c_str());
    QCOMPARE(json::parse(oci.out)["plan"]["ir_hash"], json::parse(linux.out)["plan"]["ir_hash"]);
    QTemporaryDir out;
    const std::string bundle = out.path().toStdString() + "/b";
    auto r = plan({"--backend", "oci", "--bundle", bundle, "--", "sh", "-c", "echo hi"});
    QVERIFY2(r.exit_code == 0, r.err.c_str());
    QVERIFY(r.out.find("OCI config.json: namespaces") != std::string::npos);
    QFile f(QString::fromStdString(bundle + "/config.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
    json config = json::parse(f.readAll().toStdString());
    QCOMPARE(config["process"]["args"], json({"sh", "-c", "echo hi"}));
    QVERIFY(QFileInfo::exists(QString::fromStdString(bundle + "/rootfs")));
    QVERIFY(QFileInfo::exists(QString::fromStdString(bundle + "/paddock/masked-file")));
    // Never over something: the same directory a second time is refused, and left as it was.
    auto again = plan({"--backend", "oci", "--bundle", bundle, "--", "true"});
    QCOMPARE(again.exit_code, 2);
    QVERIFY2(again.err.find("not empty") != std::string::npos, again.err.c_str());
    QCOMPARE(json::parse(slurp_file(bundle + "/config.json"))["process"]["args"][2], json("echo hi"));
    auto wrong = plan({"--backend", "linux", "--bundle", out.path().toStdString() + "/c", "--", "true"});
    QCOMPARE(wrong.exit_code, 2);
    QVERIFY2(wrong.err.find("--backend oci") != std::string::npos, wrong.err.c_str());
    QVERIFY(!QFileInfo::exists(out.path() + "/c"));
  }

  void a_domain_mode_on_windows_is_refused_with_exit_125_and_one_line() {
    auto r = plan({"--backend", "windows", "--json", "--net", "allowlist", "--allow-domain", "example.org"});
    QCOMPARE(r.exit_code, 125);
    json j = json::parse(r.out);
    QCOMPARE(j["check"]["ok"].get<bool>(), false);
    bool mentions = false;
    for (const auto& line : j["plan"]["refusals"])
      mentions |= line.get<std::string>().find("egress.mode=allowlist") != std::string::npos;
    QVERIFY(mentions);
    QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    QVERIFY(r.err.rfind("paddock: ", 0) == 0);
  }

  void the_macos_plan_carries_the_seatbelt_profile_with_parameters() {
    auto r = plan({"--backend", "macos", "--json"});
    json j = json::parse(r.out);
    QCOMPARE(j["plan"]["backend"].get<std::string>(), std::string("macos"));
    const auto& step = j["plan"]["steps"][0];
    QCOMPARE(step["step"].get<std::string>(), std::string("seatbelt"));
    const std::string profile = step["value"]["profile"].get<std::string>();
    QVERIFY(profile.find("(deny default)") != std::string::npos);
    QVERIFY(profile.find(project_.path().toStdString()) == std::string::npos);
  }

  void an_unknown_backend_is_a_usage_error() {
    auto r = plan({"--backend", "freebsd"});
    QCOMPARE(r.exit_code, 2);
  }
};

QTEST_GUILESS_MAIN(PlanCliTest)
#include "plan_cli_test.moc"
