// The plain-words summary against `paddock explain`'s text for the same inputs: every write and
// read root, every hidden path, the network mode and domains, the environment passed and the
// limits that explain prints are in the summary (and nothing it does not print), each line with
// its why; secrets in the launch environment are counted as stripped; the enforcement line
// comes from the plan checked for this machine.
#include <QProcess>
#include <QtTest>

#include <set>

#include "app_paths.h"
#include "backends/backend.h"
#include "gui_test_env.h"
#include "platform/probe.h"
#include "policy_summary.h"
#include "tests/support/test_paths.h"

using namespace paddock;
using namespace paddock::gui;

namespace {

struct Explain {
  std::vector<std::string> write, read, deny, domains, env_passed;
  std::string network, memory, processes;
};

// `paddock explain`'s text: one "section.field: value" line per IR field, a list's items
// indented below "section.field:" (app/cli/policy_output.cpp).
Explain parse_explain(const QString& text) {
  Explain e;
  std::vector<std::string>* list = nullptr;
  for (const QString& raw : text.split('\n')) {
    const std::string line = raw.toStdString();
    if (line.rfind("  ", 0) == 0 && list) {
      std::string item = line.substr(2);
      if (list == &e.deny) item = item.substr(0, item.rfind(" ("));
      list->push_back(item);
      continue;
    }
    list = nullptr;
    if (line == "fs.write_roots:") list = &e.write;
    else if (line == "fs.read_roots:") list = &e.read;
    else if (line == "fs.deny:") list = &e.deny;
    else if (line == "egress.domains:") list = &e.domains;
    else if (line == "env.passed_names:") list = &e.env_passed;
    else if (line.rfind("egress.mode: ", 0) == 0) e.network = line.substr(13);
    else if (line.rfind("resources.memory_bytes: ", 0) == 0) e.memory = line.substr(24);
    else if (line.rfind("resources.processes: ", 0) == 0) e.processes = line.substr(21);
  }
  return e;
}

std::set<std::string> paths_of(const std::vector<SummaryLine>& lines, const std::string& label) {
  std::set<std::string> out;
  for (const auto& l : lines)
    if (l.label == label) out.insert(l.paths.begin(), l.paths.end());
  return out;
}

const SummaryLine* find(const std::vector<SummaryLine>& lines, const std::string& label) {
  for (const auto& l : lines)
    if (l.label == label) return &l;
  return nullptr;
}

std::string dump(const std::vector<SummaryLine>& lines) {
  std::string out;
  for (const auto& l : lines) out += l.section + " · " + l.label + ": " + l.text + "  [" + l.tier + " " + l.rule + "]\n";
  return out;
}

}  // namespace

class PolicySummaryTest : public QObject {
  Q_OBJECT

 public:
  explicit PolicySummaryTest(gui::test::GuiTestEnv* env) : env_(env) {}

 private slots:
  void initTestCase() { AppPaths::setExecutableDir(QString::fromStdString(paddock::test::build_bin())); }

  void the_summary_says_what_explain_says_for_every_ir_section() {
    const QString home = env_->root() + "/home";
    const QString project = home + "/summary-project";
    QVERIFY(QDir().mkpath(project + "/.paddock"));
    QVERIFY(QDir().mkpath(project + "/build"));
    for (const char* f : {"/.env", "/config/.env.local", "/certs/server.key"}) {
      QVERIFY(QDir().mkpath(QFileInfo(project + f).path()));
      QFile file(project + f);
      QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QFile layer(project + "/.paddock/policy.yaml");
    QVERIFY(layer.open(QIODevice::WriteOnly));
    layer.write("version: 1\nfilesystem:\n  allow_write: [$PROJECT/build]\nnetwork:\n  allow_domains: [example.org]\n"
                "environment:\n  pass_through: [FOO]\nlimits:\n  memory: 2GiB\n  processes: 256\n");
    layer.close();

    std::map<std::string, std::string> env{{"HOME", home.toStdString()},
                                           {"PATH", "/usr/bin:/bin"},
                                           {"XDG_CONFIG_HOME", env_->config().toStdString()},
                                           {"XDG_STATE_HOME", env_->state().toStdString()},
                                           {"XDG_RUNTIME_DIR", (env_->root() + "/runtime").toStdString()},
                                           {"LANG", "C.UTF-8"},
                                           {"FOO", "1"},
                                           {"AWS_SECRET_ACCESS_KEY", "x"},
                                           {"GITHUB_TOKEN", "y"},
                                           {"SOMETHING_ELSE", "z"}};
    Inputs in;
    in.project = project.toStdString();
    in.net = NetMode::kAllowlist;
    in.environment = env;
    in.resources_dir = AppPaths::resourcesDir().toStdString();
    auto ev = evaluate(in);
    QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().message.c_str());
    std::vector<std::string> names;
    for (const auto& [k, v] : env) names.push_back(k);
    const auto lines = summarize_policy({&*ev, nullptr, {}, names, in.resources_dir});
    const std::string text = dump(lines);

    QProcess explain;
    QProcessEnvironment penv;
    for (const auto& [k, v] : env) penv.insert(QString::fromStdString(k), QString::fromStdString(v));
    explain.setProcessEnvironment(penv);
    explain.start(AppPaths::cliPath(), {"explain", "--project", project, "--net", "allowlist"});
    QVERIFY(explain.waitForFinished(30000));
    QCOMPARE(explain.exitCode(), 0);
    const Explain x = parse_explain(QString::fromUtf8(explain.readAllStandardOutput()));
    QVERIFY(!x.write.empty() && !x.read.empty() && !x.deny.empty());

    // Files
    QCOMPARE(paths_of(lines, "Can write"), std::set<std::string>(x.write.begin(), x.write.end()));
    QCOMPARE(paths_of(lines, "Can read"), std::set<std::string>(x.read.begin(), x.read.end()));
    QCOMPARE(paths_of(lines, "Hidden from the agent"), std::set<std::string>(x.deny.begin(), x.deny.end()));
    QVERIFY2(lines.front().label == "Can write" && lines.front().text.rfind("the project (", 0) == 0, text.c_str());
    QVERIFY2(!lines.front().tier.empty(), text.c_str());  // its why
    bool secrets_line = false;
    for (const auto& l : lines)
      if (l.label == "Hidden from the agent" && l.text.rfind("3 secret-shaped files in the project", 0) == 0) {
        secrets_line = true;
        QVERIFY2(!l.rule.empty(), text.c_str());
      }
    QVERIFY2(secrets_line, text.c_str());
    QVERIFY2(text.find("SSH keys and config") != std::string::npos, text.c_str());
    // Network
    QCOMPARE(x.network, std::string("allowlist"));
    const SummaryLine* net = find(lines, "Internet");
    QVERIFY(net);
    QVERIFY2(net->text == "only example.org", text.c_str());
    QCOMPARE(std::set<std::string>(net->paths.begin(), net->paths.end()),
             std::set<std::string>(x.domains.begin(), x.domains.end()));
    QCOMPARE(net->tier, std::string("cli-flags"));
    // Environment
    QCOMPARE(paths_of(lines, "Passed"), std::set<std::string>(x.env_passed.begin(), x.env_passed.end()));
    QCOMPARE(paths_of(lines, "Secrets stripped"), (std::set<std::string>{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}));
    QVERIFY(paths_of(lines, "Not passed").count("SOMETHING_ELSE"));
    // Limits: explain prints bytes, the summary units
    QCOMPARE(x.memory, std::string("2147483648"));
    QCOMPARE(x.processes, std::string("256"));
    QCOMPARE(find(lines, "Memory")->text, std::string("2 GiB"));
    QCOMPARE(find(lines, "Memory")->tier, std::string("repository"));
    QCOMPARE(find(lines, "Processes")->text, std::string("256"));
    QVERIFY2(find(lines, "No limit")->text.find("CPU time") != std::string::npos, text.c_str());
    // Enforcement: nothing checked without a plan
    QCOMPARE(find(lines, "On this machine")->text, std::string("not checked against this machine yet"));
  }

  void the_enforcement_line_comes_from_the_plan_checked_against_this_kernel() {
    const QString project = env_->root() + "/home/enforced";
    QVERIFY(QDir().mkpath(project));
    Inputs in;
    in.project = project.toStdString();
    in.net = NetMode::kOff;
    in.environment = {{"HOME", (env_->root() + "/home").toStdString()}, {"PATH", "/usr/bin:/bin"}};
    in.resources_dir = AppPaths::resourcesDir().toStdString();
    auto ev = evaluate(in);
    QVERIFY(ev.ok());
    auto probe = platform::run_probe(AppPaths::helperPath().toStdString());
    QVERIFY2(probe.ok(), probe.ok() ? "" : probe.error().message.c_str());
    auto plan = backends::compile(ev->ir, backends::host_backend(), *probe);
    QVERIFY(plan.ok());
    const auto lines = summarize_policy({&*ev, &*plan, {}, {}, in.resources_dir});
    const SummaryLine* l = find(lines, "On this machine");
    QVERIFY(l);
    bool partial = false;
    for (const auto& c : plan->capability_vector) partial |= c.support == Support::kPartial;
    QCOMPARE(l->warn, partial);
    QVERIFY2(l->text.rfind(partial ? "enforced by this machine's kernel, except: " : "everything above is enforced", 0) == 0,
             l->text.c_str());
    const auto refused = summarize_policy({&*ev, &*plan, "egress relay needs network namespaces", {}, in.resources_dir});
    QCOMPARE(find(refused, "On this machine")->text, std::string("cannot run as asked here: egress relay needs network namespaces"));
    QVERIFY(find(refused, "On this machine")->warn);
  }

  // The first screen in words: only secrets are called secrets, the why is a sentence (the
  // engineer's rule one click deeper), and a partly enforced row names the path it is about.
  void the_first_screen_speaks_the_users_language() {
    const QString project = env_->root() + "/home/words";
    QVERIFY(QDir().mkpath(project + "/.paddock"));
    {
      QFile f(project + "/.paddock/local.yaml");
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("version: 1\nfilesystem:\n  deny: [$PROJECT/not-there-yet.key]\n");
    }
    Inputs in;
    in.project = project.toStdString();
    in.net = NetMode::kOff;
    in.environment = {{"HOME", (env_->root() + "/home").toStdString()},
                      {"PATH", "/usr/bin:/bin"},
                      {"AWS_CA_BUNDLE", "/etc/ssl/certs/ca.pem"},
                      {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"},
                      {"AWS_SECRET_ACCESS_KEY", "x"},
                      {"GITHUB_TOKEN", "y"}};
    in.resources_dir = AppPaths::resourcesDir().toStdString();
    auto ev = evaluate(in);
    QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().message.c_str());
    auto probe = platform::run_probe(AppPaths::helperPath().toStdString());
    QVERIFY2(probe.ok(), probe.ok() ? "" : probe.error().message.c_str());
    auto plan = backends::compile(ev->ir, backends::host_backend(), *probe);
    QVERIFY(plan.ok());
    std::vector<std::string> names;
    for (const auto& [k, v] : in.environment) names.push_back(k);
    const auto lines = summarize_policy({&*ev, &*plan, {}, names, in.resources_dir});
    const std::string text = dump(lines);

    // Secrets: names shaped like secrets only; the AWS setting and the desktop's bus address are
    // among the others not passed.
    QCOMPARE(paths_of(lines, "Secrets stripped"), (std::set<std::string>{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}));
    QVERIFY(paths_of(lines, "Not passed").count("AWS_CA_BUNDLE"));
    QVERIFY(paths_of(lines, "Not passed").count("DBUS_SESSION_BUS_ADDRESS"));

    // Why, in words; the engineer's rule (deny_preset[N] at line:column) is the detail.
    const SummaryLine* ssh = nullptr;
    for (const auto& l : lines)
      if (l.label == "Hidden from the agent" && l.text.rfind("SSH keys", 0) == 0) ssh = &l;
    QVERIFY2(ssh, text.c_str());
    QCOMPARE(ssh->decided, std::string("Decided by Paddock's default profile, in its list of SSH keys and config."));
    QVERIFY2(ssh->decided.find("deny_preset[") == std::string::npos, ssh->decided.c_str());
    QVERIFY2(ssh->detail.find("deny_preset[") != std::string::npos, ssh->detail.c_str());
    const SummaryLine* secrets = find(lines, "Secrets stripped");
    QVERIFY2(secrets->decided.find("Paddock itself") != std::string::npos, secrets->decided.c_str());

    // A partly enforced row says its loss simply, the capability row is the detail; an absent
    // deny is held by a placeholder now (exact), so it is no loss of this machine's.
    const SummaryLine* l = find(lines, "On this machine");
    QVERIFY(l);
    QVERIFY2(l->text.find("private /tmp") != std::string::npos, l->text.c_str());
    QVERIFY2(l->text.find("not-there-yet.key") == std::string::npos, l->text.c_str());
    QVERIFY2(l->detail.find("fs.deny.absent_inside_write_root") == std::string::npos, l->detail.c_str());
  }

  void sizes_and_durations_read_as_people_write_them() {
    QCOMPARE(human_bytes(8LL << 30), std::string("8 GiB"));
    QCOMPARE(human_bytes(1536), std::string("1.5 KiB"));
    QCOMPARE(human_bytes(100), std::string("100 B"));
    QCOMPARE(human_seconds(4 * 3600), std::string("4 h"));
    QCOMPARE(human_seconds(90), std::string("1 min 30 s"));
    QCOMPARE(display_path("/home/u/p/src", "/home/u/p", "/home/u"), std::string("the project/src"));
    QCOMPARE(display_path("/home/u/.ssh", "/home/u/p", "/home/u"), std::string("~/.ssh"));
    QCOMPARE(display_path("/home/uv", "/home/u/p", "/home/u"), std::string("/home/uv"));
  }

 private:
  gui::test::GuiTestEnv* env_;
};

int main(int argc, char** argv) {
  gui::test::GuiTestEnv env;
  QCoreApplication app(argc, argv);
  PolicySummaryTest t(&env);
  return QTest::qExec(&t, argc, argv);
}

#include "policy_summary_test.moc"
